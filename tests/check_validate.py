#!/usr/bin/env python3
"""check_validate.py — `mls validate --format json` keeps its contract: every case has id, family
(training | serving | reliability), source, metric, measured, predicted and error = predicted /
measured - 1, its domain (accelerator, generation, vendor, moe, precision, framework, scale, metric)
and its leave-one-source-out error (equal to its error when no fit read its source); the summary's
medians and maxima are those of the expressible cases; each domain's counts are those of its cases
and it is validated exactly when it has 3 cases from 2 sources; the exit code is 1 exactly when a
case is outside its band; the training set has at least 60 runs from at least 10 sources, every
expressible one fits memory, and its TPU runs come from at least 3 sources (TPU v4 from 3, v5e and
v5p from 2 each) and include an MoE model; a case
that is not expressible says why and has no error; the serving set has at least 35 cases from at
least 5 sources, on B200, GB200, H200, H100, MI300X and MI325X, at least 3 of them MoE models served
with attention data and expert parallelism, and the MoE throughput cases' median |error| is at most
10 % (15 % out of sample); every serving latency case (metric ttft_*, tpot_*)
carries the utilisation it ran at, predicted and as measured (a load over a capacity: positive), and
no other case does. The serving throughput fit is refit without each source (issue 34): a serving
fit case that informs a fitted constant has an out-of-sample error of its own, and a constant that
no case of the other sources informs does not keep its fitted value: with the v1.0 perf overview
left out, fp4_gemm_efficiency takes B200's fp8 share (its `near`); the MoE time has fit cases in two
sources (the TensorRT-LLM DEP page and the DeepSeek-R1 blog), so with the DEP page left out the
blog's cases refit it and that page's cases are not predicted by `--set moe_layer_overhead=0ms`;
the experts' block-scaled shares (NVFP4 on B200, FP8 with 128 x 128 block scales on H200) have
DeepSeek-R1 fit cases in both of those sources, so each is refit from the other.

usage: check_validate.py MLS
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

# Every serving case's prediction under --set (a sweep over the list: the serving simulations alone).
SERVING = """sweep v over c in serving_validation_cases {
  show id = c.id, measured = c.measured, predicted = c.predicted
}
"""


def run_json(mls, text, *args):
    with tempfile.NamedTemporaryFile("w", suffix=".mls", delete=False) as f:
        f.write(text)
    try:
        p = subprocess.run([mls, "run", f.name, "--format", "json", *args], capture_output=True, text=True,
                           timeout=600)
    finally:
        os.unlink(f.name)
    if p.returncode != 0:
        sys.exit("mls run failed: " + p.stderr[:2000])
    return json.loads(p.stdout)


def serving_errors(mls, *sets):
    rows = run_json(mls, SERVING, *sets)["tables"][0]["rows"]
    return {r[0]: r[2] / r[1] - 1 for r in rows}


def check_serving_refit(mls, cases, fits):
    """The serving throughput fit's leave-one-source-out refits (see the module's docstring)."""
    errors = []
    serving = {c["id"]: c for c in cases if c["band_family"] == "serving throughput"}
    names = {n for k in fits if k["family"] == "serving throughput" for n in k["names"]}
    if not {"fp4_gemm_efficiency", "moe_layer_overhead", "fp4_expert_gemm_efficiency",
            "fp8_block_expert_gemm_efficiency"} <= names:
        errors.append("the serving throughput family declares no fit of fp4_gemm_efficiency, moe_layer_overhead, "
                      "fp4_expert_gemm_efficiency and fp8_block_expert_gemm_efficiency")
    informing = [c for c in serving.values() if not c["held_out"] and
                 (c["domain"]["precision"] == "fp4" or c["domain"]["moe"])]
    if len(informing) < 4:
        errors.append("fewer than 4 serving fit cases on fp4 or MoE (%d)" % len(informing))
    for c in informing:
        if abs(c["loso_error"] - c["error"]) < 1e-3:
            errors.append("%s: a fit case of the serving calibration, yet its out-of-sample error %r is its error"
                          % (c["id"], c["loso_error"]))
    # Without the DEP page the blog's MoE fit cases inform moe_layer_overhead: it is refit on them,
    # not 0 (its null, what it took while the DEP page was the only source of MoE fit cases).
    at_null = serving_errors(mls, "--set", "moe_layer_overhead=0ms")
    if not any(c["source_key"] == "trtllmblog" and c["domain"]["moe"] for c in informing):
        errors.append("no MoE fit case outside the TensorRT-LLM DEP page")
    for c in serving.values():
        if c["source_key"] == "trtllmdep" and abs(c["loso_error"] - at_null[c["id"]]) < 0.05:
            errors.append("%s: out of sample %+.4f, as with moe_layer_overhead at its null (%+.4f)"
                          % (c["id"], c["loso_error"], at_null[c["id"]]))
    # Each block-scaled expert share is informed by DeepSeek-R1 fit cases of both MoE sources.
    for acc in ("B200 SXM", "H200 SXM"):
        keys = {c["source_key"] for c in informing
                if c["id"].endswith("deepseek_r1") and c["domain"]["accelerator"] == acc}
        if keys != {"trtllmdep", "trtllmblog"}:
            errors.append("DeepSeek-R1 fit cases on %s from %s (need trtllmdep and trtllmblog)" % (acc, sorted(keys)))
    b200_fp8 = run_json(mls, "show s = B200.matmul_efficiency.fp8\n")["results"][0]["value"]
    at_near = serving_errors(mls, "--set", "fp4_gemm_efficiency=%r" % b200_fp8)
    own = [c for c in serving.values() if c["source_key"] == "trtllm10"]
    if not any(c["domain"]["precision"] == "fp4" or c["domain"]["moe"] for c in own):
        errors.append("no serving case of source trtllm10 on fp4 or MoE")
    for c in own:
        # The other constants, refit from their optimum, stay near it: the errors move by under 0.5 points.
        if abs(c["loso_error"] - at_near[c["id"]]) > 0.005:
            errors.append("%s: out of sample %+.4f, but with its source left out fp4_gemm_efficiency = B200's fp8 "
                          "share (its near) predicts %+.4f" % (c["id"], c["loso_error"], at_near[c["id"]]))
    return errors


def main():
    mls = sys.argv[1]
    p = subprocess.run([mls, "validate", "--format", "json"], capture_output=True, text=True, timeout=600)
    doc = json.loads(p.stdout)
    errors = []
    cases = doc["cases"]
    for c in cases:
        for k in ("id", "family", "source", "metric", "measured", "predicted", "error", "band", "within_band", "held_out",
                  "domain", "loso_error", "expressible"):
            if k not in c:
                errors.append("%s: no field %s" % (c.get("id"), k))
        for k in ("accelerator", "generation", "vendor", "moe", "precision", "framework", "scale", "metric"):
            if k not in c.get("domain", {}):
                errors.append("%s: its domain has no %s" % (c.get("id"), k))
        if not c["expressible"] and (not c["reason"] or c["error"] != 0):
            errors.append("%s: not expressible without a reason, or with an error" % c["id"])
        if c["family"] not in ("training", "serving", "reliability"):
            errors.append("%s: family %s" % (c["id"], c["family"]))
        if abs(c["error"] - (c["predicted"] / c["measured"] - 1)) > 1e-12:
            errors.append("%s: error is not predicted / measured - 1" % c["id"])
        if c["within_band"] != (abs(c["error"]) <= c["band"] + 1e-12 and c["fits"]):
            errors.append("%s: within_band disagrees with error and band" % c["id"])
        latency = c["family"] == "serving" and c["metric"].split("_")[0] in ("ttft", "tpot")
        u = c.get("utilization", "absent")
        if latency and not (isinstance(u, dict) and u["predicted"] > 0 and u["measured"] > 0):
            errors.append("%s: a latency case without its utilisation (predicted and measured)" % c["id"])
        if not latency and u is not None:
            errors.append("%s: utilization should be null, got %r" % (c["id"], u))
    training = [c for c in cases if c["family"] == "training"]
    sources = {c["source_key"] for c in training}
    if len(training) < 60 or len(sources) < 10:
        errors.append("training set: %d runs from %d sources (need 60 and 10)" % (len(training), len(sources)))
    # Every published training configuration trained, so each one mls can express fits memory
    # (issue 34); and the TPU runs come from more than one source, so leaving one out leaves a TPU run
    # to fit the TPU share on.
    for c in training:
        if c["expressible"] and not c["fits"]:
            errors.append("%s: a published configuration judged not to fit memory" % c["id"])
    tpu_sources = {c["source_key"] for c in training if c["expressible"] and c["domain"]["vendor"] == "Google"}
    if len(tpu_sources) < 3:
        errors.append("TPU training runs from %d source(s) (need 3)" % len(tpu_sources))
    # Each TPU generation with published runs from several sources keeps them (issue 34: TPU v4 from
    # PyTorch/XLA's Llama 2 and GPT-2 posts and AXLearn, v5e and v5p from MaxText and AXLearn), so
    # removing a source fails here before the domain quietly falls back to an extrapolated band.
    for generation, need in (("TPU v4", 3), ("TPU v5e", 2), ("TPU v5p", 2)):
        got = {c["source_key"] for c in training if c["expressible"] and c["domain"]["generation"] == generation}
        if len(got) < need:
            errors.append("%s training runs from %d source(s) (need %d)" % (generation, len(got), need))
    # MoE training on a TPU is measured, not only extrapolated from GPU MoE runs and dense TPU runs
    # (issue 34: AXLearn's Qwen-3 30B-A3B on tpu-v5p-1024, arXiv 2507.05411v3 Table 3).
    tpu_moe = [c["id"] for c in training if c["expressible"] and c["domain"]["vendor"] == "Google" and c["domain"]["moe"]]
    if not tpu_moe:
        errors.append("no expressible MoE training run on a TPU (need 1)")
    # Out of sample: a source none of whose cases the fit reads is never refitted without.
    for key in sources:
        own = [c for c in training if c["source_key"] == key]
        if all(c["held_out"] for c in own):
            for c in own:
                if c["loso_error"] != c["error"]:
                    errors.append("%s: its source is never fitted, yet loso_error %r != error %r"
                                  % (c["id"], c["loso_error"], c["error"]))
    for d in doc["domains"]:
        mine = [c for c in cases if c["expressible"] and c["band_family"] == d["family"] and
                (c["domain"]["text"] == d["domain"])]
        n, k = len(mine), len({c["source_key"] for c in mine})
        if (n, k) != (d["cases"], d["sources"]) or d["validated"] != (n >= 3 and k >= 2):
            errors.append("domain %s / %s: %d cases from %d sources, validated %s; its cases say %d from %d"
                          % (d["family"], d["domain"], d["cases"], d["sources"], d["validated"], n, k))
    serving = [c for c in cases if c["family"] == "serving"]
    serving_sources = {c["source"].split(",")[0] for c in serving}
    if len(serving) < 35 or len(serving_sources) < 5:
        errors.append("serving set: %d cases from %d sources (need 35 and 5)" % (len(serving), len(serving_sources)))
    for acc in ("B200", "GB200", "H200", "H100", "MI300X", "MI325X"):
        if not any(acc in c["system"] for c in serving):
            errors.append("serving set: no case on %s" % acc)
    if sum(1 for c in serving if "DEP" in c["source"] or "EP8" in c["system"]) < 3:
        errors.append("serving set: fewer than 3 MoE cases with attention data and expert parallelism")
    # The MoE serving throughput cases (Qwen3, Llama 4 Maverick, DeepSeek-R1 on H100, H200, B200) come
    # within 10 % at the median, and within 15 % out of sample (issue 34: 20.9 % and 62 % with one
    # fixed time per MoE layer and step fitted on one source, 0 without it; 14.4 % and 20.0 % with
    # the NVFP4 experts' share fitted on one source and FP8 block-scaled experts at the FP8 share).
    moe = [c for c in serving
           if c["domain"]["moe"] and c["metric"].startswith("output_tokens_per_s") and c["expressible"]]
    moe_in = statistics.median([abs(c["error"]) for c in moe]) if moe else 1
    moe_out = statistics.median([abs(c["loso_error"]) for c in moe]) if moe else 1
    if len(moe) < 8 or moe_in > 0.10 or moe_out > 0.15:
        errors.append("serving set: %d MoE throughput cases, median |error| %.1f %%, out of sample %.1f %% (need 8, "
                      "<= 10 %% and <= 15 %%)" % (len(moe), 100 * moe_in, 100 * moe_out))
    for s in doc["summary"]:
        errs = sorted(abs(c["error"]) for c in cases if c["family"] == s["family"] and c["expressible"] and
                      (s["set"] == "all" or (s["set"] == "held out") == c["held_out"]))
        n = len(errs)
        med = statistics.median(errs)
        if n != s["cases"] or abs(med - s["median_abs_error"]) > 1e-12 or abs(errs[-1] - s["max_abs_error"]) > 1e-12:
            errors.append("summary %s/%s does not match its cases" % (s["family"], s["set"]))
    errors += check_serving_refit(mls, cases, doc["fit"])
    want = 0 if all(c["within_band"] for c in cases) else 1
    if p.returncode != want:
        errors.append("exit %d, expected %d" % (p.returncode, want))
    for e in errors:
        print(e)
    print("%d cases, %d training runs from %d sources, %d domains" % (len(cases), len(training), len(sources),
                                                                      len(doc["domains"])))
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
