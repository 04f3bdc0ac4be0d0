#!/usr/bin/env python3
"""check_serving_conventions.py — every serving convention's choices give the numbers their formulas say.

The serving counterpart of check_conventions.py (same rules, same checker): each line of CASES
names a convention, the probe tests/conventions/serving_probe.mls, a result it shows, and for each
choice the expected value in the result's shown unit, computed here from the formulas of
reference/mlsysim-models.md §3.8-3.13 (study choices) and of the stdlib's documented alternatives.
A case fails when a value is off by more than 1e-9 relative, when two choices agree (the probe
would not exercise the convention) or when the result does not list the convention.

static_batch = simulated is checked against kv_sim(), a Python re-implementation of the
allocation simulation (interpreter/runtime/kv_sim.cpp), written from its specification in
stdlib/kv_cache.mls: same generator, same lengths, same allocators; a second implementation
that must agree with the first to the last request.

usage: check_serving_conventions.py MLS [CONVENTION ...]   (default: every convention in CASES)
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_conventions as cc  # noqa: E402  (the probe runner and checker are shared)

# ---- the study's serving formulas, in plain Python (seconds, bytes, FLOP) ----
PEAK, ETA, BW, DISPATCH, TAX, TDP = 989e12, 0.5, 3.35e12, 0.01e-3, 0.01e-3, 700.0
P8, L8, H8, KV8, HD8 = 8.03e9, 32, 32, 8, 128
W8 = P8 * 2
P_GPT2, L_GPT2, H_GPT2, HD_GPT2 = 1.5e9, 48, 25, 64


def kv(layers, kv_heads, head_dim, s, b=1, bpp=2):
    return 2 * layers * kv_heads * head_dim * s * b * bpp


def kv8(s, b=1):
    return kv(L8, KV8, HD8, s, b)


ATT8 = 4 * L8 * H8 * HD8  # attention FLOPs per (query, key) pair, all layers


def prefill_flops8(first, last, causal):
    keys = (last * (last + 1) - first * (first + 1)) / 2 if causal else (last - first) * last
    return 2 * P8 * (last - first) + ATT8 * keys


def decode8(b, s, roofline, tokens=1):
    """(time, flops) of one decode step; hbm_stream carries the layer tax only."""
    flops = b * tokens * (2 * P8 + ATT8 * s)
    mem = (W8 + kv8(s, b)) / BW
    if roofline:
        return max(flops / (PEAK * ETA), mem) + DISPATCH + L8 * TAX, flops
    return mem + L8 * TAX, flops


ms = 1e3
ITL_512_HBM = decode8(512, 512, False)[0]
ITL_512_ROOF = decode8(512, 512, True)[0]
TTFT_FULL = prefill_flops8(0, 2048, False) / (PEAK * ETA) + DISPATCH
TTFT_CAUSAL = prefill_flops8(0, 2048, True) / (PEAK * ETA) + DISPATCH
CACHED_COMPUTE = prefill_flops8(2040, 2048, False) / (PEAK * ETA)
TTFT_CACHED_COMPUTE_ONLY = CACHED_COMPUTE + DISPATCH
TTFT_CACHED_ROOFLINE = max(CACHED_COMPUTE, (W8 + kv8(2048)) / BW) + DISPATCH + L8 * TAX

# Reasoning, K = 8 steps of 50 tokens on a 2048-token prompt (study: prefill compute only).
TOKENS = 400
ITL_2048, DECODE_FLOPS = decode8(1, 2048, False)
TOTAL_FIXED = TTFT_FULL + TOKENS * ITL_2048
ITL_GROWING = decode8(1, 2048 + (TOKENS - 1) / 2, False)[0]
TOTAL_GROWING = TTFT_FULL + TOKENS * ITL_GROWING
U_PREFILL = prefill_flops8(0, 2048, False) / TTFT_FULL / PEAK
U_DECODE = DECODE_FLOPS / ITL_2048 / PEAK
ENERGY_PROP = TDP * (0.3 + 0.7 * U_PREFILL) * TTFT_FULL + TDP * (0.3 + 0.7 * U_DECODE) * TOKENS * ITL_2048

SPEC_MEM = W8 + kv8(2048) + 2 * P_GPT2
GPT2_KV = kv(L_GPT2, H_GPT2, HD_GPT2, 2048)


# ---- the allocation simulation, re-implemented ----

MASK = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.s = seed & MASK

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & MASK
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def uniform(self):
        return (self.next() >> 11) * 2.0 ** -53


def lognormal_tokens(rng, median, sigma):
    u1 = 1.0 - rng.uniform()
    u2 = rng.uniform()
    z = math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)
    x = min(median * math.exp(sigma * z), 1e12)
    r = math.floor(x)
    if x - r >= 0.5:  # llround: halves away from zero
        r += 1
    return max(1, int(r))


def kv_sim(budget, requests, seed, prompt_median, output_median, sigma, max_new, max_seq, page, prefix, paged, skip=False, share=False):
    """Mean running requests over the steps with requests waiting (else over all steps)."""
    unit = page if paged else 1
    total_pages = budget // unit
    shared_tok = prefix // unit * unit if paged and share else 0
    shared_pages = shared_tok // unit
    own_pages = lambda tokens: -(-(tokens - shared_tok) // unit)  # noqa: E731

    rng = SplitMix64(seed)
    reqs, waiting = [], []
    for i in range(requests):
        own = lognormal_tokens(rng, prompt_median, sigma)
        gen = min(lognormal_tokens(rng, output_median, sigma), max_new)
        prompt = min(prefix + own, max_seq - 1)
        length = min(prompt + gen, max_seq)
        reserve = min(prompt + max_new, max_seq)
        reqs.append({"cur": prompt, "len": length, "res": reserve, "pages": 0, "addr": 0, "on": False})
        peak = own_pages(length) + shared_pages if paged else reserve
        if peak <= (total_pages if paged else budget):
            waiting.append(i)

    holes = [[0, budget]]  # static: address-ordered free list
    state = {"free_pages": total_pages, "sharers": 0, "allocated": 0}
    running = []

    def admit_one(i):
        r = reqs[i]
        if paged:
            need = own_pages(r["cur"] + 1) + (shared_pages if state["sharers"] == 0 else 0)
            if need > state["free_pages"]:
                return False
            state["free_pages"] -= need
            r["pages"] = own_pages(r["cur"] + 1)
            if shared_tok > 0:
                state["sharers"] += 1
        else:
            for h in holes:
                if h[1] >= r["res"]:
                    r["addr"] = h[0]
                    h[0] += r["res"]
                    h[1] -= r["res"]
                    if h[1] == 0:
                        holes.remove(h)
                    break
            else:
                return False
            state["allocated"] += r["res"]
        r["on"] = True
        running.append(i)
        return True

    def release_static(r):
        holes.append([r["addr"], r["res"]])
        holes.sort()
        merged = []
        for h in holes:
            if merged and merged[-1][0] + merged[-1][1] == h[0]:
                merged[-1][1] += h[1]
            else:
                merged.append(list(h))
        holes[:] = merged
        state["allocated"] -= r["res"]

    def drop_pages(r):
        state["free_pages"] += r["pages"]
        r["pages"] = 0
        if shared_tok > 0:
            state["sharers"] -= 1
            if state["sharers"] == 0:
                state["free_pages"] += shared_pages

    sums = {"sat": [0, 0], "busy": [0, 0]}  # [steps, running]
    while waiting or running:
        kept = []
        while waiting:
            i = waiting.pop(0)
            if admit_one(i):
                continue
            kept.append(i)
            if not skip:
                break
        waiting[:0] = kept
        for key in ("busy",) + (("sat",) if waiting else ()):
            sums[key][0] += 1
            sums[key][1] += len(running)
        for k in range(len(running)):
            r = reqs[running[k]]
            if not r["on"]:
                continue
            if paged and own_pages(r["cur"] + 1) > r["pages"]:
                v = len(running)
                while state["free_pages"] == 0 and v > k:
                    v -= 1
                    victim = reqs[running[v]]
                    if victim["on"]:
                        drop_pages(victim)
                        victim["on"] = False
                        waiting.insert(0, running[v])
                if not r["on"]:
                    continue
                state["free_pages"] -= 1
                r["pages"] += 1
            r["cur"] += 1
        running[:] = [i for i in running if reqs[i]["on"]]
        still = []
        for i in running:
            r = reqs[i]
            if r["cur"] < r["len"]:
                still.append(i)
                continue
            r["on"] = False
            if paged:
                drop_pages(r)
            else:
                release_static(r)
        running[:] = still
    steps, total = sums["sat"] if sums["sat"][0] > 0 else sums["busy"]
    return total / steps


# static_batch probe: Llama3_8B on a 24 GiB H100, kv_trace with 400 requests, max_seq 2048, page 16.
BUDGET_24 = int((24 * 2 ** 30 - W8) // kv8(1))
TRACE = dict(requests=400, seed=1, prompt_median=256, output_median=128, sigma=1.0, max_new=512, max_seq=2048, page=16, prefix=0)
SIM_RATIO = kv_sim(BUDGET_24, paged=False, **TRACE) / kv_sim(BUDGET_24, paged=True, **TRACE)

# convention -> (probe file, result name, {choice: expected value in the shown unit})
CASES = {
    "decode_pricing": ("serving_probe.mls", "itl_b512_ms", {"hbm_stream": ITL_512_HBM * ms, "roofline": ITL_512_ROOF * ms}),
    "prefill_attention": ("serving_probe.mls", "ttft_ms", {"full_context": TTFT_FULL * ms, "causal": TTFT_CAUSAL * ms}),
    "prefill_pricing": ("serving_probe.mls", "ttft_cached_ms", {"compute_only": TTFT_CACHED_COMPUTE_ONLY * ms, "roofline": TTFT_CACHED_ROOFLINE * ms}),
    "query_energy": ("serving_probe.mls", "energy_j", {"full_tdp": TDP * TOTAL_FIXED, "proportional": ENERGY_PROP}),
    "reasoning_context": ("serving_probe.mls", "total_s", {"fixed": TOTAL_FIXED, "growing": TOTAL_GROWING}),
    "draft_kv_memory": ("serving_probe.mls", "spec_memory_gb", {"uncounted": SPEC_MEM / 1e9, "counted": (SPEC_MEM + GPT2_KV) / 1e9}),
    "data_missing_path": ("serving_probe.mls", "a100_supply_gb_s", {"zero": 0.0, "ignore": 32.0}),
    "static_batch": ("serving_probe.mls", "static_ratio", {"fixed_0_6": 0.6, "simulated": SIM_RATIO}),
}

if __name__ == "__main__":
    cc.CASES = CASES
    cc.main()
