// Harness for q27's dispatch_layout: 4096 tokens, top-8 of 256 experts, 64 ranks, 8 per node.
#include "q27_dispatch_layout.cu"  // first: the block must compile on its own includes
#include <algorithm>
#include "harness.cuh"

constexpr int T = 4096, K = 8, E = 256, P = 64, G = 8;

int main() {
  std::vector<int64_t> topk((size_t)T * K);
  uint32_t s = 27;
  for (int t = 0; t < T; ++t) {
    std::vector<int> pool(E);
    for (int e = 0; e < E; ++e) pool[e] = e;
    for (int j = 0; j < K; ++j) {                   // K distinct experts, some slots masked
      s = s * 1664525u + 1013904223u;
      std::swap(pool[j], pool[j + s % (E - j)]);
      topk[(size_t)t * K + j] = (s >> 28) == 0 ? -1 : pool[j];
    }
  }
  std::vector<int> want_e(E), want_r(P), want_n(P / G);
  std::vector<char> want_in((size_t)T * P);
  for (int t = 0; t < T; ++t) {
    std::vector<bool> rank(P), node(P / G);
    for (int j = 0; j < K; ++j) {
      const int64_t e = topk[(size_t)t * K + j];
      if (e < 0) continue;
      want_e[e]++;
      rank[e / (E / P)] = true;
      node[e / (E / P) / G] = true;
    }
    for (int r = 0; r < P; ++r) { want_r[r] += rank[r]; want_in[(size_t)t * P + r] = rank[r]; }
    for (int n = 0; n < P / G; ++n) want_n[n] += node[n];
  }
  const int64_t* topk_dev = harness::to_device(topk);
  int *per_e, *per_r, *per_n;
  bool* in_rank;
  CHECK(cudaMalloc(&per_e, E * sizeof(int)));
  CHECK(cudaMalloc(&per_r, P * sizeof(int)));
  CHECK(cudaMalloc(&per_n, P / G * sizeof(int)));
  CHECK(cudaMalloc(&in_rank, (size_t)T * P));
  auto launch = [&] {
    CHECK(cudaMemsetAsync(per_e, 0, E * sizeof(int)));
    CHECK(cudaMemsetAsync(per_r, 0, P * sizeof(int)));
    CHECK(cudaMemsetAsync(per_n, 0, P / G * sizeof(int)));
    CHECK(cudaMemsetAsync(in_rank, 0, (size_t)T * P));
    dispatch_layout<256, 256><<<(T + 255) / 256, 256>>>(topk_dev, T, K, E, P, G, per_e, per_r,
                                                        per_n, in_rank);
    CHECK(cudaGetLastError());
  };
  launch();
  CHECK(cudaDeviceSynchronize());
  double wrong = 0;
  const auto e = harness::to_host(per_e, E), r = harness::to_host(per_r, P);
  const auto n = harness::to_host(per_n, P / G);
  const auto in = harness::to_host(reinterpret_cast<char*>(in_rank), (size_t)T * P);
  for (int i = 0; i < E; ++i) wrong += e[i] != want_e[i];
  for (int i = 0; i < P; ++i) wrong += r[i] != want_r[i];
  for (int i = 0; i < P / G; ++i) wrong += n[i] != want_n[i];
  for (size_t i = 0; i < in.size(); ++i) wrong += (in[i] != 0) != (want_in[i] != 0);
  harness::report("q27 dispatch_layout (wrong counts)", wrong, 0, harness::time_us(launch));
  return harness::finish();
}
