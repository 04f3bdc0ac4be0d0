// kv_sim_test.cpp — invariants of the KV allocation simulation (interpreter/runtime/kv_sim.cpp): memory
// accounting adds up, runs are reproducible, and the allocator, page size and admission matter.
#include "interpreter/runtime/kv_sim.hpp"

#include <doctest/doctest.h>

using namespace mls::kvsim;

namespace {

Config base() {
  Config c;
  c.budget_tokens = 60'000;
  c.requests = 600;
  c.seed = 7;
  c.prompt_median = 200;
  c.output_median = 100;
  c.sigma = 1.0;
  c.max_new_tokens = 400;
  c.max_seq = 2048;
  c.page_size = 16;
  return c;
}

// Every token slot of every averaged step is used, reserved, internal waste or free.
void check_accounting(const Config& c, const Result& r) {
  REQUIRE(r.error.empty());
  CHECK(r.window_steps > 0);
  CHECK(r.used + r.reserved + r.internal + r.free == c.budget_tokens * r.window_steps);
  CHECK(r.external <= r.free);
  CHECK(r.tokens <= r.trace_tokens);
  CHECK(r.served + r.rejected == c.requests);
}

}  // namespace

TEST_CASE("kv_sim: accounting adds up for both allocators") {
  Config c = base();
  check_accounting(c, simulate(c));
  c.paged = true;
  check_accounting(c, simulate(c));
  c.share_prefix = true;
  c.prefix_tokens = 300;
  const Result r = simulate(c);
  check_accounting(c, r);
  CHECK(r.saved > 0);
}

TEST_CASE("kv_sim: the same configuration gives the same result; another seed another") {
  const Config c = base();
  const Result a = simulate(c), b = simulate(c);
  CHECK(a.steps == b.steps);
  CHECK(a.used == b.used);
  CHECK(a.trace_tokens == b.trace_tokens);
  Config d = c;
  d.seed = 8;
  CHECK(simulate(d).trace_tokens != a.trace_tokens);
}

TEST_CASE("kv_sim: paged pages pad at most one page per request; static slots never preempt") {
  Config c = base();
  c.paged = true;
  const Result r = simulate(c);
  CHECK(r.internal <= r.running * c.page_size);
  CHECK(r.reserved == 0);
  c.paged = false;
  const Result s = simulate(c);
  CHECK(s.preemptions == 0);
  CHECK(s.running * r.window_steps <
        r.running * s.window_steps);  // mean running: reservations for max_new_tokens hold memory paging does not
}

TEST_CASE("kv_sim: skipping ahead past a request that does not fit changes the static allocator") {
  Config c = base();
  const Result stop = simulate(c);
  c.skip_ahead = true;
  const Result skip = simulate(c);
  CHECK(stop.running != skip.running);
  CHECK(stop.steps != skip.steps);
}

TEST_CASE("kv_sim: invalid configurations are explained") {
  Config c = base();
  CHECK_FALSE(validate(c).has_value());
  c.page_size = 0;
  REQUIRE(validate(c).has_value());
  CHECK(validate(c)->find("page_size") != std::string::npos);
  c = base();
  c.prefix_tokens = c.max_seq;
  CHECK(validate(c).has_value());
}
