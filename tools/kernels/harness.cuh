// Shared bits of the GPU harnesses: error checks, timing, a checked result line.
// Each harness includes its answer's block (extracted by tools/kernels-on-gpu as
// <card>_<kernel>.cu), runs it on small inputs, compares with a CPU reference, and
// prints one line per check; the exit code is non-zero when a check fails.
#pragma once
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <vector>

#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t err_ = (call);                                                   \
    if (err_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                    \
                   cudaGetErrorString(err_));                                    \
      std::exit(2);                                                              \
    }                                                                            \
  } while (0)

namespace harness {

inline int failures = 0;

inline float bf16_round(float v) { return __bfloat162float(__float2bfloat16_rn(v)); }

// Deterministic inputs in [-1, 1).
inline std::vector<float> random_vector(size_t n, uint32_t seed, bool round_bf16 = false) {
  std::vector<float> out(n);
  uint32_t s = seed * 2654435761u + 1;
  for (auto& v : out) {
    s = s * 1664525u + 1013904223u;
    v = (s >> 8) * (1.0f / 8388608.0f) - 1.0f;
    if (round_bf16) v = bf16_round(v);
  }
  return out;
}

inline std::vector<__nv_bfloat16> to_bf16(const std::vector<float>& v) {
  std::vector<__nv_bfloat16> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = __float2bfloat16_rn(v[i]);
  return out;
}

inline std::vector<float> from_bf16(const std::vector<__nv_bfloat16>& v) {
  std::vector<float> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = __bfloat162float(v[i]);
  return out;
}

template <typename T>
T* to_device(const std::vector<T>& host) {
  T* dev = nullptr;
  CHECK(cudaMalloc(&dev, host.size() * sizeof(T)));
  CHECK(cudaMemcpy(dev, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return dev;
}

template <typename T>
std::vector<T> to_host(const T* dev, size_t n) {
  std::vector<T> host(n);
  CHECK(cudaMemcpy(host.data(), dev, n * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

inline double max_abs_diff(const std::vector<float>& got, const std::vector<float>& want) {
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double d = std::fabs((double)got[i] - want[i]);
    worst = std::isnan(d) ? INFINITY : (d > worst ? d : worst);
  }
  return worst;
}

// Prints "name: max |error| = e (bound b), t us" and counts a failure above the bound.
inline void report(const char* name, double error, double bound, double micros) {
  const bool ok = error <= bound;
  std::printf("%-44s max |error| = %-10.3g bound %-8.3g %9.1f us  %s\n", name, error, bound,
              micros, ok ? "ok" : "FAILED");
  failures += ok ? 0 : 1;
}

// Median time of `launch` over `iters` runs, in microseconds.
template <typename F>
double time_us(F launch, int iters = 20) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> ms(iters);
  for (int i = 0; i < iters; ++i) {
    CHECK(cudaEventRecord(a));
    launch();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaEventElapsedTime(&ms[i], a, b));
  }
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  std::vector<float> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  return sorted[iters / 2] * 1000.0;
}

inline int finish() {
  CHECK(cudaDeviceSynchronize());
  return failures == 0 ? 0 : 1;
}

}  // namespace harness
