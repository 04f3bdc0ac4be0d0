#!/usr/bin/env python3
"""check_conventions.py — every convention's alternatives give the numbers their formulas say.

Each line of CASES names a convention, a probe scenario (under preset mlsysim), a result the
probe shows, and for each choice the expected value in the result's shown unit — computed
here, independently of mls, from the formulas of reference/mlsysim-models.md — or ERROR when
that choice must stop with an input error (exit 65). The probe runs once per choice with
`--use CONVENTION=CHOICE`; the check fails if a value is off by more than 1e-9 relative, and
also if two choices give the same number (then the probe does not exercise the convention).

usage: check_conventions.py MLS [CONVENTION ...]      (default: every convention in CASES)
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ERROR = "error"

# ---- the study's formulas, in plain Python (seconds, bytes, FLOP) ----
NVL_BW, NVL_A, IB_BW, IB_A = 450e9, 500e-9, 50e9, 5e-6
P70, O70, L70, D70, A70 = 70.6e9, 141.2e9, 80, 8192, 64
P8, O8, L8, D8 = 8.03e9, 16.06e9, 32, 4096
S, BPP, PCIE, TAX, DISPATCH = 2048, 2, 64e9, 0.01e-3, 0.01e-3
PEAK, ETA, HBM_BW = 989e12, 0.5, 3.35e12


def ring(m, n, bw, a):
    return 0.0 if n <= 1 else 2 * (n - 1) / n * m / bw + 2 * (n - 1) * a


def hier(m, nodes, g, bw_i=NVL_BW, broadcast=False):
    rs = (g - 1) / g * m / bw_i + (g - 1) * NVL_A
    return 2 * rs + ring(m / g, nodes, IB_BW, IB_A) + (ring(m / g, g, bw_i, NVL_A) if broadcast else 0)


def t_node_70(b, shard=1, layers_per_gpu=L70):
    """Offload-path training pass of Llama3_70B (memory-bound at 64 GB/s)."""
    w = P70 * BPP / shard
    return max(3 * O70 * b / shard / (PEAK * ETA), w * (1 + 0.1 * b) / PCIE) + DISPATCH + layers_per_gpu * TAX * 3


def t_step_p1(tp_comm, dp_comm=ring(P70 * BPP / 8, 4, NVL_BW, NVL_A), b=16):
    return t_node_70(b) + tp_comm + dp_comm


ms = 1e3
TP1 = L70 * ring(2 * 16 * S * D70 * BPP, 8, NVL_BW, NVL_A)
TP4 = 4 * L70 * ring(16 * S * D70 * BPP, 8, NVL_BW, NVL_A)
M_G = P70 * BPP / 8
W8 = P8 * BPP
T_MEM8, T_CMP8 = W8 * (1 + 6.4) / HBM_BW, O8 * 64 / (PEAK * ETA)
EP_MSG = 8 * S * D8 * BPP
# train() views: tensor traffic of one pipeline stage (40 of 80 layers), one microbatch of 32;
# EP all-to-alls of 32 MoE layers x 4, top-2 copies of 8 sequences, inside one node (NVLink).
TP_STAGE = 4 * (L70 / 2) * ring(32 * S * D70 * BPP, 8, NVL_BW, NVL_A)
EP_LAYER = 32 * 4 * (0.5 * 2 * EP_MSG / NVL_BW + NVL_A)
# a 2-layer transformer (h 64, 4 heads, vocabulary 100): 2 x 12 h^2 + V h weights per token, 4 L a d_h
# attention FLOPs per context token; causal context (1024 + 1)/2, full 1024
MM2, ATT2 = 2 * 12 * 64 ** 2 + 100 * 64, 4 * 2 * 4 * 16

# Operations (reliability, checkpoints, sustainability, economics): 512 GPUs of DGX H100 for a
# 30-day job, Llama3_70B Adam checkpoint written at 7 GB/s.
H = 3600.0
M512 = 30000 / 7 / 64 * H          # node-series fleet MTBF, s
J = 30 * 24 * H                    # job, s
T_WRITE = 70.6e9 * 14 / 7e9        # 141.2 s
C0, R0 = 60.0, 300.0               # ReliabilityModel defaults
TAU0 = (2 * C0 * M512) ** 0.5      # Young at C = 60 s (preset mlsysim: checkpoint_cost fixed, young)
FAILS = J / M512


# train() through distributed() (compute_sharding = sharded): model FLOPs of one GPU's step, from the
# shape as transformer() derives it: Llama3_70B's registry shape (80 layers, h 8192, 64 heads, 8 KV
# heads, head_dim 128, ffn 28672, SwiGLU, vocabulary 128256), causal attention over (2048 + 1)/2.
def matmul_params(layers, h, heads, kv, dh, ffn, vocab, mats):
    return layers * (2 * h * heads * dh + 2 * h * kv * dh + mats * h * ffn) + vocab * h


SHARDED_TFLOP = 3 * (2 * matmul_params(80, 8192, 64, 8, 128, 28672, 128256, 3) + 4 * 80 * 64 * 128 * (S + 1) / 2) * 64 * S / 32 / 1e12

# Llama 3 405B's interruptions (Table 5) as rates: GPU 268 and network 35 per GPU, NIC 7 per NIC
# (8 per node), host 14 and software 95 per server, over 54 days of 16,384 GPUs in 2048 servers.
_W = 54 * 24.0
MEASURED_NODE_H = 1 / (8 * 268 / (_W * 16384) + 8 * 7 / (_W * 16384) + 8 * 35 / (_W * 16384) + 14 / (_W * 2048) + 95 / (_W * 2048))


def daly(c, m):
    x = c / (2 * m)
    return (2 * c * m) ** 0.5 * (1 + x ** 0.5 / 3 + x / 9) - c if c < 2 * m else m


def crf(r, n):
    return r / (1 - (1 + r) ** -n)


# convention -> (probe file, result name, {choice: expected value in the shown unit, or ERROR})
CASES = {
    "batch": ("compute_probe.mls", "local_batch", {"global": 16, "local": 8}),
    "compute_sharding": ("compute_probe.mls", "node_tflop", {"full_model": 3 * O70 * 16 / 1e12, "sharded": SHARDED_TFLOP}),
    "tp_collectives": ("compute_probe.mls", "tp2_comm_ms", {
        "one_ring_2x": L70 * ring(2 * 32 * S * D70 * BPP, 8, NVL_BW, NVL_A) * ms,
        "four_rings": 4 * L70 * ring(32 * S * D70 * BPP, 8, NVL_BW, NVL_A) * ms,
        "per_stage": TP_STAGE * ms}),
    "attention_count": ("compute_probe.mls", "attn_model_flops", {"causal": 3 * (2 * MM2 + ATT2 * 1025 / 2), "full": 3 * (2 * MM2 + ATT2 * 1024)}),
    "throughput_count": ("compute_probe.mls", "throughput", {"all_ranks": 32 * 16 / t_step_p1(TP1), "global_batch": 4 * 16 / t_step_p1(TP1)}),
    "pipeline_schedule": ("compute_probe.mls", "bubble_ms", {"naive": 0.5 * t_node_70(64) * ms, "one_f_one_b": 1.0 * t_node_70(64) * ms}),
    "intra_node_bw": ("compute_probe.mls", "dp_comm_ms", {"per_direction": ring(M_G, 4, NVL_BW, NVL_A) * ms, "bidirectional": ring(M_G, 4, 2 * NVL_BW, NVL_A) * ms}),
    "dp_placement": ("compute_probe.mls", "dp_comm_ms", {"fill_nodes": ring(M_G, 4, NVL_BW, NVL_A) * ms, "topology": ring(M_G, 4, IB_BW, IB_A) * ms}),
    "dp_node_count": ("compute_probe.mls", "dp12_comm_ms", {"ceil": hier(M_G, 2, 8) * ms, "floor": hier(M_G, 1, 8) * ms}),
    "hierarchical_broadcast": ("compute_probe.mls", "dp1024_comm_ms", {"none": hier(M_G, 16, 8) * ms, "extra_ring": hier(M_G, 16, 8, broadcast=True) * ms}),
    "ep_volume": ("compute_probe.mls", "ep_comm_ms", {"routed": (0.5 * 2 * EP_MSG / IB_BW + IB_A) * ms, "plain": (0.5 * EP_MSG / IB_BW + IB_A) * ms,
                                                      "per_layer": EP_LAYER * ms}),
    "llm_sample": ("compute_probe.mls", "node_tflop", {"token": 3 * O70 * 16 / 1e12, "sequence": 3 * O70 * S * 16 / 1e12}),
    "roofline_combine": ("compute_probe.mls", "infer_ms", {"max": (max(T_MEM8, T_CMP8) + DISPATCH + L8 * TAX) * ms, "sum": (T_MEM8 + T_CMP8 + DISPATCH + L8 * TAX) * ms}),
    "activation_memory": ("compute_probe.mls", "act_gb", {
        "korthikanti": L70 * (34 * S * D70 + 5 * A70 * S * S) * BPP / 2 / 1e9,
        "linear": L70 * 34 * S * D70 * BPP / 1e9,
        "flash": L70 * 34 * S * D70 * BPP / 2 / 1e9}),
    "hfu": ("compute_probe.mls", "hfu_over_mfu", {"ratio_1_1": 1.1, "executed": 1.0, "palm": 4 / 3}),
    "precision_fallback": ("error_probe_fp8.mls", "a100_fp8_tflops", {"dense_peak": 312, "error": ERROR}),
    "parallel_divisibility": ("error_probe_tp3.mls", "dp", {"floor": 2, "strict": ERROR}),
    "unknown_precision": ("error_probe_fp12.mls", "fp12_bytes", {"two_bytes": 2, "error": ERROR}),
    "mtbf_model": ("ops_probe.mls", "mtbf_h", {"node_series": 30000 / 7 / 64, "gpu_only": 50000 / 512, "measured": MEASURED_NODE_H / 64}),
    "checkpoint_interval": ("ops_probe.mls", "interval_h", {"young": (2 * T_WRITE * M512) ** 0.5 / H, "daly": daly(T_WRITE, M512) / H}),
    "checkpoint_cost": ("ops_probe.mls", "checkpoint_cost_s", {"fixed": C0, "derived": T_WRITE}),
    "reliability_ledger": ("ops_probe.mls", "lost_h", {
        "goodput": (C0 / TAU0 + R0 / M512) * J / H,
        "write_plus_rollback": (J / TAU0 * T_WRITE + FAILS * TAU0 / 2) / H,
        "write_rollback_restart": (J / TAU0 * T_WRITE + FAILS * (TAU0 / 2 + R0)) / H}),
    "checkpoint_state": ("ops_probe.mls", "rmsprop_bytes", {"adam_or_weights": 4, "per_optimizer": 2 + 4 + 4}),
    "energy_mfu": ("ops_probe.mls", "device_power_w", {"full_tdp": 700, "sustained": 700 * (0.3 + 0.7 * 0.4)}),
    "energy_scope": ("ops_probe.mls", "node_power_w", {"accelerators": 8 * 700, "node": 10200}),
    "embodied_carbon_charge": ("ops_probe.mls", "embodied_kg", {"explicit_whole": 1000 * 32, "amortized": 1000 * 32 * 30 / (3 * 365)}),
    "capex_amortization": ("ops_probe.mls", "capex_usd", {"straight_line": 1e6 / 3 * 30 / 365, "capital_recovery": 1e6 * crf(0.08, 3) * 30 / 365}),
    "unknown_unit_cost": ("error_probe_unit_cost.mls", "unit_cost_usd", {"zero": 0, "legacy_30k": 30000, "error": ERROR}),
}


def run(mls, probe, conv, choice):
    argv = [mls, "run", os.path.join(HERE, "conventions", probe), "--format", "json", "--use", "%s=%s" % (conv, choice)]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def check(mls, conv):
    probe, result, choices = CASES[conv]
    errors, seen = [], {}
    for choice, want in choices.items():
        rc, out, err = run(mls, probe, conv, choice)
        if want == ERROR:
            if rc != 65:
                errors.append("%s=%s: expected an input error (exit 65), got exit %d" % (conv, choice, rc))
            continue
        if rc != 0:
            errors.append("%s=%s: exit %d\n%s" % (conv, choice, rc, err))
            continue
        doc = json.loads(out)
        if doc["conventions"].get(conv) != choice:
            errors.append("%s=%s: the run reports %s" % (conv, choice, doc["conventions"].get(conv)))
        got = [r for r in doc["results"] if r["name"] == result]
        if len(got) != 1:
            errors.append("%s=%s: %s shows no result %s" % (conv, choice, probe, result))
            continue
        value = got[0]["value"]
        if abs(value - want) > 1e-9 * max(abs(value), abs(want)):
            errors.append("%s=%s: %s = %r, expected %r" % (conv, choice, result, value, want))
        if not any(a["kind"] == "convention" and a["name"] == conv for a in got[0]["assumptions"]):
            errors.append("%s=%s: %s does not list the convention among its assumptions" % (conv, choice, result))
        for other, v in seen.items():
            if v == value:
                errors.append("%s: %s and %s give the same %s = %r" % (conv, other, choice, result, value))
        seen[choice] = value
    if not errors:
        print("%s: %s" % (conv, ", ".join("%s ok" % c for c in choices)))
    return errors


# Conventions with no case here or in check_serving_conventions.py yet. Shrink-only: a convention
# added to the stdlib without a case fails this check (docs/contributing.md), and one of these
# that gets a case must leave the list.
NO_CASE_YET = {"kv_cache_layout", "serving_cost", "serving_scheduler"}
GENERAL_CASES = CASES  # check_serving_conventions.py runs main() with its own CASES instead


def uncovered(mls):
    """Every convention the prelude declares that no CASES line (here or for serving) covers."""
    import check_serving_conventions as serving  # noqa: E402  (imports this module: no cycle at load)
    p = subprocess.run([mls, "run", os.path.join(HERE, "conventions", "compute_probe.mls"), "--format", "json"],
                       capture_output=True, text=True)
    declared = set(json.loads(p.stdout)["conventions"])
    covered = set(GENERAL_CASES) | set(serving.CASES)
    errors = ["%s: a convention with no case in CASES (tests/check_conventions.py or check_serving_conventions.py)"
              % n for n in sorted(declared - covered - NO_CASE_YET)]
    errors += ["%s: has a case now (or is gone): take it off NO_CASE_YET" % n
               for n in sorted(NO_CASE_YET & (covered | (NO_CASE_YET - declared)))]
    return errors


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    mls = os.path.abspath(sys.argv[1])
    names = sys.argv[2:] or list(CASES)
    # Every declared convention has a case: checked once, by this script's own run (ctest conventions).
    errors = [] if sys.argv[2:] or CASES is not GENERAL_CASES else uncovered(mls)
    for n in names:
        if n not in CASES:
            errors.append("%s: no case in CASES" % n)
            continue
        errors += check(mls, n)
    for e in errors:
        print(e)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
