// diff_shares_test.cpp — the split of a diff's changes between their causes (one switched at a
// time, re-run) and asserts whose outcome differs between the sides.
#include "interpreter/tooling/diff_shares.hpp"

#include <doctest/doctest.h>

#include <memory>

#include "harness.hpp"
#include "interpreter/results/diff.hpp"

using namespace mls;

namespace {

// Two conventions; a sum of their effects (additive: no interaction) and a product (which has
// one). Names start with my_: names are global, and the stdlib must never collide with a test.
const char* kModel = R"(
convention my_a "a" {
  lo: "1 s"
  hi: "2 s"
  default lo
}
convention my_b "b" {
  lo: "10 s"
  hi: "30 s"
  default lo
}
let my_x = match my_a { lo => 1 s, hi => 2 s }
let my_y = match my_b { lo => 10 s, hi => 30 s }
show my_sum = my_x + my_y -> s
show my_prod = my_x * my_y / (1 s) -> s
show my_one = my_x -> s
assert my_x < 1.5 s
assert my_y > 100 s
)";

struct Side {
  std::unique_ptr<Harness> s = std::make_unique<Harness>();
  Selection sel;
  std::optional<Config> cfg;
  RunResult r;
};

void run_side(Side& x) {
  REQUIRE(prepare(*x.s, "m.mls", std::string(kModel)));
  REQUIRE(x.s->core.configure(x.sel));
  x.cfg = *x.s->core.config();
  auto r = x.s->core.run(RunOptions{});
  REQUIRE(r);
  x.r = std::move(*r);
}

const ValueDiff& result(const DiffReport& d, const std::string& name) {
  for (const auto& v : d.results)
    if (v.name == name) return v;
  FAIL("no changed result " << name);
  return d.results.front();
}

struct Diffed {
  Side l, r;
  DiffReport d;
  explicit Diffed(ShareLimits lim = {}) {
    r.sel.uses = {{"my_a", "hi"}, {"my_b", "hi"}};
    run_side(l);
    run_side(r);
    const ConfiguredAtoms la = configured_atoms(*l.cfg), ra = configured_atoms(*r.cfg);
    d = diff_runs(DiffSide{scope_of(l.s->prog), &la, &l.r, "m.mls", "left"},
                  DiffSide{scope_of(r.s->prog), &ra, &r.r, "m.mls", "right"});
    split_changes(l.s->core, l.sel, l.r, RunOptions{}, d, lim);
  }
};

}  // namespace

TEST_CASE("diff shares: additive causes leave an interaction of exactly 0") {
  Diffed x;
  const ValueDiff& v = result(x.d, "my_sum");  // 1 + 10 s -> 2 + 30 s
  REQUIRE(v.shares);
  REQUIRE(v.shares->causes.size() == 2);
  CHECK(v.shares->complete());
  CHECK(*v.shares->causes[0].share == 1.0);   // my_a alone: 2 + 10
  CHECK(*v.shares->causes[1].share == 20.0);  // my_b alone: 1 + 30
  CHECK(v.shares->remainder == 0.0);
  CHECK(*v.shares->causes[1].fraction == doctest::Approx(20.0 / 21.0));
}

TEST_CASE("diff shares: a product's interaction is what the one-at-a-time moves leave") {
  Diffed x;
  const ValueDiff& v = result(x.d, "my_prod");  // 1 * 10 s -> 2 * 30 s
  REQUIRE(v.shares);
  CHECK(*v.shares->causes[0].share == 10.0);  // 2 * 10
  CHECK(*v.shares->causes[1].share == 20.0);  // 1 * 30
  CHECK(v.shares->remainder == 20.0);         // 50 - 10 - 20
  CHECK(*v.change == v.shares->remainder + *v.shares->causes[0].share + *v.shares->causes[1].share);
  CHECK(format_shares_json(v).find("\"interaction\": 20") != std::string::npos);
}

TEST_CASE("diff shares: one cause is not split; the limits say why") {
  {
    Diffed x;
    const ValueDiff& v = result(x.d, "my_one");
    CHECK_FALSE(v.shares);
    CHECK(v.shares_skipped.empty());
    CHECK(format_shares_json(v) == "null");
  }
  ShareLimits lim;
  lim.max_causes = 1;
  Diffed capped(lim);
  CHECK_FALSE(result(capped.d, "my_sum").shares);
  CHECK(result(capped.d, "my_sum").shares_skipped == "not split: 2 causes (at most 1 are split)");
  lim.max_causes = 8;
  lim.max_reruns = 3;  // the first value spends them: the left value again, then each cause
  Diffed spent(lim);
  CHECK(result(spent.d, "my_sum").shares);
  CHECK(result(spent.d, "my_prod").shares_skipped == "not split: the diff's 3 re-runs are spent");
}

TEST_CASE("diff asserts: an assert that holds on one side and fails on the other is a difference") {
  Diffed x;
  REQUIRE(x.d.asserts.size() == 1);  // my_x < 1.5 s: 1 s holds, 2 s fails
  const AssertDiff& a = x.d.asserts[0];
  CHECK(a.text == "my_x < 1.5 s");
  REQUIRE(a.left);
  REQUIRE(a.right);
  CHECK(a.left->ok);
  CHECK_FALSE(a.right->ok);
  CHECK(a.left->at == "m.mls:17:8");
  CHECK(x.d.asserts_failed_both == 1);  // my_y > 100 s fails on both: counted, not a difference
  CHECK(x.d.differs());
  CHECK(format_assert_diffs_text(x.d).find("right: fails") != std::string::npos);
}
