// validation_memo_test.cpp — the validation assumption validated("family", x) lists is computed
// from its cases (a case list of the family's own, a quantity selecting some of them, the cases
// outside their band counted), once per process and configuration: every evaluator of a run (one
// per sweep) reuses the memo, another configuration computes its own, a rollback empties it.
#include <doctest/doctest.h>

#include <string>

#include "harness.hpp"
#include "interpreter/results/run_result.hpp"

using namespace mls;

namespace {
// Three cases of a family "toy": two measure quantity a (errors +10 % and -40 %, the second outside
// its 20 % band), one quantity b (+5 %, held out). The scenario reads them through validated().
const char* kToy = R"(
let toy_pred = 11
let toy_case(q, measured, predicted, held_out) = { family: "toy", quantity: q, measured: measured, predicted: predicted, held_out: held_out, band: 0.2, fits: true, error: case_error(measured, predicted), within: within_band(measured, predicted, 0.2, true) }
let toy_validation_cases = [toy_case("a", 10, toy_pred, false), toy_case("a", 10, 6, false), toy_case("b", 20, 21, true)]
show all = validated("toy", 1)
show a = validated("toy a", 2)
show b = validated("toy b", 3)
sweep s1 over x in 1..3 { show y = validated("toy a", x) }
sweep s2 over x in 1..3 { show y = validated("toy b", x) }
)";

std::string band(const Program& p, const Shown& s) {
  for (const auto& a : assumptions_of(scope_of(p), s.value.deps))
    if (a.kind == AssumptionKind::validation) return a.name + ": " + a.value;
  return "(none)";
}

std::string band_of(const Program& p, const Table& t) {
  for (const auto& a : assumptions_of(scope_of(p), t.col_deps.back()))
    if (a.kind == AssumptionKind::validation) return a.name + ": " + a.value;
  return "(none)";
}
}  // namespace

TEST_CASE("a validation band is computed from its family's cases, once per process and configuration") {
  Harness s;
  REQUIRE(prepare(s, "toy.mls", std::string(kToy)));
  const auto r = execute(s, Selection{}, RunOptions{});
  REQUIRE(r);
  REQUIRE(r->results.size() == 3);
  CHECK(band(s.prog, r->results[0]) ==
        "toy: median |error| 10.0 % (max 40.0 %) over 3 published measurements, 5.0 % on the 1 held out, 1 outside "
        "its band (predicted low); `mls validate`");
  CHECK(band(s.prog, r->results[1]) ==
        "toy a: median |error| 25.0 % (max 40.0 %) over 2 published measurements, 1 outside its band (predicted "
        "low); `mls validate`");
  CHECK(band(s.prog, r->results[2]) ==
        "toy b: median |error| 5.0 % (max 5.0 %) over 1 published measurements, 5.0 % on the 1 held out; `mls "
        "validate`");
  // The sweeps' evaluators reuse the texts: one memo entry per family of the toy list (and none
  // for the stdlib's families, which this run never met).
  REQUIRE(r->tables.size() == 2);
  CHECK(band_of(s.prog, r->tables[0]) == band(s.prog, r->results[1]));
  CHECK(band_of(s.prog, r->tables[1]) == band(s.prog, r->results[2]));
  CHECK(s.prog.validation_memo->text.size() == 3);

  // Another configuration: a case's prediction moves, the band with it (a memo entry of its own).
  Selection moved;
  moved.sets.emplace_back("toy_pred", "30");
  const auto r2 = execute(s, moved, RunOptions{});
  REQUIRE(r2);
  CHECK(band(s.prog, r2->results[1]) ==
        "toy a: median |error| 120.0 % (max 200.0 %) over 2 published measurements, all 2 outside their band; "
        "`mls validate`");
  CHECK(s.prog.validation_memo->text.size() == 6);

  // A rollback may free the `set` expressions the keys name: it empties the memo.
  const Program::Mark m = s.prog.begin_input();
  s.prog.rollback(m);
  CHECK(s.prog.validation_memo->text.empty());
}

TEST_CASE("a case's error and band verdict are read from the case, not recomputed") {
  // The verdict is the case's `within` field (validation.mls: within_band), so a configuration that
  // does not fit memory is outside its band however small its error, as `mls validate` counts it;
  // a case without the fields is refused rather than judged by a second rule.
  const char* src = R"(
let toy_validation_cases = [{ family: "toy", measured: 10, predicted: 10.5, held_out: false, band: 0.2, fits: false, error: case_error(10, 10.5), within: within_band(10, 10.5, 0.2, false) }]
let bare_validation_cases = [{ family: "bare", measured: 10, predicted: 11, held_out: false, band: 0.2, fits: true }]
show toy = validated("toy", 1)
show bare = validated("bare", 1)
)";
  Harness s;
  REQUIRE(prepare(s, "toy.mls", std::string(src)));
  const auto r = execute(s, Selection{}, RunOptions{});
  REQUIRE(r);
  REQUIRE(r->results.size() == 2);
  CHECK(band(s.prog, r->results[0]) ==
        "toy: median |error| 5.0 % (max 5.0 %) over 1 published measurements, 1 outside its band (predicted high); "
        "`mls validate`");
  CHECK(band(s.prog, r->results[1]) ==
        "bare: no validation set (a bare case has no numeric `error` or boolean `within`: build cases with "
        "validation.mls's case_error and within_band)");
}
