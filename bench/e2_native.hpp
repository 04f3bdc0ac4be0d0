// e2_native.hpp — the benchmark's baseline: the E2 point (distributed step, checkpoint,
// reliability goodput, economics) hand-written in C++ from the same formulas as the stdlib
// under preset mlsysim (reference/mlsysim-models.md §3.3–3.7), for Llama-3-70B on DGX H100.
#pragma once

#include <algorithm>
#include <cmath>

namespace mls::bench {

struct E2Point {
  double step, efficiency, throughput, ckpt_write, goodput, tco;
};

// Ring all-reduce: 2(n-1)/n M/bw + 2(n-1) alpha.
inline double ring(double m, double n, double bw, double alpha) {
  return 2 * (n - 1) / n * m / bw + 2 * (n - 1) * alpha;
}

inline E2Point e2_native(double gpus, double tp, double batch) {
  // Llama-3-70B, H100 (DGX: 8 per node), InfiniBand NDR, fp16, efficiency 0.5, seq 2048.
  constexpr double P = 70.6e9, O = 141.2e9, L = 80, d = 8192, heads = 64, S = 2048, bpp = 2;
  constexpr double peak = 989e12, hbm = 80.0 * 1073741824.0, hbm_bw = 3.35e12, pcie = 64e9, dispatch = 0.01e-3;
  constexpr double nvlink = 450e9, nvlink_alpha = 500e-9, ib = 50e9, ib_alpha = 5e-6, G = 8;
  constexpr double job = 30 * 86400.0;
  E2Point out{};
  // Distributed step (batch global, full-model compute, one ring of 2x activations per layer).
  const double dp = gpus / tp;
  const double b = std::max(1.0, std::floor(batch / dp));
  const double weights = P * bpp;
  const double activations = L * (34 * S * b * d + 5 * heads * S * S * b) * bpp / 2;
  const double memory = P * bpp + P * bpp + P * 12 + activations;
  const double bw = memory <= hbm ? hbm_bw : std::min(hbm_bw, pcie);
  const double t_compute = O * 3 * b / (peak * 0.5);
  const double t_memory = weights * (1 + 0.1 * b) / bw;
  const double node = std::max(t_compute, t_memory) + dispatch + L * 0.01e-3 * 3;
  const double grad = P * bpp / tp;
  double dp_comm = 0;
  if (dp > G) {
    const double rs = (G - 1) / G * grad / nvlink + (G - 1) * nvlink_alpha;
    dp_comm = rs + ring(grad / G, std::ceil(dp / G), ib, ib_alpha) + rs;
  } else {
    dp_comm = ring(grad, dp, nvlink, nvlink_alpha);
  }
  const double tp_comm = L * ring(2 * b * S * d * bpp, tp, nvlink, nvlink_alpha);
  out.step = node + dp_comm + tp_comm;
  out.efficiency = node / out.step;
  out.throughput = gpus * b / out.step;
  // Checkpoint: Adam 14 B/param, one 7 GB/s writer per node, 500 GB/s filesystem cap.
  out.ckpt_write = P * 14 / std::min(7e9 * (gpus / G), 500e9);
  // Reliability: node-series MTBF, C = 60 s, R = 300 s, goodput ledger.
  const double mtbf = 3600.0 / (8 / 50000.0 + 8 / 150000.0 + 2 / 100000.0) / (gpus / G);
  const double tau = std::sqrt(2 * 60.0 * mtbf);
  const double ratio = std::max(0.0, 1 - 60.0 / tau - 300.0 / mtbf);
  out.goodput = 1 - (1 - ratio) * job / job;
  // Economics: $25k per GPU over 3 years, 5 % maintenance, 700 W at PUE 1.12, $0.12/kWh.
  const double kwh = 700.0 * gpus * job / 3.6e6 * 1.12;
  const double capex_total = 25000.0 * gpus;
  out.tco = capex_total / (3 * 365 * 86400.0) * job + kwh * 0.12 + capex_total * 0.05 * job / (365 * 86400.0);
  return out;
}

}  // namespace mls::bench
