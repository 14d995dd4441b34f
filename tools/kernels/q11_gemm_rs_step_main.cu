// Harness for q11's gemm_rs_step: 4 ranks on one GPU, M = 4 x 250, N = 1000, K = 777.
// All launches go to one stream in step order (every rank's step s before any step s+1),
// so each wait is already satisfied when its tile runs: the flags protocol is exercised,
// results are checked, and compute-sanitizer (which runs kernels one at a time) works too.
#include "q11_gemm_rs_step.cu"  // first: the block must compile on its own includes
#include "ranks.cuh"

constexpr int R = 4, MC = 250, N = 1000, K = 777, M = R * MC;

int main() {
  std::vector<std::vector<float>> a(R), b(R);
  std::vector<const bf16*> a_dev(R), b_dev(R);
  std::vector<bf16*> recv(R), out(R);
  for (int r = 0; r < R; ++r) {
    a[r] = harness::random_vector((size_t)M * K, 110 + r, true);
    b[r] = harness::random_vector((size_t)K * N, 120 + r, true);
    a_dev[r] = harness::to_device(harness::to_bf16(a[r]));
    b_dev[r] = harness::to_device(harness::to_bf16(b[r]));
    CHECK(cudaMalloc(&recv[r], (size_t)(R - 1) * MC * N * sizeof(bf16)));
    CHECK(cudaMalloc(&out[r], (size_t)MC * N * sizeof(bf16)));
  }
  const dim3 grid((N + BN - 1) / BN, (MC + BM - 1) / BM), block(32, 8);
  const size_t tiles = (size_t)grid.x * grid.y;
  harness::Sync ready(R, (R - 1) * tiles, 1, false), ack(R, (R - 1) * tiles, 1, false);
  bf16* const* recv_table = harness::device_table(recv);
  uint32_t* epoch = nullptr;
  CHECK(cudaMalloc(&epoch, sizeof(uint32_t)));
  CHECK(cudaMemset(epoch, 0, sizeof(uint32_t)));
  // one epoch for the whole "cluster" (each rank would bump its own; same value)
  auto call = [&] {
    next_epoch<<<1, 1>>>(epoch);
    for (int s = 0; s < R; ++s)
      for (int r = 0; r < R; ++r)
        gemm_rs_step<R><<<grid, block>>>(a_dev[r], b_dev[r], recv_table, ready.flag_table,
                                        ack.flag_table, epoch, out[r], r, s, M, N, K);
    CHECK(cudaGetLastError());
  };
  call();
  CHECK(cudaDeviceSynchronize());
  double error = 0, scale = 0;
  for (int r = 0; r < R; ++r) {
    const std::vector<float> got = harness::from_bf16(harness::to_host(out[r], (size_t)MC * N));
    for (int i = 0; i < MC; i += 7)          // a sample of rows, every column
      for (int j = 0; j < N; ++j) {
        double want = 0;
        for (int p = 0; p < R; ++p)
          for (int k = 0; k < K; ++k)
            want += (double)a[p][(size_t)(r * MC + i) * K + k] * b[p][(size_t)k * N + j];
        error = std::max(error, std::fabs(got[(size_t)i * N + j] - want));
        scale = std::max(scale, std::fabs(want));
      }
  }
  const double us = harness::time_us(call, 10);
  harness::report("q11 GEMM+RS ring, 4 ranks serialised (bf16)", error, R * scale / 256, us);
  return harness::finish();
}
