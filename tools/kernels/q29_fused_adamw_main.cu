// Harness for q29's fused_adamw: 64M + 3 parameters, fp32 and bf16 gradients, 3 steps.
#include "q29_fused_adamw.cu"  // first: the block must compile on its own includes
#include "harness.cuh"

template <typename G>
void run(const char* name, bool bf16_grad) {
  const int64_t n = (64 << 20) + 3;                       // a tail of 3
  std::vector<float> p = harness::random_vector(n, 291), m(n, 0.f), v(n, 0.f);
  float* p_dev = harness::to_device(p);
  float* m_dev = harness::to_device(m);
  float* v_dev = harness::to_device(v);
  __nv_bfloat16* p16;
  CHECK(cudaMalloc(&p16, n * sizeof(__nv_bfloat16)));
  AdamW h{1e-3f, 0.9f, 0.95f, 1e-8f, 0.1f, 0};
  AdamW* h_dev = harness::to_device(std::vector<AdamW>{h});
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int grid = (int)std::min<int64_t>((n + 1023) / 1024, 8 * sms);
  double micros = 0;
  for (int step = 1; step <= 3; ++step) {
    const std::vector<float> g = harness::random_vector(n, 300 + step, bf16_grad);
    std::vector<G> g_host(n);
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (sizeof(G) == 2) g_host[i] = __float2bfloat16_rn(g[i]); else g_host[i] = g[i];
    }
    const G* g_dev = harness::to_device(g_host);
    h.step = step;
    CHECK(cudaMemcpy(h_dev, &h, sizeof h, cudaMemcpyHostToDevice));
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    CHECK(cudaEventRecord(a));
    fused_adamw<G><<<grid, 256>>>(p_dev, m_dev, v_dev, g_dev, p16, h_dev, n);
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    micros = ms * 1000;
    for (int64_t i = 0; i < n; ++i) {                    // CPU AdamW, in double
      const double bc1 = 1 - std::pow(0.9, step), bc2 = 1 - std::pow(0.95, step);
      p[i] *= 1 - 1e-3 * 0.1;
      m[i] = 0.9 * m[i] + 0.1 * g[i];
      v[i] = 0.95 * v[i] + 0.05 * (double)g[i] * g[i];
      p[i] -= 1e-3 / bc1 * m[i] / (std::sqrt(v[i] / bc2) + 1e-8);
    }
    CHECK(cudaFree((void*)g_dev));
  }
  const std::vector<float> got = harness::to_host(p_dev, n);
  const std::vector<float> got16 = harness::from_bf16(harness::to_host(p16, n));
  double error = 0, error16 = 0;
  for (int64_t i = 0; i < n; ++i) {
    error = std::max(error, (double)std::fabs(got[i] - p[i]));
    error16 = std::max(error16, (double)std::fabs(got16[i] - harness::bf16_round(got[i])));
  }
  harness::report(name, error, 1e-5, micros);
  harness::report("  its bf16 copy == round(p)", error16, 0, 0);
}

int main() {
  run<float>("q29 fused_adamw fp32 grads (64M + 3), 3 steps", false);
  run<__nv_bfloat16>("q29 fused_adamw bf16 grads (64M + 3), 3 steps", true);
  return harness::finish();
}
