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

// The grid's per-gpus and per-(gpus, tp) quantities, which the hoisted variant computes once.
struct E2Gpus {
  double gpus, ckpt_write, goodput, tco;
};
struct E2Tp {
  double tp, dp, dp_comm;
};

// Llama-3-70B, H100 (DGX: 8 per node), InfiniBand NDR, fp16, efficiency 0.5, seq 2048.
inline constexpr double P = 70.6e9, O = 141.2e9, L = 80, d = 8192, heads = 64, S = 2048, bpp = 2;
inline constexpr double peak = 989e12, hbm = 80.0 * 1073741824.0, hbm_bw = 3.35e12, pcie = 64e9, dispatch = 0.01e-3;
inline constexpr double nvlink = 450e9, nvlink_alpha = 500e-9, ib = 50e9, ib_alpha = 5e-6, G = 8;
inline constexpr double job = 30 * 86400.0;

inline E2Gpus e2_gpus(double gpus) {
  E2Gpus g{gpus, 0, 0, 0};
  // Checkpoint: Adam 14 B/param, one 7 GB/s writer per node, 500 GB/s filesystem cap.
  g.ckpt_write = P * 14 / std::min(7e9 * (gpus / G), 500e9);
  // Reliability: node-series MTBF, C = 60 s, R = 300 s, goodput ledger.
  const double mtbf = 3600.0 / (8 / 50000.0 + 8 / 150000.0 + 2 / 100000.0) / (gpus / G);
  const double tau = std::sqrt(2 * 60.0 * mtbf);
  const double ratio = std::max(0.0, 1 - 60.0 / tau - 300.0 / mtbf);
  g.goodput = 1 - (1 - ratio) * job / job;
  // Economics: $25k per GPU over 3 years, 5 % maintenance, 700 W at PUE 1.12, $0.12/kWh.
  const double kwh = 700.0 * gpus * job / 3.6e6 * 1.12;
  const double capex_total = 25000.0 * gpus;
  g.tco = capex_total / (3 * 365 * 86400.0) * job + kwh * 0.12 + capex_total * 0.05 * job / (365 * 86400.0);
  return g;
}

inline E2Tp e2_tp(double gpus, double tp) {
  const double dp = gpus / tp;
  const double grad = P * bpp / tp;
  double dp_comm = 0;
  if (dp > G) {
    const double rs = (G - 1) / G * grad / nvlink + (G - 1) * nvlink_alpha;
    dp_comm = rs + ring(grad / G, std::ceil(dp / G), ib, ib_alpha) + rs;
  } else {
    dp_comm = ring(grad, dp, nvlink, nvlink_alpha);
  }
  return {tp, dp, dp_comm};
}

inline E2Point e2_point(const E2Gpus& g, const E2Tp& t, double batch) {
  // Distributed step (batch global, full-model compute, one ring of 2x activations per layer).
  const double b = std::max(1.0, std::floor(batch / t.dp));
  const double weights = P * bpp;
  const double activations = L * (34 * S * b * d + 5 * heads * S * S * b) * bpp / 2;
  const double memory = P * bpp + P * bpp + P * 12 + activations;
  const double bw = memory <= hbm ? hbm_bw : std::min(hbm_bw, pcie);
  const double t_compute = O * 3 * b / (peak * 0.5);
  const double t_memory = weights * (1 + 0.1 * b) / bw;
  const double node = std::max(t_compute, t_memory) + dispatch + L * 0.01e-3 * 3;
  const double tp_comm = L * ring(2 * b * S * d * bpp, t.tp, nvlink, nvlink_alpha);
  E2Point out{};
  out.step = node + t.dp_comm + tp_comm;
  out.efficiency = node / out.step;
  out.throughput = g.gpus * b / out.step;
  out.ckpt_write = g.ckpt_write;
  out.goodput = g.goodput;
  out.tco = g.tco;
  return out;
}

// A value the compiler must treat as unknown, so the plain variant's per-point work is not hoisted
// out of its loops behind our back (the hoisted variant does that on purpose).
inline double opaque(double x) {
  asm volatile("" : "+x"(x));
  return x;
}

// One point from scratch (the plain variant); the same operations in the same order.
inline E2Point e2_native(double gpus, double tp, double batch) {
  return e2_point(e2_gpus(gpus), e2_tp(gpus, tp), batch);
}

}  // namespace mls::bench
