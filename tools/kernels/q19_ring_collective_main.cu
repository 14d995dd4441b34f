// Harness for q19's ring_collective: RS then AG = all-reduce on 4 ranks, fp32 and bf16.
#include "q19_ring_collective.cu"  // first: the block must compile on its own includes
#include "ranks.cuh"

constexpr int R = 4, GRID = 8, THREADS = 256;

template <typename T>
T from_float(float v) { if constexpr (sizeof(T) == 2) return __float2bfloat16_rn(v); else return v; }
template <typename T>
float to_float(T v) { if constexpr (sizeof(T) == 2) return __bfloat162float(v); else return v; }

template <typename T>
void run(const char* name, size_t chunk, double bound, bool sanitize) {
  const size_t n = R * chunk;
  std::vector<std::vector<float>> in(R);
  std::vector<T*> bufs(R);
  for (int r = 0; r < R; ++r) {
    in[r] = harness::random_vector(n, 19 + r, sizeof(T) == 2);
    std::vector<T> h(n);
    for (size_t i = 0; i < n; ++i) h[i] = from_float<T>(in[r][i]);
    bufs[r] = harness::to_device(h);
  }
  T* const* table = harness::device_table(bufs);
  harness::Sync sync(R, (size_t)GRID * (R + 1), GRID, sanitize);
  auto streams = harness::streams(R);
  auto all_reduce = [&] {
    for (int r = 0; r < R; ++r)
      ring_collective<T, R, true><<<GRID, THREADS, 0, streams[r]>>>(
          table, sync.flag_table, sync.calls[r], r, chunk);
    for (int r = 0; r < R; ++r)
      ring_collective<T, R, false><<<GRID, THREADS, 0, streams[r]>>>(
          table, sync.flag_table, sync.calls[r], r, chunk);
    for (auto s : streams) CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGetLastError());
  };
  all_reduce();
  double error = 0;
  for (int r = 0; r < R && !sanitize; ++r) {
    std::vector<T> got = harness::to_host(bufs[r], n);
    for (size_t i = 0; i < n; ++i) {
      double want = 0;
      for (int p = 0; p < R; ++p) want += in[p][i];
      error = std::max(error, std::fabs(to_float(got[i]) - want));
    }
  }
  // timing reuses the buffers: values grow 4x per call, far from overflow in 20 calls
  const double us = sanitize ? 0 : harness::time_us(all_reduce);
  harness::report(name, error, bound, us);
}

int main(int argc, char** argv) {
  const bool sanitize = harness::sanitize_mode(argc, argv);
  run<float>("q19 ring all-reduce fp32 (4 ranks, 1M)", (1 << 20) / R + 3, 1e-5, sanitize);
  run<__nv_bfloat16>("q19 ring all-reduce bf16 (4 ranks, 1M)", (1 << 20) / R + 3, 3e-2, sanitize);
  return harness::finish();
}
