// core_test.cpp — the session core (issue #37) through its own API only, as a binding would use
// it: one call from text to results, choices and Monte Carlo options, diagnostics as data,
// transactions that leave nothing behind, two cores on two threads, a run stopped from outside.
#include "interpreter/tooling/core.hpp"

#include <doctest/doctest.h>

#include <thread>

#include "grammar/diagnostic.hpp"

using namespace mls;

namespace {

const char* kModel = R"(convention link_model "how fast the link is" {
  slow: "a slow link"
  fast: "a fast link"
  default slow
}
let bw = match link_model { slow => 2 GB/s, fast => 5 GB/s }
let time = 10 s
show moved = bw * time -> GB
sweep grid over n in [1, 2, 3] {
  show d = n * bw * time -> GB
}
assert bw * time < 100 GB
)";

double shown(const RunResult& r, const std::string& name) {
  for (const auto& s : r.results)
    if (s.name == name) return s.value.n.d;
  FAIL("no shown value " << name);
  return 0;
}

}  // namespace

TEST_CASE("core: interpret runs text under a selection and returns results, tables and asserts as data") {
  Core core;
  Selection sel;
  sel.uses = {{"link_model", "fast"}};
  sel.sets = {{"time", "20 s"}};
  const auto r = core.interpret(Input{"model.mls", kModel}, sel, RunOptions{});
  REQUIRE_MESSAGE(r, render_all(core.sources(), core.diagnostics()));
  CHECK(shown(*r, "moved") == 100e9);  // base units: bytes
  REQUIRE(r->tables.size() == 1);
  CHECK(r->tables[0].rows.size() == 3);
  REQUIRE(r->asserts.size() == 1);
  CHECK_FALSE(r->asserts[0].ok);  // 100 GB is not below 100 GB
  CHECK(core.table_names() == std::vector<std::string>{"grid", "show"});
}

TEST_CASE("core: errors come back as structured diagnostics, phase by phase") {
  Core core;
  CHECK_FALSE(core.prepare(Input{"bad.mls", "let x = 1 GB + 1 s\nshow y = nope\n"}));
  std::vector<std::string> codes;
  for (const auto& d : core.diagnostics().items()) codes.push_back(info(d.kind).code);
  CHECK(codes == std::vector<std::string>{"name.unknown", "dim.mismatch"});
  Core other;
  REQUIRE(other.prepare(Input{"model.mls", kModel}));
  Selection sel;
  sel.uses = {{"link_model", "warp"}};
  CHECK_FALSE(other.configure(sel));
  REQUIRE(other.diagnostics().size() == 1);
  CHECK(std::string(info(other.diagnostics().items()[0].kind).code) == "convention.choice");
  CHECK_FALSE(other.run(RunOptions{}));  // nothing configured: said, not run
  CHECK(other.diagnostics().items().back().kind == ErrorKind::internal);
}

TEST_CASE("core: uncertainty and seed are run options; the same seed gives the same bytes") {
  const std::string text = "let t = 10 s +- 20 %\nshow d = 2 GB/s * t -> GB\n";
  auto spread = [&](std::uint64_t seed) {
    Core core;
    RunOptions opt;
    opt.uncertainty = 200;
    opt.seed = seed;
    const auto r = core.interpret(Input{"u.mls", text}, Selection{}, opt);
    REQUIRE(r);
    REQUIRE(r->results.size() == 1);
    REQUIRE(r->results[0].spread);
    return std::make_pair(r->results[0].spread->p10, r->results[0].spread->p90);
  };
  const auto a = spread(7), b = spread(7), c = spread(8);
  CHECK(a == b);
  CHECK(a != c);
  CHECK(a.first < 20e9);
  CHECK(a.second > 20e9);
}

TEST_CASE("core: an input is a transaction; rolled back, nothing of it is left") {
  Core core;
  REQUIRE(core.load_prelude());
  REQUIRE(core.check());
  REQUIRE(core.configure(Selection{}));
  const std::size_t sources = core.sources().size();
  const Core::Transaction t = core.begin();
  REQUIRE(core.add_text(TextInput{"<input>", "let x = 3 GB\nshow y = x * 2\n"}) == Core::Added::ok);
  REQUIRE(core.check());
  REQUIRE(core.ensure_configured());
  CHECK(core.statements_added(t) == 2);
  const auto r = core.run_added(t, RunOptions{});
  REQUIRE(r);
  CHECK(shown(*r, "y") == 6e9);
  core.rollback(t);
  CHECK(core.sources().size() == sources);
  // `x` is gone: the same text is accepted again, and a use of `x` alone is not.
  const Core::Transaction u = core.begin();
  CHECK(core.add_text(TextInput{"<input>", "show z = x\n"}) == Core::Added::failed);
  core.rollback(u);
  CHECK_FALSE(core.has_errors());
  const Core::Transaction v = core.begin();
  CHECK(core.add_text(TextInput{"<input>", "let x = (1 +\n", 1, false}) == Core::Added::incomplete);
  core.rollback(v);
  // Committed, an input stays; an inner transaction folds into its outer one.
  const Core::Transaction outer = core.begin();
  REQUIRE(core.add_text(TextInput{"<input>", "let a = 1\n"}) == Core::Added::ok);
  const Core::Transaction inner = core.begin();
  REQUIRE(core.add_text(TextInput{"<input>", "let b = a + 1\n"}) == Core::Added::ok);
  core.commit(inner);
  core.rollback(outer);  // b goes with a
  const Core::Transaction w = core.begin();
  CHECK(core.add_text(TextInput{"<input>", "show c = b\n"}) == Core::Added::failed);
  core.rollback(w);
}

TEST_CASE("core: two cores run on two threads at once and agree with one alone") {
  auto distance = [] {
    Core core;
    const auto r = core.interpret(Input{"model.mls", kModel}, Selection{}, RunOptions{});
    return r ? shown(*r, "moved") : -1.0;
  };
  const double alone = distance();
  double a = 0, b = 0;
  std::thread ta([&] {
    for (int i = 0; i < 5; ++i) a += distance();
  });
  std::thread tb([&] {
    for (int i = 0; i < 5; ++i) b += distance();
  });
  ta.join();
  tb.join();
  CHECK(alone == 20e9);
  CHECK(a == 5 * alone);
  CHECK(b == 5 * alone);
}

TEST_CASE("core: interrupt() stops a run with run.interrupted, and the core stays usable") {
  Core core;
  REQUIRE(core.prepare(Input{"slow.mls", "sweep s over i in 1..2000000 {\n  show i\n}\n"}));
  REQUIRE(core.configure(Selection{}));
  RunOptions opt;
  opt.max_points = 10'000'000;
  opt.threads = 1;
  Core::interrupt();  // before the run: the request is served by the first poll
  CHECK_FALSE(core.run(opt));
  CHECK(core.diagnostics().items().back().kind == ErrorKind::interrupted);
  Core::clear_interrupt();
  Core again;
  CHECK(again.interpret(Input{"model.mls", kModel}, Selection{}, RunOptions{}));
}
