// fuzz_trace.cpp — libFuzzer target for serve_sim's request traces: the CSV reader
// (runtime/serve_trace.cpp) on arbitrary bytes, and every trace it accepts through the simulation
// (runtime/serve_sim.cpp) under each scheduler with a small KV cache (preemption, rejection).
// Besides sanitizer reports, it traps on broken promises: an error without a position inside the
// text, rows that break the format's rules, or a simulation that loses requests or reports a
// non-finite or negative latency. Inputs may be recipes of large traces (structured.hpp).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "interpreter/runtime/serve_sim.hpp"
#include "structured.hpp"

namespace {

using namespace mls::servesim;

void require(bool ok) {
  if (!ok) std::abort();
}

bool sane(const Percentiles& p) {
  for (double x : {p.mean, p.p50, p.p90, p.p99})
    if (!std::isfinite(x) || x < 0) return false;
  return p.p50 <= p.p90 && p.p90 <= p.p99;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  // Structured mode (structured.hpp): a recipe of up to 16 MiB of trace, a million rows.
  std::string_view recipe;
  std::string expanded;
  if (mls_fuzz::recipe_of(text, recipe)) {
    expanded = mls_fuzz::expand(recipe);
    text = expanded;
  }
  const TraceParse t = parse_trace(text);
  if (t.error) {
    require(t.rows.empty() && t.error->line >= 1 && !t.error->message.empty());
    return 0;
  }
  require(!t.rows.empty());
  double last = 0;
  for (const TraceRow& r : t.rows) {
    require(std::isfinite(r.arrival) && r.arrival >= last && r.prompt >= 1 && r.output >= 1);
    last = r.arrival;
  }
  if (t.rows.size() > 400) return 0;  // keep each input fast: the simulation is linear in steps
  for (Policy policy : {Policy::vllm, Policy::sarathi, Policy::static_batch}) {
    Config c;
    c.policy = policy;
    c.cost.overhead = 1e-3;
    c.cost.t_token = 1e-5;
    c.cost.t_pair = 1e-9;
    c.cost.t_pair_decode = 1e-9;
    c.cost.t_weights = 5e-3;
    c.cost.t_kv_token = 1e-7;
    c.engines = 2;
    c.max_batch = 8;
    c.token_budget = 256;
    c.kv_capacity = 4096;
    c.page_size = 16;
    c.max_seq = 2048;
    c.slo_ttft = 1;
    c.slo_tpot = 0.05;
    c.max_work = 200'000;
    const Result r = simulate(c, t.rows);
    // The one error a valid configuration may meet: arrivals too late for the binary64 clock to
    // resolve a step (issue 38, item 13), and then exactly the message clock_problem gives.
    if (!r.error.empty()) {
      const auto why = clock_problem(c, t.rows);
      require(why && *why == r.error);
      continue;
    }
    if (r.over_budget) continue;
    require(r.served + r.rejected == static_cast<std::int64_t>(t.rows.size()));
    if (r.served == 0) continue;
    require(sane(r.ttft) && sane(r.e2e) && sane(r.queue) && std::isfinite(r.makespan) && r.makespan >= 0);
    require(r.tpot.mean >= 0 && std::isfinite(r.tpot.p99));
    // The steady-state window lies inside the run and holds at most every output token.
    require(r.steady_tokens > 0 && r.steady_tokens <= r.output_tokens && r.steady_time >= 0 &&
            r.steady_time <= r.makespan + 1e-9);
  }
  return 0;
}
