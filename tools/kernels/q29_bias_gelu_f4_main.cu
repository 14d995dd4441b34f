// Harness for q29's vectorized kernels: bias+GeLU (fp32), RMSNorm fp32 and bf16.
#include "q29_bias_gelu_f4.cu"  // first: the block must compile on its own includes
#include "harness.cuh"

constexpr int ROWS = 4096, N = 4096;

int main() {
  const size_t n = (size_t)ROWS * N;
  const std::vector<float> x = harness::random_vector(n, 29, true);
  const std::vector<float> b = harness::random_vector(N, 30, true);
  const std::vector<float> w = harness::random_vector(N, 31, true);
  float* x_dev = harness::to_device(x);
  float* b_dev = harness::to_device(b);
  float* w_dev = harness::to_device(w);
  float *y_dev, *rstd_dev;
  CHECK(cudaMalloc(&y_dev, n * sizeof(float)));
  CHECK(cudaMalloc(&rstd_dev, ROWS * sizeof(float)));
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));

  const int64_t n_vec = n / 4;
  const int grid = (int)std::min<int64_t>((n_vec + 255) / 256, 8 * sms);
  auto gelu = [&] {
    bias_gelu_f4<<<grid, 256>>>(reinterpret_cast<const float4*>(x_dev),
                                reinterpret_cast<const float4*>(b_dev),
                                reinterpret_cast<float4*>(y_dev), n_vec, N / 4);
  };
  gelu();
  std::vector<float> y = harness::to_host(y_dev, n);
  double error = 0;
  for (size_t i = 0; i < n; i += 97) {
    const double v = (double)x[i] + b[i % N];
    const double want = 0.5 * v * (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
    error = std::max(error, std::fabs(y[i] - want));
  }
  harness::report("q29 bias_gelu_f4 (4096x4096 fp32)", error, 1e-5, harness::time_us(gelu));

  auto rms_want = [&](int row, int i) {
    double ss = 0;
    for (int j = 0; j < N; ++j) ss += (double)x[(size_t)row * N + j] * x[(size_t)row * N + j];
    return x[(size_t)row * N + i] / std::sqrt(ss / N + 1e-6) * w[i];
  };
  auto rms = [&] { rmsnorm_fwd<<<ROWS, 256>>>(x_dev, w_dev, y_dev, rstd_dev, N, 1e-6f); };
  rms();
  y = harness::to_host(y_dev, n);
  error = 0;
  for (int row = 0; row < ROWS; row += 511)
    for (int i = 0; i < N; ++i) error = std::max(error, std::fabs(y[(size_t)row * N + i] - rms_want(row, i)));
  harness::report("q29 rmsnorm_fwd (4096x4096 fp32)", error, 1e-4, harness::time_us(rms));

  const __nv_bfloat16* xb = harness::to_device(harness::to_bf16(x));
  const __nv_bfloat16* wb = harness::to_device(harness::to_bf16(w));
  __nv_bfloat16* yb;
  CHECK(cudaMalloc(&yb, n * sizeof(__nv_bfloat16)));
  auto rms_bf16 = [&] { rmsnorm_fwd_bf16<<<ROWS, 256>>>(xb, wb, yb, rstd_dev, N, 1e-6f); };
  rms_bf16();
  y = harness::from_bf16(harness::to_host(yb, n));
  error = 0;
  for (int row = 0; row < ROWS; row += 511)
    for (int i = 0; i < N; ++i) error = std::max(error, std::fabs(y[(size_t)row * N + i] - rms_want(row, i)));
  harness::report("q29 rmsnorm_fwd_bf16 (4096x4096)", error, 4.0 / 256, harness::time_us(rms_bf16));
  CHECK(cudaGetLastError());
  return harness::finish();
}
