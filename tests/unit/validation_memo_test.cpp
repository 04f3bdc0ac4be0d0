// validation_memo_test.cpp — the validation assumption validated("family", x) lists is the band of
// x's domain, computed from the family's cases (the lists the registry names, a quantity selecting
// some of them) once per process and configuration: in-domain when the domain has enough cases from
// enough sources, else extrapolated from the nearest validated domain and widened; every evaluator
// of a run (one per sweep) reuses the atoms, another configuration computes its own, a rollback
// empties the memo; a case without its error or verdict is refused, not judged by a second rule.
#include <doctest/doctest.h>

#include <string>

#include "harness.hpp"
#include "interpreter/results/run_result.hpp"

using namespace mls;

namespace {
// A family "toy" of its own, registered by a `set` of the registry: three cases on accelerator X
// from three sources (errors +10 %, +20 %, +5 %), one on Y (+30 %); quantity a selects three.
const char* kToy = R"(
set validation_families = [
  { name: "toy", family: "toy", quantity: "", lists: ["toy_cases"], calibration: "" },
  { name: "toy a", family: "toy", quantity: "a", lists: ["toy_cases"], calibration: "" }]
let toy_pred = 11
let dom(acc) = { accelerator: acc, generation: "g", vendor: "v", moe: false, precision: "16-bit" }
let toy_case(id, q, acc, measured, predicted) = { id: id, family: "toy", source: id, system: "", held_out: false, metric: "m", unit_text: "", quantity: q, measured: measured, predicted: predicted, band: 0.2, fits: true, error: case_error(measured, predicted), within: within_band(measured, predicted, 0.2, true), expressible: true, reason: "", domain: case_domain(dom(acc), "", 8) }
let toy_cases = [toy_case("s1_a", "a", "X", 10, toy_pred), toy_case("s2_a", "a", "X", 10, 12), toy_case("s3_b", "b", "X", 20, 21), toy_case("s4_y", "a", "Y", 10, 13)]
show all = validated("toy", 1)
show x = validated_in("toy", dom("X"), 2)
show y = validated_in("toy", dom("Y"), 3)
sweep s1 over k in 1..3 { show v = validated_in("toy", dom("X"), k) }
)";

AssumptionView band(const Program& p, DepSet d) {
  for (const auto& a : assumptions_of(scope_of(p), d))
    if (a.kind == AssumptionKind::validation) return a;
  return {};
}
}  // namespace

TEST_CASE("a validation band is its domain's, computed once per process and configuration") {
  Harness s;
  REQUIRE(prepare(s, "toy.mls", std::string(kToy)));
  const auto r = execute(s, Selection{}, RunOptions{});
  REQUIRE(r);
  REQUIRE(r->results.size() == 3);
  const AssumptionView all = band(s.prog, r->results[0].value.deps);
  CHECK(all.value ==
        "every domain: median |error| 15.0 %, max 30.0 % over 4 measurements from 4 sources; band ±30.0 %; `mls "
        "validate`");
  CHECK(all.domain == "all toy cases");
  const AssumptionView x = band(s.prog, r->results[1].value.deps);
  CHECK(x.value ==
        "X dense 16-bit: median |error| 10.0 %, max 20.0 % over 3 measurements from 3 sources; band "
        "±20.0 %; `mls validate`");
  CHECK(x.band == doctest::Approx(0.2));
  CHECK(!x.extrapolated);
  CHECK(x.in_domain());
  // One case on Y: the nearest validated domain's band, widened by the family's spread.
  const AssumptionView y = band(s.prog, r->results[2].value.deps);
  CHECK(y.value ==
        "extrapolated: only 1 measurement from 1 source on Y dense 16-bit (a domain needs 3 from 2); nearest "
        "validated: X dense 16-bit (band ±20.0 % over 3 measurements from 3 sources), widened by ±30.0 %, the "
        "family's spread over all its cases; band ±50.0 %; `mls validate`");
  CHECK(y.extrapolated);
  CHECK(!y.in_domain());
  CHECK(y.band == doctest::Approx(0.5));
  // The sweep's evaluator reuses the atom: one memo entry per family and domain met.
  REQUIRE(r->tables.size() == 1);
  CHECK(band(s.prog, r->tables[0].col_deps.back()).value == x.value);
  CHECK(s.prog.validation_memo->atoms.size() == 3);

  // Another configuration: a case's prediction moves, the band with it (a memo entry of its own).
  Selection moved;
  moved.sets.emplace_back("toy_pred", "30");
  const auto r2 = execute(s, moved, RunOptions{});
  REQUIRE(r2);
  CHECK(band(s.prog, r2->results[1].value.deps).value ==
        "X dense 16-bit: median |error| 20.0 %, max 200.0 % over 3 measurements from 3 sources; band ±200.0 %; `mls "
        "validate`");
  CHECK(s.prog.validation_memo->atoms.size() == 6);

  // A rollback may free the `set` expressions the keys name: it empties the memo.
  const Program::Mark m = s.prog.begin_input();
  s.prog.rollback(m);
  CHECK(s.prog.validation_memo->atoms.empty());
}

TEST_CASE("a case without its error or verdict is refused, not judged by a second rule") {
  const char* src = R"(
set validation_families = [{ name: "bare", family: "bare", quantity: "", lists: ["bare_cases"], calibration: "" }]
let bare_cases = [{ id: "b_1", family: "bare", measured: 10, predicted: 11, held_out: false, band: 0.2, fits: true }]
show bare = validated("bare", 1)
)";
  Harness s;
  REQUIRE(prepare(s, "toy.mls", std::string(src)));
  const auto r = execute(s, Selection{}, RunOptions{});
  REQUIRE(r);
  REQUIRE(r->results.size() == 1);
  CHECK(band(s.prog, r->results[0].value.deps).value ==
        "no validation set (a bare case has no numeric `error` or boolean `within`: build cases with validation.mls's "
        "case_error and within_band)");
}

TEST_CASE("an extrapolated band is never narrower than the domain's own cases' largest error") {
  // X: ten cases from ten sources within 10 %; Z: one case at +200 % (too few to validate Z). Z's
  // band from the rule alone, X's 10 % widened by the family's spread (the 90th percentile of all
  // eleven: 10 %), would be 20 %, far below what was measured on Z itself.
  const char* src = R"(
set validation_families = [{ name: "toy", family: "toy", quantity: "", lists: ["toy_cases"], calibration: "" }]
let dom(acc) = { accelerator: acc, generation: "g", vendor: "v", moe: false, precision: "16-bit" }
let c(id, acc, measured, predicted) = { id: id, family: "toy", source: id, system: "", held_out: false, metric: "m", unit_text: "", measured: measured, predicted: predicted, band: 0.2, fits: true, error: case_error(measured, predicted), within: within_band(measured, predicted, 0.2, true), expressible: true, reason: "", domain: case_domain(dom(acc), "", 8) }
let toy_cases = [c("a_1", "X", 10, 11), c("b_1", "X", 10, 10.5), c("d_1", "X", 10, 9.5), c("f_1", "X", 10, 10.5),
                 c("g_1", "X", 10, 10.5), c("h_1", "X", 10, 10.5), c("i_1", "X", 10, 10.5), c("j_1", "X", 10, 10.5),
                 c("k_1", "X", 10, 10.5), c("l_1", "X", 10, 10.5), c("e_1", "Z", 10, 30)]
show z = validated_in("toy", dom("Z"), 1)
)";
  Harness s;
  REQUIRE(prepare(s, "toy.mls", std::string(src)));
  const auto r = execute(s, Selection{}, RunOptions{});
  REQUIRE(r);
  const AssumptionView z = band(s.prog, r->results[0].value.deps);
  CHECK(z.extrapolated);
  CHECK(z.band == doctest::Approx(2.0));
  CHECK(z.value.find("and at least its own cases' largest error, 200.0 %") != std::string::npos);
}
