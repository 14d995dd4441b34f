// Harness for q20's all_to_all: 8 ranks, 64 KiB blocks (plus one odd 16-byte word).
#include "q20_all_to_all.cu"  // first: the block must compile on its own includes
#include "ranks.cuh"

constexpr int R = 8, GRID = 8, THREADS = 256;

int main(int argc, char** argv) {
  const bool sanitize = harness::sanitize_mode(argc, argv);
  const size_t words = 4096 + 1;                       // 16-byte words per block
  std::vector<std::vector<uint4>> sent(R, std::vector<uint4>(R * words));
  std::vector<const uint4*> send(R);
  std::vector<uint4*> recv(R);
  for (int r = 0; r < R; ++r) {
    for (size_t i = 0; i < sent[r].size(); ++i)          // word = (src, index)
      sent[r][i] = make_uint4(r, (uint32_t)i, 0xabcd, 0);
    send[r] = harness::to_device(sent[r]);
    CHECK(cudaMalloc(&recv[r], R * words * sizeof(uint4)));
  }
  const uint4* const* table = harness::device_table(send);
  harness::Sync sync(R, (size_t)GRID * 2 * R, GRID, sanitize);
  auto streams = harness::streams(R);
  auto a2a = [&] {
    for (int r = 0; r < R; ++r)
      all_to_all<R><<<GRID, THREADS, 0, streams[r]>>>(table, recv[r], sync.flag_table,
                                                      sync.calls[r], r, words);
    for (auto s : streams) CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGetLastError());
  };
  a2a();
  double wrong = 0;
  for (int d = 0; d < R && !sanitize; ++d) {
    std::vector<uint4> got = harness::to_host(recv[d], R * words);
    for (int s = 0; s < R; ++s)
      for (size_t i = 0; i < words; ++i) {     // recv[d][s] = send[s][d]
        const uint4 g = got[s * words + i], w = sent[s][d * words + i];
        wrong += (g.x != w.x || g.y != w.y || g.z != w.z);
      }
  }
  const double us = sanitize ? 0 : harness::time_us(a2a);
  harness::report("q20 all_to_all (8 ranks, 64 KiB blocks; wrong words)", wrong, 0, us);
  return harness::finish();
}
