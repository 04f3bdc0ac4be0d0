// sweep_verify_test.cpp — the run-time check of the compiled sweep path (sweep_rows.cpp,
// SweepPoints::verify): a branch signature's first point is evaluated again by the tree-walker,
// and the two must agree to the bit on every shown cell, objective, subject-to condition and
// failing assert (disagreement), provenance aside. And end to end: sweeps and searches with all
// of those run compiled without the check tripping, and give the exact path's objectives,
// feasibility and asserts.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "harness.hpp"
#include "interpreter/runtime/sweep_points.hpp"

using namespace mls;

namespace {

Value num(double x, DepSet d = 0) { return Value::number(Num::of_double(x), d); }

// A point as the tree-walker gives it: two cells, the feasibility cell, an objective, assert 4
// failed, feasible.
PointOut evaluated() {
  PointOut o;
  o.cells = {num(0.1 + 0.2, 7), Value::boolean(true, 3), Value::boolean(true)};
  o.objectives = {num(2.5, 9)};
  o.feasible = true;
  o.failed_items = {4};
  return o;
}

// The same point as the compiled path reads it: no provenance, no feasibility cell.
PointOut compiled() {
  PointOut o;
  o.cells = {num(0.1 + 0.2), Value::boolean(true)};
  o.objectives = {num(2.5)};
  o.feasible = true;
  o.failed_items = {4};
  return o;
}

std::optional<RunResult> run_src(const std::string& src, std::size_t exact_limit) {
  Harness s;
  s.prog.reader = [&](const std::string& path) -> std::optional<std::string> {
    if (path != "main.mls") return std::nullopt;
    return src;
  };
  REQUIRE(prepare(s, "main.mls"));
  RunOptions opt;
  opt.exact_limit = exact_limit;
  opt.threads = 2;
  return execute(s, Selection{}, opt);
}

}  // namespace

TEST_CASE("the compiled point's check names what differs from the evaluator, to the bit") {
  CHECK(disagreement(evaluated(), compiled()).empty());  // provenance and the feasibility cell aside
  PointOut c = compiled();
  c.cells[0] = num(0.3);  // one ulp from 0.1 + 0.2
  CHECK(disagreement(evaluated(), c) == "column 1");
  c = compiled();
  c.cells[1] = num(1);  // a number where the evaluator has a boolean
  CHECK(disagreement(evaluated(), c) == "column 2");
  c = compiled();
  c.objectives[0] = num(-2.5);
  CHECK(disagreement(evaluated(), c) == "objective 1");
  PointOut zero = evaluated(), minus = compiled();
  zero.objectives[0] = num(0.0);
  minus.objectives[0] = num(-0.0);
  CHECK(disagreement(zero, minus) == "objective 1");
  c = compiled();
  c.objectives.clear();
  CHECK(disagreement(evaluated(), c) == "its objectives");
  c = compiled();
  c.feasible = false;
  CHECK(disagreement(evaluated(), c) == "its subject-to conditions");
  c = compiled();
  c.failed_items.clear();
  CHECK(disagreement(evaluated(), c) == "the asserts that fail");
  c = compiled();
  c.failed_items = {4, 6};
  CHECK(disagreement(evaluated(), c) == "the asserts that fail");
  PointOut filtered = evaluated();
  filtered.filtered = true;
  CHECK(disagreement(filtered, compiled()) == "its where conditions");
  PointOut short_row = evaluated();
  short_row.cells.resize(1);
  CHECK(disagreement(short_row, compiled()) == "column 2");
}

TEST_CASE("the signature cache keeps the first provenance inserted for a signature") {
  SignatureCache cache;
  CHECK(cache.find("ab") == nullptr);
  const std::vector<DepSet>* first = cache.insert("ab", {1, 2});
  const std::vector<DepSet>* again = cache.insert("ab", {3});
  CHECK(first == again);
  CHECK(*first == std::vector<DepSet>{1, 2});
  CHECK(cache.find("ab") == first);
  CHECK(cache.find(std::string("a\0", 2)) == nullptr);
}

// Every signature's first point is checked, objectives, conditions and asserts included; none
// trips, and the compiled search and sweep give what the exact path gives.
TEST_CASE("compiled sweeps and searches pass the check and match the exact path") {
  const std::string src =
      "sweep s over a in 1..30, b in [1, 2, 3] {\n"
      "  let m = max(a / b, 4)\n"
      "  subject to m < 9, a > 2\n"
      "  assert a * b < 60, \"small\"\n"
      "  show a, b, m\n"
      "}\n"
      "search q over a in 1..30, b in [1, 2, 3] {\n"
      "  subject to a / b < 9\n"
      "  assert a < 29, \"a below 29\"\n"
      "  maximize min(a * b, 40) - a / 7\n"
      "  top 4\n"
      "  show a, b\n"
      "}\n";
  const auto exact = run_src(src, 100000), fast = run_src(src, 0);
  REQUIRE(exact.has_value());
  REQUIRE(fast.has_value());
  REQUIRE(fast->tables.size() == 2);
  CHECK(fast->tables[0].engine == "binary64, compiled");
  CHECK(fast->tables[1].engine == "binary64, compiled");
  for (std::size_t t = 0; t < 2; ++t) {
    const Table &x = exact->tables[t], &f = fast->tables[t];
    CHECK(x.infeasible == f.infeasible);
    REQUIRE(x.rows.size() == f.rows.size());
    for (std::size_t r = 0; r < x.rows.size(); ++r) {
      REQUIRE(x.rows[r].cells.size() == f.rows[r].cells.size());
      for (std::size_t c = 0; c < x.rows[r].cells.size(); ++c) {
        INFO("table " << t << " row " << r << " column " << c);
        const Value &xv = x.rows[r].cells[c], &fv = f.rows[r].cells[c];
        CHECK(xv.k == fv.k);
        if (xv.k == Value::K::num) CHECK(xv.n.d == fv.n.d);
        if (xv.k == Value::K::boolean) CHECK(xv.b == fv.b);
      }
    }
  }
  CHECK(exact->asserts.size() == fast->asserts.size());
  std::size_t failed = 0;
  for (const auto& a : fast->asserts) failed += a.ok ? 0 : 1;
  CHECK(failed > 0);
}
