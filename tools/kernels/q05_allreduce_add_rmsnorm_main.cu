// Harness for q05's allreduce_add_rmsnorm: 4 ranks, 64 tokens x hidden 4096, bf16.
#include "q05_allreduce_add_rmsnorm.cu"  // first: the block must compile on its own includes
#include "ranks.cuh"

constexpr int R = 4, GRID = 16, THREADS = 256, ROWS = 64, H = 4096;

int main(int argc, char** argv) {
  const bool sanitize = harness::sanitize_mode(argc, argv);
  const size_t n = (size_t)ROWS * H;
  std::vector<std::vector<float>> part(R);
  std::vector<const bf16*> x(R);
  std::vector<bf16*> residual(R), y(R);
  const std::vector<float> res0 = harness::random_vector(n, 5, true);
  const std::vector<float> w = harness::random_vector(H, 6, true);
  const bf16* w_dev = harness::to_device(harness::to_bf16(w));
  for (int r = 0; r < R; ++r) {
    part[r] = harness::random_vector(n, 50 + r, true);
    x[r] = harness::to_device(harness::to_bf16(part[r]));
    residual[r] = harness::to_device(harness::to_bf16(res0));
    CHECK(cudaMalloc(&y[r], n * sizeof(bf16)));
  }
  const bf16* const* table = harness::device_table(x);
  harness::Sync sync(R, (size_t)GRID * 2 * R, GRID, sanitize);
  auto streams = harness::streams(R);
  auto launch = [&] {
    for (int r = 0; r < R; ++r)
      allreduce_add_rmsnorm<R><<<GRID, THREADS, 0, streams[r]>>>(
          table, sync.flag_table, sync.calls[r], r, residual[r], w_dev, y[r], ROWS, H, 1e-6f);
    for (auto s : streams) CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGetLastError());
  };
  launch();
  double error = 0;
  for (int r = 0; r < R && !sanitize; ++r) {
    const std::vector<float> got = harness::from_bf16(harness::to_host(y[r], n));
    for (int row = 0; row < ROWS; ++row) {
      std::vector<float> h(H);
      double ss = 0;
      for (int i = 0; i < H; ++i) {
        float acc = res0[(size_t)row * H + i];
        for (int p = 0; p < R; ++p) acc += part[p][(size_t)row * H + i];
        h[i] = harness::bf16_round(acc);
        ss += (double)h[i] * h[i];
      }
      const double rstd = 1.0 / std::sqrt(ss / H + 1e-6);
      for (int i = 0; i < H; ++i)
        error = std::max(error, std::fabs(got[(size_t)row * H + i] - h[i] * rstd * w[i]));
    }
  }
  // timing keeps adding into the residual: magnitudes grow slowly, fine for bf16
  const double us = sanitize ? 0 : harness::time_us(launch);
  harness::report("q05 allreduce+add+rmsnorm bf16 (4 ranks, 64x4096)", error, 0.05, us);
  return harness::finish();
}
