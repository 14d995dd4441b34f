// R "ranks" on one GPU for the peer-pointer kernels (q05, q19, q20): every rank's buffers
// are allocations on the same device, the peer-pointer tables point at them, and each rank
// launches on its own stream, so the ranks' kernels run concurrently and meet in their
// flag barriers as they would across NVLink. With --sanitize (compute-sanitizer runs
// kernels one at a time) the flags start at a huge epoch, so no wait ever blocks: the run
// then checks memory accesses only, not results.
#pragma once
#include <cstring>
#include <string>
#include "harness.cuh"

namespace harness {

inline bool sanitize_mode(int argc, char** argv) {
  return argc > 1 && std::string(argv[1]) == "--sanitize";
}

// A table of R device pointers, itself in device memory (what the kernels take).
template <typename T>
T* const* device_table(const std::vector<T*>& ptrs) {
  T** table = nullptr;
  CHECK(cudaMalloc(&table, ptrs.size() * sizeof(T*)));
  CHECK(cudaMemcpy(table, ptrs.data(), ptrs.size() * sizeof(T*), cudaMemcpyHostToDevice));
  return table;
}

// Per-rank flag arrays and per-block call counters.
struct Sync {
  std::vector<uint32_t*> flags, calls;
  uint32_t* const* flag_table = nullptr;
  Sync(int ranks, size_t flags_per_rank, int grid, bool sanitize) {
    for (int r = 0; r < ranks; ++r) {
      uint32_t *f, *c;
      CHECK(cudaMalloc(&f, flags_per_rank * sizeof(uint32_t)));
      CHECK(cudaMemset(f, sanitize ? 0x7f : 0, flags_per_rank * sizeof(uint32_t)));
      CHECK(cudaMalloc(&c, grid * sizeof(uint32_t)));
      CHECK(cudaMemset(c, 0, grid * sizeof(uint32_t)));
      flags.push_back(f);
      calls.push_back(c);
    }
    flag_table = device_table(flags);
  }
};

inline std::vector<cudaStream_t> streams(int ranks) {
  std::vector<cudaStream_t> out(ranks);
  for (auto& s : out) CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return out;
}

}  // namespace harness
