// link: -L$NVSHMEM_HOME/lib -l:libnvshmem_host.so.3 -lnvshmem_device -Xlinker -rpath=$NVSHMEM_HOME/lib
// Harness for q25's NVSHMEM one_shot_allreduce. Run it under an NVSHMEM launcher for one
// PE per GPU; started alone it is a single PE (the barrier then meets itself), which still
// exercises every index path, the tail and the device-side epoch over repeated calls.
#include "q25_one_shot_allreduce.cu"  // first: the block must compile on its own includes
#include <nvshmem.h>
#include <nvshmemx.h>
#include "harness.cuh"

constexpr int GRID = 16, THREADS = 512;

template <typename T, int NPES>
void run(const char* name, size_t n, double bound) {
  const int me = nvshmem_my_pe();
  T* buf = static_cast<T*>(nvshmem_malloc(n * sizeof(T)));
  uint64_t* sig = static_cast<uint64_t*>(nvshmem_calloc(GRID * (2 * NPES + 1), sizeof(uint64_t)));
  T* out = nullptr;
  CHECK(cudaMalloc(&out, n * sizeof(T)));
  std::vector<std::vector<float>> in(NPES);
  for (int p = 0; p < NPES; ++p) in[p] = harness::random_vector(n, 25 + p, sizeof(T) == 2);
  std::vector<T> mine(n);
  for (size_t i = 0; i < n; ++i) {
    if constexpr (sizeof(T) == 2) mine[i] = __float2bfloat16_rn(in[me][i]);
    else mine[i] = in[me][i];
  }
  CHECK(cudaMemcpy(buf, mine.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  nvshmem_barrier_all();
  auto launch = [&] {
    one_shot_allreduce<T, NPES><<<GRID, THREADS>>>(buf, out, sig, n);
    CHECK(cudaGetLastError());
  };
  launch();
  CHECK(cudaDeviceSynchronize());
  std::vector<T> got = harness::to_host(out, n);
  double error = 0;
  for (size_t i = 0; i < n; ++i) {
    double want = 0;
    for (int p = 0; p < NPES; ++p) want += in[p][i];
    float g;
    if constexpr (sizeof(T) == 2) g = __bfloat162float(got[i]); else g = got[i];
    error = std::max(error, std::fabs(g - want));
  }
  const double us = harness::time_us(launch);   // 20 more calls: epochs 2..21
  harness::report(name, error, bound, us);
  nvshmem_free(sig);
  nvshmem_free(buf);
}

template <int NPES>
void run_all() {
  run<float, NPES>("q25 one-shot all-reduce fp32 (256K + 3)", (1 << 18) + 3, 1e-5);
  run<__nv_bfloat16, NPES>("q25 one-shot all-reduce bf16 (256K + 5)", (1 << 18) + 5, 3e-2);
}

int main() {
  // one PE per GPU: pick this process's GPU before nvshmem_init (launchers set LOCAL_RANK)
  if (const char* local = std::getenv("LOCAL_RANK")) CHECK(cudaSetDevice(std::atoi(local)));
  nvshmem_init();
  switch (nvshmem_n_pes()) {
    case 1: run_all<1>(); break;
    case 2: run_all<2>(); break;
    case 4: run_all<4>(); break;
    case 8: run_all<8>(); break;
    default: std::fprintf(stderr, "1, 2, 4 or 8 PEs\n"); return 2;
  }
  const int status = harness::finish();
  nvshmem_finalize();
  return status;
}
