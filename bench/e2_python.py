#!/usr/bin/env python3
"""e2_python.py — the bench's plain-Python baseline: the E2 point of e2_native.hpp (distributed
step, checkpoint, reliability goodput, economics for Llama-3-70B on DGX H100) written in plain
CPython (floats, math, no numpy), over the same grid in the same order.

usage: e2_python.py MAX_GPUS
prints: points, checksum (repr, summed as the bench sums: every cell of every row in column
order), CPU seconds of the loop (time.process_time)
"""
import math
import sys
import time

P, O, L, d, heads, S, bpp = 70.6e9, 141.2e9, 80.0, 8192.0, 64.0, 2048.0, 2.0
peak, hbm, hbm_bw, pcie, dispatch = 989e12, 80.0 * 1073741824.0, 3.35e12, 64e9, 0.01e-3
nvlink, nvlink_alpha, ib, ib_alpha, G = 450e9, 500e-9, 50e9, 5e-6, 8.0
job = 30 * 86400.0


def ring(m, n, bw, alpha):
    return 2 * (n - 1) / n * m / bw + 2 * (n - 1) * alpha


def e2(gpus, tp, batch):
    dp = gpus / tp
    b = max(1.0, math.floor(batch / dp))
    weights = P * bpp
    activations = L * (34 * S * b * d + 5 * heads * S * S * b) * bpp / 2
    memory = P * bpp + P * bpp + P * 12 + activations
    bw = hbm_bw if memory <= hbm else min(hbm_bw, pcie)
    t_compute = O * 3 * b / (peak * 0.5)
    t_memory = weights * (1 + 0.1 * b) / bw
    node = max(t_compute, t_memory) + dispatch + L * 0.01e-3 * 3
    grad = P * bpp / tp
    if dp > G:
        rs = (G - 1) / G * grad / nvlink + (G - 1) * nvlink_alpha
        dp_comm = rs + ring(grad / G, math.ceil(dp / G), ib, ib_alpha) + rs
    else:
        dp_comm = ring(grad, dp, nvlink, nvlink_alpha)
    tp_comm = L * ring(2 * b * S * d * bpp, tp, nvlink, nvlink_alpha)
    step = node + dp_comm + tp_comm
    efficiency = node / step
    throughput = gpus * b / step
    ckpt_write = P * 14 / min(7e9 * (gpus / G), 500e9)
    mtbf = 3600.0 / (8 / 50000.0 + 8 / 150000.0 + 2 / 100000.0) / (gpus / G)
    tau = math.sqrt(2 * 60.0 * mtbf)
    ratio = max(0.0, 1 - 60.0 / tau - 300.0 / mtbf)
    goodput = 1 - (1 - ratio) * job / job
    kwh = 700.0 * gpus * job / 3.6e6 * 1.12
    capex_total = 25000.0 * gpus
    tco = capex_total / (3 * 365 * 86400.0) * job + kwh * 0.12 + capex_total * 0.05 * job / (365 * 86400.0)
    return step, efficiency, throughput, ckpt_write, goodput, tco


def main():
    max_gpus = int(sys.argv[1])
    tps = [1.0, 2.0, 4.0, 8.0]
    batches = [512.0, 1024.0, 2048.0, 4096.0, 8192.0, 16384.0, 32768.0, 65536.0]
    acc = 0.0
    points = 0
    t0 = time.process_time()
    for gi in range(max_gpus // 8):
        gpus = 8.0 * (gi + 1)
        for tp in tps:
            for batch in batches:
                step, eff, thr, ck, good, tco = e2(gpus, tp, batch)
                for x in (gpus, tp, batch, step, eff, thr, ck, good, tco):
                    acc += x
                points += 1
    t1 = time.process_time()
    print(points, repr(acc), t1 - t0)


if __name__ == "__main__":
    main()
