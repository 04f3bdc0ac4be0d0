// serve_sim.hpp — the request-level serving simulation behind the native `serve_sim`: a seeded
// discrete-event simulation of continuous batching on one or more engines (replicas, and the
// pipeline lanes of a replica), with paged KV cache and recompute preemption. Every step is priced
// by the replica's cost coefficients (stdlib/replica.mls); schedulers are conventions
// (stdlib/serving_sim.mls): vLLM-style prefill-first, Sarathi-style chunked prefill with a token
// budget, and static batching.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "native_eval.hpp"
#include "serve_trace.hpp"

namespace mls::servesim {

enum class Policy { vllm, sarathi, static_batch };
enum class Combine { max, sum };  // how compute and memory time of a step combine (roofline_combine)
enum class Lengths { lognormal, exponential };
// What the engines do: the whole request, or one pool of a disaggregated deployment: prefill only
// (the first token, then the KV cache leaves over a link), or decode only (the KV cache arrives
// with the request, its first token already made).
enum class Phase { both, prefill, decode };

// The work one attention group puts into a step: tokens, attention pairs of prefill tokens and of
// decode tokens (MLA decodes with absorbed projections, at another cost per pair), cached tokens read.
struct Load {
  double tokens = 0, pairs = 0, decode_pairs = 0, context = 0;
};

// The cost of one engine step (replica_step_time in stdlib/replica.mls), seconds. Each attention
// group's part: group_time = combine(tokens t_token + pairs t_pair + decode_pairs t_pair_decode,
// t_weights + context t_kv_token) + tokens comm_token (its dense layers, attention and collectives).
// The expert layers over every group's tokens n: expert_time = combine(n t_expert_token,
// t_expert_weights (1 - expert_miss^n)) (of the routed experts a step reads those its tokens are sent
// to). A step: overhead + the slowest group's part + expert_time + comm_fixed.
struct StepCost {
  double overhead = 0, t_token = 0, t_pair = 0, t_pair_decode = 0, t_weights = 0, t_kv_token = 0, comm_fixed = 0,
         comm_token = 0, t_expert_token = 0, t_expert_weights = 0, expert_miss = 0;
  Combine combine = Combine::max;
  [[nodiscard]] double group_time(const Load& l) const;
  [[nodiscard]] double expert_time(double tokens) const;
  [[nodiscard]] double step(double slowest_group, double tokens) const;
  // A step of one group's work (no attention data parallelism).
  [[nodiscard]] double time(double tokens, double pairs, double decode_pairs, double context) const;
};

// A synthetic workload: Poisson arrivals and lengths drawn per request.
struct Workload {
  std::int64_t requests = 0;
  double rate = 0;  // arrivals per second
  std::uint64_t seed = 0;
  double prompt_median = 0, output_median = 0;
  double sigma = 0;                      // lognormal shape (0: every request has the medians)
  Lengths lengths = Lengths::lognormal;  // exponential: ceil(Exp(mean = median)) tokens
};

// Arrival times and lengths of a synthetic workload (deterministic per seed).
[[nodiscard]] std::vector<TraceRow> generate(const Workload& w);

struct Config {
  Policy policy = Policy::vllm;
  StepCost cost;
  std::int64_t engines = 1;           // independent engines; arrivals go to the least loaded group
  std::int64_t groups = 1;            // attention data-parallel groups per engine, stepping in lockstep
  std::int64_t max_batch = 256;       // concurrent sequences per group (vLLM max_num_seqs)
  std::int64_t token_budget = 8192;   // tokens per group and step (max_num_batched_tokens; the chunk size)
  std::int64_t kv_capacity = 0;       // KV token slots per group
  std::int64_t page_size = 16;        // tokens per KV page
  std::int64_t max_seq = 0;           // a request longer than this (prompt + output) is rejected
  double slo_ttft = 0, slo_tpot = 0;  // seconds; goodput counts requests within both
  std::uint64_t max_work = 0;         // work units (a step costs 1 + batch / 16) before it gives up
  Phase phase = Phase::both;
  double transfer_fixed = 0, transfer_token = 0;  // prefill pool: KV transfer after the first token (s, s/token)
  // Steady-state window: the share of the run's output tokens left out at each end (the ramp-up
  // while the batch fills and the drain after the last arrival); in [0, 0.5).
  double steady_trim = 0.1;
};

struct Percentiles {
  double mean = 0, p50 = 0, p90 = 0, p99 = 0;
};

struct Result {
  std::string error;         // configuration or size problem (nothing else is set)
  bool over_budget = false;  // stopped after max_work work units
  bool interrupted = false;  // Ctrl-C
  std::uint64_t work = 0;
  Percentiles ttft, tpot, e2e, queue;  // seconds; tpot over requests of >= 2 output tokens
  std::int64_t served = 0, rejected = 0, preemptions = 0, steps = 0, slo_met = 0;
  double makespan = 0;  // first arrival to last completion
  double input_tokens = 0, output_tokens = 0;
  double busy = 0;                           // engine-seconds with a step running
  double prefill_busy = 0, decode_busy = 0;  // busy time attributed to prefill and decode work
  double mean_batch = 0;                     // sequences per step
  std::int64_t max_queue = 0;                // most requests waiting at one engine
  // Output tokens made between the moments the run had made steady_trim and 1 - steady_trim of
  // them, and the time between those moments (steady-state throughput = tokens / time). At
  // steady_trim 0 the window starts at the first arrival; an empty window (every token in one step)
  // is the whole run.
  double steady_tokens = 0, steady_time = 0;
};

[[nodiscard]] std::optional<std::string> validate(const Config& c);
// Why `requests` arrive too late for the binary64 clock to resolve the configuration's steps, if
// they do (simulate refuses them with it).
[[nodiscard]] std::optional<std::string> clock_problem(const Config& c, const std::vector<TraceRow>& requests);
[[nodiscard]] Result simulate(const Config& c, const std::vector<TraceRow>& requests);

// The native's evaluation (native_eval.cpp's table; serve_sim_eval.cpp; its type rule:
// semantics/serve_sim_type.hpp).
[[nodiscard]] Value evaluate(NativeEval& n);

}  // namespace mls::servesim
