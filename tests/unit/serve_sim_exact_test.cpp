// serve_sim_exact_test.cpp — the serving simulation's shortcuts (serve_sim.cpp: a sequence's page
// growth without the division, the growth pass and the finished-sequence scan skipped when they
// would change nothing) give every run exactly the results of the simulation without them: each
// scheduler, small KV caches that preempt, odd page sizes, several engines and attention groups,
// and both pools of a disaggregated deployment, to the last bit.
#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "interpreter/runtime/serve_sim.hpp"

using namespace mls::servesim;

namespace {

Config base(Policy p, std::int64_t kv, std::int64_t page) {
  Config c;
  c.policy = p;
  c.cost.overhead = 1e-3;
  c.cost.t_token = 3.6e-5;
  c.cost.t_pair = 1.0e-9;
  c.cost.t_pair_decode = 1.0e-9;
  c.cost.t_weights = 6.3e-3;
  c.cost.t_kv_token = 1.2e-7;
  c.cost.comm_fixed = 1.1e-3;
  c.cost.comm_token = 1.0e-6;
  c.max_batch = 64;
  c.token_budget = 512;
  c.kv_capacity = kv;
  c.page_size = page;
  c.max_seq = 4096;
  c.slo_ttft = 0.5;
  c.slo_tpot = 0.03;
  c.max_work = 2'000'000;  // a shortcut that kept finished sequences would run into it, not hang
  return c;
}

std::vector<TraceRow> rows(std::uint64_t seed, double rate) {
  Workload w;
  w.requests = 600;
  w.rate = rate;
  w.seed = seed;
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
      {"vllm, KV cache that preempts, page 16", base(Policy::vllm, 12'000, 16), 1, 12,
       "600 0 5 5278 600 4 0x1.ef629a8945bdep-6 0x1.5d7ad9f812fp-6 0x1.2fb1bf0324aecp-3 0x1.8d924d3ba4ad4p-7 "
       "0x1.e058b9b68983p-7 0x1.4358cee8c6f9p-6 0x1.10f50c2c759f6p+0 0x1.2ec807c8568a6p+2 0x1.692fc3e38980bp-7 "
       "0x1.aef5fb6bc5734p-4 0x1.af91ed0f51477p+5 0x1.fde88p+17 0x1.9d58p+15 0x1.af91ed0f51478p+5 0x1.696c0cb72ebc2p+3 "
       "0x1.5536e9e185974p+5 0x1.40c6ab50396d8p+3 0x1.4a9cp+15 0x1.3ad62bb6114b7p+5 0x1.7d7p+12"},
      {"sarathi, KV cache that preempts, page 7", base(Policy::sarathi, 9'000, 7), 2, 12,
       "600 0 8 5180 588 11 0x1.2a132725961e7p-4 0x1.b044c112144p-6 0x1.32eedab6822a7p-1 0x1.4da74fbeb6ba1p-7 "
       "0x1.74ad6701af44fp-7 0x1.aaf4121863b6ep-7 0x1.cdd91d3cf8a5ep-1 0x1.e74c0ec5d33eep+1 0x1.87c466a107742p-5 "
       "0x1.12273c3d814p-1 0x1.9f4d0d3b5a7d3p+5 0x1.0211cp+18 0x1.83e2p+15 0x1.9f4d0d3b5a7d4p+5 0x1.00d2b8e926856p+3 "
       "0x1.5f185f0110dbcp+5 0x1.349eeffcd649fp+3 0x1.365ap+15 0x1.3c09bccd6183cp+5 0x1.573p+12"},
      {"static batches, page 1", base(Policy::static_batch, 40'000, 1), 3, 4,
       "598 2 0 15414 112 31 0x1.67af754429093p+0 0x1.1c99f1edf7007p+0 0x1.a8b61b97cc2acp+2 0x1.22a4e87ffb8cp-7 "
       "0x1.317fc169ff2b2p-7 0x1.47e58d323d7c8p-7 0x1.141c0dbb89d66p+1 0x1.d0eddea7e067ap+2 0x1.39dafabf79354p+0 "
       "0x1.866012e21b03cp+2 0x1.1b8e478975c01p+7 0x1.ce47p+17 0x1.943ap+15 0x1.1962c0c92238p+7 0x1.2075f4e88e8ep+3 "
       "0x1.075b617a994ecp+7 0x1.adaa1a1bb3de2p+1 0x1.4366p+15 0x1.c8eb622591635p+6 0x1.e9bp+13"},
      {"vllm, 3 engines of 2 groups, page 5",
       with(base(Policy::vllm, 6'000, 5),
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
       with(base(Policy::sarathi, 10'000, 16), [](Config& c) { c.phase = Phase::decode; }), 5, 20,
       "600 0 21 3724 597 13 0x0p+0 0x0p+0 0x0p+0 0x1.47b8e2c8a57b3p-7 0x1.63faac1a84ef5p-7 0x1.66f8950765b13p-6 "
       "0x1.8fa7ac59065e8p-1 0x1.7fb93db8b60e5p+1 0x1.ccbae5bfe57b8p-6 0x1.95db0a116ed45p-2 0x1.124636460492dp+5 "
       "0x1.c4dp+17 0x1.7ee6p+15 0x1.124636460492dp+5 0x1.034f4f422f55cp-2 0x1.103f97a780343p+5 0x1.a00d32deba6e9p+3 "
       "0x1.2e8p+15 0x1.9c47f30a2343ap+4 0x1.2a9p+12"},
      {"vllm prefill pool, page 32",
       with(base(Policy::vllm, 20'000, 32),
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
       with(base(Policy::static_batch, 3'000, 3), [](Config& c) { c.groups = 2; }), 7, 8,
       "598 2 0 11086 15 79 0x1.c320b7e62f871p+3 0x1.dda92f2bf6c8p+3 0x1.a49831c01e085p+4 0x1.273390bbf21fdp-7 "
       "0x1.43ce49cb6d1ep-7 0x1.7ef47d0165344p-7 0x1.da8209db0c876p+3 0x1.b074101d28db2p+4 0x1.c08472da1ac44p+3 "
       "0x1.a3044b92be39dp+4 0x1.9e2868b50f063p+6 0x1.dbefp+17 0x1.8002p+15 0x1.9d6f761972feep+6 0x1.0e0a0901404d4p+3 "
       "0x1.7bae34f94af4cp+6 0x1.1bc338ab11227p+2 0x1.333ap+15 0x1.360fbe63528a9p+6 0x1.5a7p+13"},
  };
  for (const Run& r : runs) {
    CAPTURE(r.what);
    const Result got = simulate(r.c, rows(r.seed, r.rate));
    REQUIRE(got.error.empty());
    CHECK(!got.over_budget);
    CHECK(fingerprint(got) == std::string(r.want));
  }
}
