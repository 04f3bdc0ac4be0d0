#!/usr/bin/env python3
"""e2_fraction.py — the baseline for mls's exact path (sweeps up to 4096 points, every non-sweep
value): e2_python.py's formulas on fractions.Fraction, as mls evaluates them exactly (every
literal an exact decimal; sqrt, and what is computed from it, in binary64). A separate file so
that e2_python.py stays the plain float program it is compared as.

usage: e2_fraction.py MAX_GPUS
prints: points, checksum (every cell of every row in column order, each cell as a binary64),
CPU seconds of the loop (time.process_time)
"""
import math
import sys
import time
from fractions import Fraction as F

P, O, L, d, heads, S, bpp = F("70.6e9"), F("141.2e9"), F(80), F(8192), F(64), F(2048), F(2)
peak, hbm, hbm_bw, pcie, dispatch = F("989e12"), F(80) * F(1073741824), F("3.35e12"), F("64e9"), F("0.01e-3")
nvlink, nvlink_alpha, ib, ib_alpha, G = F("450e9"), F("500e-9"), F("50e9"), F("5e-6"), F(8)
job = 30 * F(86400)


def ring(m, n, bw, alpha):
    return 2 * (n - 1) / n * m / bw + 2 * (n - 1) * alpha


def e2(gpus, tp, batch):
    dp = gpus / tp
    b = max(F(1), F(math.floor(batch / dp)))
    weights = P * bpp
    activations = L * (34 * S * b * d + 5 * heads * S * S * b) * bpp / 2
    memory = P * bpp + P * bpp + P * 12 + activations
    bw = hbm_bw if memory <= hbm else min(hbm_bw, pcie)
    t_compute = O * 3 * b / (peak * F("0.5"))
    t_memory = weights * (1 + F("0.1") * b) / bw
    node = max(t_compute, t_memory) + dispatch + L * F("0.01e-3") * 3
    grad = P * bpp / tp
    if dp > G:
        rs = (G - 1) / G * grad / nvlink + (G - 1) * nvlink_alpha
        dp_comm = rs + ring(grad / G, F(math.ceil(dp / G)), ib, ib_alpha) + rs
    else:
        dp_comm = ring(grad, dp, nvlink, nvlink_alpha)
    tp_comm = L * ring(2 * b * S * d * bpp, tp, nvlink, nvlink_alpha)
    step = node + dp_comm + tp_comm
    efficiency = node / step
    throughput = gpus * b / step
    ckpt_write = P * 14 / min(F("7e9") * (gpus / G), F("500e9"))
    mtbf = F(3600) / (8 / F(50000) + 8 / F(150000) + 2 / F(100000)) / (gpus / G)
    tau = math.sqrt(2 * 60 * mtbf)  # a float from here on, as in mls
    ratio = max(0.0, 1 - 60 / tau - 300 / mtbf)
    goodput = 1 - (1 - ratio) * job / job
    kwh = F(700) * gpus * job / F("3.6e6") * F("1.12")
    capex_total = F(25000) * gpus
    tco = capex_total / (3 * 365 * F(86400)) * job + kwh * F("0.12") + capex_total * F("0.05") * job / (365 * F(86400))
    return step, efficiency, throughput, ckpt_write, goodput, tco


def main():
    max_gpus = int(sys.argv[1])
    tps = [F(1), F(2), F(4), F(8)]
    batches = [F(512), F(1024), F(2048), F(4096), F(8192), F(16384), F(32768), F(65536)]
    acc = 0.0
    points = 0
    t0 = time.process_time()
    for gi in range(max_gpus // 8):
        gpus = F(8 * (gi + 1))
        for tp in tps:
            for batch in batches:
                step, eff, thr, ck, good, tco = e2(gpus, tp, batch)
                for x in (gpus, tp, batch, step, eff, thr, ck, good, tco):
                    acc += float(x)
                points += 1
    t1 = time.process_time()
    print(points, repr(acc), t1 - t0)


if __name__ == "__main__":
    main()
