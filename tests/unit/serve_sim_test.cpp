// serve_sim_test.cpp — the serving simulation (interpreter/runtime/serve_sim.cpp) against queueing
// theory, its determinism and stability across seeds, its speed, the schedulers' known orderings,
// and the trace reader's positioned errors (serve_trace.cpp).
#include "interpreter/runtime/serve_sim.hpp"

#include <doctest/doctest.h>

#include <cmath>

using namespace mls::servesim;

namespace {

// Llama 3 70B BF16 on 8 H100 (TP 8), coefficients of the order replica() gives (stdlib/replica.mls).
Config llama70b_tp8() {
  Config c;
  c.policy = Policy::sarathi;
  c.cost.overhead = 1e-3;
  c.cost.t_token = 3.6e-5;
  c.cost.t_pair = 1.0e-9;
  c.cost.t_pair_decode = 1.0e-9;
  c.cost.t_weights = 6.3e-3;
  c.cost.t_kv_token = 1.2e-7;
  c.cost.comm_fixed = 1.1e-3;
  c.cost.comm_token = 1.0e-6;
  c.engines = 1;
  c.max_batch = 256;
  c.token_budget = 2048;
  c.kv_capacity = 1'000'000;
  c.page_size = 16;
  c.max_seq = 16384;
  c.slo_ttft = 2.0;
  c.slo_tpot = 0.05;
  c.max_work = UINT64_MAX;
  return c;
}

Workload chat(std::uint64_t seed, std::int64_t n = 10'000, double rate = 8) {
  Workload w;
  w.requests = n;
  w.rate = rate;
  w.seed = seed;
  w.prompt_median = 1000;
  w.output_median = 200;
  w.sigma = 0.6;
  return w;
}

}  // namespace

TEST_CASE("serve_sim: one request at a time with exponential service waits as M/M/1 says") {
  // Every step costs tau whatever it holds, max_batch 1: a request of N output tokens is served in
  // N tau (its prefill step gives the first token), N = ceil(Exp(mean m)). For m = 50 that is
  // exponential within 1 % of E[S^2]; arrivals Poisson at rho = 0.5.
  Config c = llama70b_tp8();
  c.policy = Policy::vllm;
  c.cost = StepCost{};
  c.cost.t_weights = 1e-3;
  c.max_batch = 1;
  Workload w;
  w.requests = 200'000;
  w.seed = 11;
  w.prompt_median = 1;
  w.output_median = 50;
  w.lengths = Lengths::exponential;
  const double p = 1 - std::exp(-1.0 / 50);  // N is geometric with success probability p
  const double mean_s = 1e-3 / p;
  const double rho = 0.5;
  w.rate = rho / mean_s;
  const Result r = simulate(c, generate(w));
  REQUIRE(r.error.empty());
  CHECK(r.served == w.requests);
  const double mm1_wait = rho / (1 / mean_s - w.rate);  // W_q = rho / (mu - lambda)
  CHECK(std::abs(r.queue.mean / mm1_wait - 1) < 0.02);
  // Utilisation is rho.
  CHECK(std::abs(r.busy / r.makespan - rho) < 0.01);
}

TEST_CASE("serve_sim: deterministic per seed, percentiles stable across seeds") {
  const Config c = llama70b_tp8();
  const Result a = simulate(c, generate(chat(1)));
  const Result b = simulate(c, generate(chat(1)));
  CHECK(a.ttft.p99 == b.ttft.p99);
  CHECK(a.tpot.p50 == b.tpot.p50);
  CHECK(a.steps == b.steps);
  const Result other = simulate(c, generate(chat(2)));
  CHECK(other.ttft.p99 != a.ttft.p99);
  for (std::uint64_t seed : {2, 3, 4}) {
    const Result s = simulate(c, generate(chat(seed)));
    CHECK(std::abs(s.ttft.p50 / a.ttft.p50 - 1) < 0.10);
    CHECK(std::abs(s.tpot.p50 / a.tpot.p50 - 1) < 0.10);
    CHECK(std::abs(s.tpot.p99 / a.tpot.p99 - 1) < 0.10);
    CHECK(std::abs(s.e2e.p99 / a.e2e.p99 - 1) < 0.10);
    CHECK(std::abs(s.output_tokens / s.makespan / (a.output_tokens / a.makespan) - 1) < 0.05);
  }
}

// Speed is not asserted here (the brief: performance is measured as ratios in bench/, never as a
// wall-clock time in a test, which a loaded or sanitized machine would fail). This pins that a
// sweep-sized workload completes every request.
TEST_CASE("serve_sim: 10^4 requests are all served") {
  const Config c = llama70b_tp8();
  const auto rows = generate(chat(5));
  const Result r = simulate(c, rows);
  CHECK(r.served == 10'000);
}

TEST_CASE("serve_sim: schedulers order as their papers say") {
  Config c = llama70b_tp8();
  const auto rows = generate(chat(3, 3000, 6));
  c.policy = Policy::vllm;
  const Result vllm = simulate(c, rows);
  c.policy = Policy::sarathi;
  const Result sarathi = simulate(c, rows);
  c.policy = Policy::static_batch;
  c.max_batch = 32;
  const Result st = simulate(c, rows);
  // Prefill-first stalls running decodes behind whole prompts: worse TPOT tail than chunked prefill.
  CHECK(vllm.tpot.p99 > sarathi.tpot.p99);
  // Static batches make new requests wait for the whole batch to drain.
  CHECK(st.ttft.p50 > sarathi.ttft.p50);
  CHECK(vllm.served == 3000);
  CHECK(sarathi.served == 3000);
  CHECK(st.served == 3000);
}

TEST_CASE("serve_sim: a small KV cache preempts, a request that can never fit is rejected") {
  Config c = llama70b_tp8();
  c.kv_capacity = 40'000;
  c.max_seq = 8192;
  auto rows = generate(chat(4, 2000, 10));
  rows.push_back({rows.back().arrival + 1, 9000, 10});
  const Result r = simulate(c, rows);
  CHECK(r.preemptions > 0);
  CHECK(r.rejected >= 1);
  CHECK(r.served + r.rejected == 2001);
}

TEST_CASE("serve_sim: more engines, shorter queues; a step's time is the replica's formula") {
  Config c = llama70b_tp8();
  const auto rows = generate(chat(6, 4000, 12));
  const Result one = simulate(c, rows);
  c.engines = 2;
  const Result two = simulate(c, rows);
  CHECK(two.ttft.p99 < one.ttft.p99);
  StepCost s = c.cost;
  CHECK(s.time(10, 0, 0, 0) == doctest::Approx(1e-3 + 6.3e-3 + 1.1e-3 + 10e-6));
  s.combine = Combine::sum;
  CHECK(s.time(10, 0, 0, 0) == doctest::Approx(1e-3 + 36e-5 + 6.3e-3 + 1.1e-3 + 10e-6));
  c.cost.t_token = -1;
  CHECK(!simulate(c, rows).error.empty());
}

TEST_CASE("serve_sim: attention groups step together; the expert layers read the experts tokens reach") {
  // The expert part: of t_expert_weights a step of n tokens reads 1 - miss^n (uniform routing).
  StepCost s;
  s.t_expert_weights = 8e-3;
  s.expert_miss = 1 - 8.0 / 256;
  CHECK(s.expert_time(1) == doctest::Approx(8e-3 * 8 / 256));
  CHECK(s.expert_time(4096) == doctest::Approx(8e-3).epsilon(1e-6));
  s.t_expert_token = 1e-5;
  CHECK(s.expert_time(4096) == doctest::Approx(4096 * 1e-5));  // compute-bound: max, not sum
  // One request at a time on an engine of two groups: the idle group adds nothing, so its steps
  // cost what one group's do.
  Config c = llama70b_tp8();
  c.max_batch = 1;
  Workload w = chat(3, 40, 0.05);
  w.sigma = 0;
  const auto rows = generate(w);
  const Result one = simulate(c, rows);
  c.groups = 2;
  const Result two = simulate(c, rows);
  REQUIRE(two.served == 40);
  CHECK(two.tpot.p50 == doctest::Approx(one.tpot.p50));
  // Every request queued at once: two groups hold twice the sequences in lockstep, each step as
  // slow as its slower group; more tokens per step, so more throughput than one group.
  std::vector<TraceRow> at_once;
  for (const auto& q : generate(chat(4, 400, 1))) at_once.push_back({0.0, q.prompt, q.output});
  c.max_batch = 64;
  c.groups = 1;
  const Result g1 = simulate(c, at_once);
  c.groups = 2;
  const Result g2 = simulate(c, at_once);
  CHECK(g2.mean_batch > 1.5 * g1.mean_batch);
  CHECK(g2.output_tokens / g2.makespan > 1.3 * g1.output_tokens / g1.makespan);
  c.groups = 0;
  CHECK(!simulate(c, at_once).error.empty());
}

TEST_CASE("serve_sim: steady-state throughput leaves out the ramp-up and the drain") {
  // A stable Poisson run of 300 requests: over the makespan the drain after the last arrival
  // (long outputs still decoding) lowers the rate; between 10 % and 90 % of the output tokens the
  // engine makes them as fast as the arrivals bring them (rate x mean output).
  Config c = llama70b_tp8();
  const auto rows = generate(chat(7, 300, 4));
  const Result r = simulate(c, rows);
  REQUIRE(r.served == 300);
  const double offered = 4 * r.output_tokens / static_cast<double>(r.served);
  const double whole = r.output_tokens / r.makespan, steady = r.steady_tokens / r.steady_time;
  CHECK(whole < 0.95 * offered);
  CHECK(std::abs(steady / offered - 1) < 0.08);
  CHECK(r.steady_tokens == doctest::Approx(0.8 * r.output_tokens).epsilon(0.01));
  // Every request queued at once: the full-batch rate, above the whole run's (which starts with
  // the batch filling and ends with it emptying).
  std::vector<TraceRow> at_once;
  for (const auto& q : rows) at_once.push_back({0.0, q.prompt, q.output});
  const Result sat = simulate(c, at_once);
  CHECK(sat.steady_tokens / sat.steady_time > 1.05 * sat.output_tokens / sat.makespan);
  // Trim 0 starts the window at the first arrival and ends it at the last token: the whole run.
  c.steady_trim = 0;
  const Result all = simulate(c, rows);
  CHECK(all.steady_tokens == all.output_tokens);
  CHECK(all.steady_time == doctest::Approx(all.makespan));
  c.steady_trim = 0.5;
  CHECK(!simulate(c, rows).error.empty());
}

TEST_CASE("serve_trace: rows, header, comments; errors at line and column") {
  const TraceParse ok =
      parse_trace("# a trace\narrival_s, prompt_tokens, output_tokens\n0, 10, 5\n0.5,20,1\n\n1e1 ,3, 4\n");
  REQUIRE(!ok.error);
  REQUIRE(ok.rows.size() == 3);
  CHECK(ok.rows[2].arrival == 10);
  CHECK(ok.rows[1].prompt == 20);
  auto err = [](const char* text) { return *parse_trace(text).error; };
  const TraceError e1 = err("0,10,5\n0.5,abc,3\n");
  CHECK(e1.line == 2);
  CHECK(e1.col == 5);
  CHECK(e1.message.find("prompt_tokens") != std::string::npos);
  CHECK(err("1,1,1\n0.5,1,1\n").message.find("must not decrease") != std::string::npos);
  CHECK(err("0,1\n").message.find("3 fields") != std::string::npos);
  CHECK(err("0,1,1,1\n").col == 7);
  CHECK(err("-1,1,1\n").col == 1);
  CHECK(err("nan,1,1\n").line == 1);
  CHECK(err("0,0,1\n").col == 3);
  CHECK(err("arrival_s,prompt,output_tokens\n").message.find("header") != std::string::npos);
  CHECK(err("# only comments\n").message.find("no requests") != std::string::npos);
  CHECK(err("").line == 1);
}
