// Harness for q26's h2d_pipeline: dst = 2 * src through pinned, double-buffered copies.
#include "q26_scale.cu"  // first: the block must compile on its own includes
#include "harness.cuh"

int main() {
  const size_t total = (64u << 20) + 7;              // 256 MB of fp32 and an odd tail
  const std::vector<float> src = harness::random_vector(total, 26);
  std::vector<float> dst(total, 0.f);
  for (size_t chunk : {(size_t)1 << 22, (size_t)1 << 24}) {
    const double us = harness::time_us([&] { h2d_pipeline(src.data(), dst.data(), total, chunk); }, 3);
    double error = 0;
    for (size_t i = 0; i < total; ++i) error = std::max(error, (double)std::fabs(dst[i] - 2 * src[i]));
    char name[64];
    std::snprintf(name, sizeof name, "q26 h2d_pipeline, chunk %zu MB", chunk * 4 >> 20);
    harness::report(name, error, 0, us);
  }
  return harness::finish();
}
