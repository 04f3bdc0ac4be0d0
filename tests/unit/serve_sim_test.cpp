// serve_sim_test.cpp — the serving simulation (interpreter/runtime/serve_sim.cpp) against queueing
// theory, its determinism and stability across seeds, its speed, the schedulers' known orderings,
// and the trace reader's positioned errors (serve_trace.cpp); its shortcuts (a sequence's page
// growth without the division, the growth pass and the finished-sequence scan skipped when they
// would change nothing) against the results of the simulation without them, to the last bit.
#include "interpreter/runtime/serve_sim.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <string>

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

// The coefficients of llama70b_tp8() with a smaller engine, so that a KV cache of a few thousand
// tokens preempts or rejects; max_work makes a shortcut that kept finished sequences fail, not hang.
Config small_engine(Policy p, std::int64_t kv, std::int64_t page) {
  Config c = llama70b_tp8();
  c.policy = p;
  c.max_batch = 64;
  c.token_budget = 512;
  c.kv_capacity = kv;
  c.page_size = page;
  c.max_seq = 4096;
  c.slo_ttft = 0.5;
  c.slo_tpot = 0.03;
  c.max_work = 2'000'000;
  return c;
}

// 600 chat requests with shorter prompts and answers than chat()'s, more spread.
std::vector<TraceRow> short_chats(std::uint64_t seed, double rate) {
  Workload w = chat(seed, 600, rate);
  w.prompt_median = 300;
  w.output_median = 60;
  w.sigma = 0.8;
  return generate(w);
}

// Every number of a result, each to the last bit.
std::string fingerprint(const Result& r) {
  char b[1024];
  std::snprintf(
      b, sizeof b, "%lld %lld %lld %lld %lld %lld %a %a %a %a %a %a %a %a %a %a %a %a %a %a %a %a %a %a %a %a",
      static_cast<long long>(r.served), static_cast<long long>(r.rejected), static_cast<long long>(r.preemptions),
      static_cast<long long>(r.steps), static_cast<long long>(r.slo_met), static_cast<long long>(r.max_queue),
      r.ttft.mean, r.ttft.p50, r.ttft.p99, r.tpot.mean, r.tpot.p90, r.tpot.p99, r.e2e.mean, r.e2e.p99, r.queue.mean,
      r.queue.p99, r.makespan, r.input_tokens, r.output_tokens, r.busy, r.prefill_busy, r.decode_busy, r.mean_batch,
      r.steady_tokens, r.steady_time, static_cast<double>(r.work));
  return b;
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

TEST_CASE("serve_sim: the shortcuts change no result (results of the simulation without them)") {
  struct Run {
    const char* what;
    Config c;
    std::uint64_t seed;
    double rate;
    const char* want;  // fingerprint() of serve_sim.cpp before the shortcuts (main 5d42e56)
  };
  auto with = [](Config c, auto f) {
    f(c);
    return c;
  };
  const Run runs[] = {
      {"vllm, KV cache that preempts, page 16", small_engine(Policy::vllm, 12'000, 16), 1, 12,
       "600 0 5 5278 600 4 0x1.ef629a8945bdep-6 0x1.5d7ad9f812fp-6 0x1.2fb1bf0324aecp-3 0x1.8d924d3ba4ad4p-7 "
       "0x1.e058b9b68983p-7 0x1.4358cee8c6f9p-6 0x1.10f50c2c759f6p+0 0x1.2ec807c8568a6p+2 0x1.692fc3e38980bp-7 "
       "0x1.aef5fb6bc5734p-4 0x1.af91ed0f51477p+5 0x1.fde88p+17 0x1.9d58p+15 0x1.af91ed0f51478p+5 0x1.696c0cb72ebc2p+3 "
       "0x1.5536e9e185974p+5 0x1.40c6ab50396d8p+3 0x1.4a9cp+15 0x1.3ad62bb6114b7p+5 0x1.7d7p+12"},
      {"sarathi, KV cache that preempts, page 7", small_engine(Policy::sarathi, 9'000, 7), 2, 12,
       "600 0 8 5180 588 11 0x1.2a132725961e7p-4 0x1.b044c112144p-6 0x1.32eedab6822a7p-1 0x1.4da74fbeb6ba1p-7 "
       "0x1.74ad6701af44fp-7 0x1.aaf4121863b6ep-7 0x1.cdd91d3cf8a5ep-1 0x1.e74c0ec5d33eep+1 0x1.87c466a107742p-5 "
       "0x1.12273c3d814p-1 0x1.9f4d0d3b5a7d3p+5 0x1.0211cp+18 0x1.83e2p+15 0x1.9f4d0d3b5a7d4p+5 0x1.00d2b8e926856p+3 "
       "0x1.5f185f0110dbcp+5 0x1.349eeffcd649fp+3 0x1.365ap+15 0x1.3c09bccd6183cp+5 0x1.573p+12"},
      {"static batches, page 1", small_engine(Policy::static_batch, 40'000, 1), 3, 4,
       "598 2 0 15414 112 31 0x1.67af754429093p+0 0x1.1c99f1edf7007p+0 0x1.a8b61b97cc2acp+2 0x1.22a4e87ffb8cp-7 "
       "0x1.317fc169ff2b2p-7 0x1.47e58d323d7c8p-7 0x1.141c0dbb89d66p+1 0x1.d0eddea7e067ap+2 0x1.39dafabf79354p+0 "
       "0x1.866012e21b03cp+2 0x1.1b8e478975c01p+7 0x1.ce47p+17 0x1.943ap+15 0x1.1962c0c92238p+7 0x1.2075f4e88e8ep+3 "
       "0x1.075b617a994ecp+7 0x1.adaa1a1bb3de2p+1 0x1.4366p+15 0x1.c8eb622591635p+6 0x1.e9bp+13"},
      {"vllm, 3 engines of 2 groups, page 5",
       with(small_engine(Policy::vllm, 6'000, 5),
            [](Config& c) {
              c.engines = 3;
              c.groups = 2;
            }),
       4, 30,
       "600 0 2 5923 598 3 0x1.d963b5851993cp-6 0x1.41dae4882ee8p-6 0x1.0012cac3ad467p-3 0x1.4bf3f32196ab2p-7 "
       "0x1.77ef2a17c069ap-7 0x1.d467b685df54bp-7 0x1.9fa95cefc929ap-1 0x1.97d1bf2c49359p+1 0x1.375e9b9d8de0fp-7 "
       "0x1.13d3fe014b70cp-4 0x1.3568df7713cf5p+4 0x1.f264p+17 0x1.6f66p+15 0x1.cc0bdd2919082p+5 0x1.fd072c60cc3ap+2 "
       "0x1.8c6af79cff809p+5 0x1.fc247a9362806p+2 0x1.25eep+15 0x1.ce0295e1d41aap+3 0x1.723p+12"},
      {"sarathi decode pool, page 16",
       with(small_engine(Policy::sarathi, 10'000, 16), [](Config& c) { c.phase = Phase::decode; }), 5, 20,
       "600 0 21 3724 597 13 0x0p+0 0x0p+0 0x0p+0 0x1.47b8e2c8a57b3p-7 0x1.63faac1a84ef5p-7 0x1.66f8950765b13p-6 "
       "0x1.8fa7ac59065e8p-1 0x1.7fb93db8b60e5p+1 0x1.ccbae5bfe57b8p-6 0x1.95db0a116ed45p-2 0x1.124636460492dp+5 "
       "0x1.c4dp+17 0x1.7ee6p+15 0x1.124636460492dp+5 0x1.034f4f422f55cp-2 0x1.103f97a780343p+5 0x1.a00d32deba6e9p+3 "
       "0x1.2e8p+15 0x1.9c47f30a2343ap+4 0x1.2a9p+12"},
      {"vllm prefill pool, page 32",
       with(small_engine(Policy::vllm, 20'000, 32),
            [](Config& c) {
              c.phase = Phase::prefill;
              c.transfer_fixed = 1e-3;
              c.transfer_token = 1e-6;
            }),
       6, 20,
       "600 0 0 587 600 3 0x1.9e392681783ap-6 0x1.456031f77c88p-6 0x1.34fb91cdbe152p-4 0x0p+0 0x0p+0 0x0p+0 "
       "0x1.9e392681783ap-6 0x1.34fb91cdbe152p-4 0x1.7e476de267828p-8 0x1.7b4051e3f52e2p-5 0x1.f8163c05873e8p+4 "
       "0x1.dbc9p+17 0x1.2cp+9 0x1.53af685fb23a1p+3 0x1.53af685fb23a1p+3 0x0p+0 0x1.05ab64be25818p+0 0x1.ep+8 "
       "0x1.8ebfa0158ea4ap+4 0x1.258p+9"},
      {"static batches, 2 groups, KV cache that rejects, page 3",
       with(small_engine(Policy::static_batch, 3'000, 3), [](Config& c) { c.groups = 2; }), 7, 8,
       "598 2 0 11086 15 79 0x1.c320b7e62f871p+3 0x1.dda92f2bf6c8p+3 0x1.a49831c01e085p+4 0x1.273390bbf21fdp-7 "
       "0x1.43ce49cb6d1ep-7 0x1.7ef47d0165344p-7 0x1.da8209db0c876p+3 0x1.b074101d28db2p+4 0x1.c08472da1ac44p+3 "
       "0x1.a3044b92be39dp+4 0x1.9e2868b50f063p+6 0x1.dbefp+17 0x1.8002p+15 0x1.9d6f761972feep+6 0x1.0e0a0901404d4p+3 "
       "0x1.7bae34f94af4cp+6 0x1.1bc338ab11227p+2 0x1.333ap+15 0x1.360fbe63528a9p+6 0x1.5a7p+13"},
  };
  for (const Run& r : runs) {
    CAPTURE(r.what);
    const Result got = simulate(r.c, short_chats(r.seed, r.rate));
    REQUIRE(got.error.empty());
    CHECK(!got.over_budget);
    CHECK(fingerprint(got) == std::string(r.want));
  }
}
