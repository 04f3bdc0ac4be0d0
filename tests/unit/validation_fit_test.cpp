// validation_fit_test.cpp — an out-of-sample refit reaches its optimum (issue 34): a family whose
// prediction is far from linear in its fitted constant, so one Gauss-Newton step from the committed
// value lands far from where the other source's cases put it; the left-out source's error is then
// that of the refit's optimum, not of the step.
#include <doctest/doctest.h>

#include <string>

#include "harness.hpp"
#include "interpreter/runtime/validation.hpp"

using namespace mls;

namespace {
// One constant toy_c (committed 1, bounds 0.01 to 100). Source a predicts 10 * toy_c (its cases
// want toy_c = 1); source b predicts 1 + toy_c (its cases want toy_c = 8: log(1 + c) is far from
// linear in log c). Without a, the refit on b alone is toy_c = 8 exactly, so a's cases are predicted
// 80 against 10: out of sample +700 %. One step from toy_c = 1 (sensitivity ~0.5) gives toy_c ~19.
const char* kToy = R"(
set validation_families = [{ name: "toy", family: "toy", quantity: "", lists: ["toy_cases"], calibration: "toy_calibration" }]
let toy_calibration = [{ names: ["toy_c"], lower: 0.01, upper: 100, null: 1 }]
let toy_c = 1
let dom = { accelerator: "X", generation: "g", vendor: "v", moe: false, precision: "16-bit" }
let toy_case(id, measured, predicted) = { id: id, family: "toy", source: id, system: "", held_out: false, metric: "m", unit_text: "", quantity: "", measured: measured, predicted: predicted, band: 0.2, fits: true, error: case_error(measured, predicted), within: within_band(measured, predicted, 0.2, true), expressible: true, reason: "", domain: case_domain(dom, "", 8) }
let toy_cases = [toy_case("a_1", 10, 10 * toy_c), toy_case("a_2", 20, 20 * toy_c), toy_case("b_1", 9, 1 + toy_c), toy_case("b_2", 18, 2 * (1 + toy_c))]
)";
}  // namespace

TEST_CASE("a leave-one-source-out refit iterates to its optimum, not one step from the committed constants") {
  Harness s;
  REQUIRE(prepare(s, "toy.mls", std::string(kToy)));
  REQUIRE(s.core.configure(Selection{}));
  const auto t = validation_table(s.prog, *s.core.config(), "toy", ValidationDepth::cross_validated);
  REQUIRE(t);
  REQUIRE(t->cases.size() == 4);
  REQUIRE(t->fit.size() == 1);
  for (const CaseRow& c : t->cases) {
    CAPTURE(c.id);
    if (c.source_key == "a")
      CHECK(c.loso_error == doctest::Approx(7.0).epsilon(0.01));  // toy_c = 8 from b's cases (one step: ~+18)
    else
      CHECK(c.loso_error == doctest::Approx(-7.0 / 9).epsilon(0.01));  // toy_c = 1 from a's cases: 2 against 9
  }
}
