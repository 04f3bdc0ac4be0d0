// fastpath_opt_test.cpp — the compiled sweep code's optimiser (runtime/fastpath_opt.cpp): a
// computation repeated where the first one dominates it is read from the first, copies are read
// from their source, unread values that cannot fail go; nothing crosses a branch's arms, and an
// unread operation that can fail (overflow, a division by zero) stays. Checked on hand-written
// register code run by a small reference machine, and end to end against the formulas' bits.
#include "interpreter/runtime/fastpath_opt.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "fastpath_reference.hpp"
#include "harness.hpp"
#include "interpreter/runtime/fastpath_compiled.hpp"

using namespace mls;
using mls::fast::OptStats;
using namespace fast_ref;

// x, y are r0, r1; r2 holds 3 and r3 holds 1e300 from the start.
//   p = x * y; if x > 3 then (q = y * x; u = q + 1) else (w = x * y + 1; u = w * 1e300)
//   v = x * y + 1 (computed in an arm only before: not available here)
//   dead: x > y (can go), y / x (can divide by zero: stays), 1e300 * p (can overflow: stays)
TEST_CASE("the optimiser shares what dominates, never across arms, and keeps what can fail") {
  Compiled c;
  c.nregs = 20;
  c.nslots = 2;
  c.constants = {{2, 3.0}, {3, 1e300}, {19, 1.0}};
  CVal bx, by;
  bx.reg = 0;
  by.reg = 1;
  c.binding_shapes = {bx, by};
  c.code = {
      ins(FOp::mul, 4, 0, 1),         // 0  p = x * y
      ins(FOp::gt, 5, 0, 2),          // 1  x > 3
      ins(FOp::jz, 8, 5),             // 2  -> else
      ins(FOp::mark, 0, 0, 0, 0, 0),  // 3
      ins(FOp::mul, 6, 1, 0),         // 4  q = y * x   (= p, which dominates it)
      ins(FOp::add, 7, 6, 19),        // 5  q + 1
      ins(FOp::mov, 8, 7),            // 6  u = q + 1
      ins(FOp::jmp, 13),              // 7  -> join
      ins(FOp::mark, 0, 0, 0, 0, 1),  // 8  else
      ins(FOp::add, 10, 4, 19),       // 9  w = p + 1
      ins(FOp::mul, 11, 10, 3),       // 10 w * 1e300 (overflows unless |w| <= 1.79)
      ins(FOp::mov, 12, 11),          // 11 (a copy, read by the next only)
      ins(FOp::mov, 8, 12),           // 12 u = w * 1e300
      ins(FOp::add, 13, 19, 4),       // 13 v = 1 + p: the arms' p + 1 does not dominate it
      ins(FOp::gt, 14, 0, 1),         // 14 x > y, unread
      ins(FOp::div, 15, 1, 0),        // 15 y / x, unread (x = 0 fails)
      ins(FOp::mul, 16, 3, 4),        // 16 1e300 * p, unread (overflows for |p| > 1.79)
      ins(FOp::max, 17, 13, 8, 1),    // 17 max(v, u), arm in slot 1
      ins(FOp::mul, 18, 4, 17),       // 18 p * max(v, u)
  };
  c.regions = {{2, 13, 5, 0}};
  c.cells = {cell(8), cell(13), cell(18)};
  const Compiled before = c;
  const OptStats st = mls::fast::optimise(c);
  // Gone: q (the same as p), the copy at 11, x > y. Kept: everything else, the unread
  // division and overflowing multiplication among them, and both arms' writes of u.
  CHECK(st.cse == 1);
  CHECK(st.copies == 1);
  CHECK(st.dead == 1);
  CHECK(c.code.size() == before.code.size() - 3);
  CHECK(count(c, FOp::div) == 1);
  CHECK(count(c, FOp::mul) == count(before, FOp::mul) - 1);
  CHECK(count(c, FOp::add) == 3);  // q + 1, w + 1 and 1 + p: an arm's sum is not the join's
  CHECK(count(c, FOp::gt) == 1);
  REQUIRE(c.regions.size() == 1);
  CHECK(c.regions[0].begin == 2);
  CHECK(c.regions[0].end == 11);
  // The same cells, signature and failures for points on both arms, failing or not.
  for (double x : {-4.0, -1.0, 0.0, 0.5, 2.0, 3.0, 3.5, 5.0})
    for (double y : {-2.0, 0.0, 0.25, 1.0, 7.0, 1e-300}) {
      INFO("x " << x << " y " << y);
      const Run want = run_code(before, x, y), got = run_code(c, x, y);
      CHECK(want.failed == got.failed);
      CHECK(want.sig == got.sig);
      REQUIRE(want.cells.size() == got.cells.size());
      for (std::size_t k = 0; k < want.cells.size(); ++k) CHECK(same_bits(want.cells[k], got.cells[k]));
    }
}

// x in [1, 10], y in [-1, 1] (their domains). 1 / x cannot fail, 1 / y can (y = 0); 0 * x is
// +0, so x + 0 * x is x; y + 0 * x is not y when y is -0; (x * 2) * 0.5 is x, (x * 3) * 4 is
// x * 12 (x * 3 is normal: scaling it by 4 rounds as scaling x * 12 does).
TEST_CASE("the optimiser drops what provably cannot fail and folds +0 and exact scalings") {
  Compiled c = two_inputs(20, 0);
  c.constants = {{2, 0.0}, {3, 1.0}, {9, 2.0}, {10, 0.5}, {14, 3.0}, {17, 4.0}};
  c.code = {
      ins(FOp::div, 4, 3, 0),     // 0 1 / x, unread: goes
      ins(FOp::div, 5, 3, 1),     // 1 1 / y, unread: stays
      ins(FOp::mul, 6, 2, 0),     // 2 0 * x: +0
      ins(FOp::add, 7, 0, 6),     // 3 x + 0 * x: x
      ins(FOp::add, 8, 1, 6),     // 4 y + 0 * x: stays
      ins(FOp::mul, 11, 0, 9),    // 5 x * 2
      ins(FOp::mul, 12, 11, 10),  // 6 (x * 2) * 0.5: x
      ins(FOp::mul, 13, 1, 2),    // 7 y * 0: -0 for negative y, stays
      ins(FOp::mul, 15, 0, 14),   // 8 x * 3
      ins(FOp::mul, 16, 15, 17),  // 9 (x * 3) * 4: x * 12
  };
  c.cells = {cell(7), cell(8), cell(12), cell(13), cell(16)};
  const Compiled before = c;
  const std::vector<mls::fast::InputRange> inputs = {{0, 1, 10, true}, {1, -1, 1, false}};
  mls::fast::optimise(c, inputs);
  CHECK(count(c, FOp::div) == 1);
  REQUIRE(c.code.size() == 4);
  CHECK(c.code[0].op == FOp::div);
  CHECK(c.code[0].b == 1);
  CHECK(c.code[1].op == FOp::add);  // y + 0
  CHECK(c.code[2].op == FOp::mul);  // y * 0
  CHECK(c.code[3].op == FOp::mul);  // x * 12
  CHECK(c.code[3].a == 0);
  CHECK(c.cells[4].reg == c.code[3].d);
  CHECK(c.cells[0].reg == 0);
  CHECK(c.cells[2].reg == 0);
  for (double x : {1.0, 2.5, 10.0})
    for (double y : {-1.0, -0.0, 0.0, 0.5, 1.0}) same_runs(before, c, x, y);
  // Without the domains nothing is known: everything stays.
  Compiled blind = before;
  mls::fast::optimise(blind);
  CHECK(count(blind, FOp::div) == 2);
  CHECK(blind.code.size() == before.code.size());
}

// b = x < 1; `b or false` writes +0 where b is +0 (the arm that runs when not b is not zero)
// and b elsewhere: it is b, and its `not` the same as b's.
TEST_CASE("a branch result that is its condition on every arm is the condition") {
  Compiled c = two_inputs(10, 1);
  c.constants = {{6, 1.0}};
  c.code = {
      ins(FOp::lt, 2, 0, 6),          // 0 b = x < 1
      ins(FOp::not_, 3, 2),           // 1 not b
      ins(FOp::jz, 6, 3),             // 2 b -> 6
      ins(FOp::mark, 0, 0, 0, 0, 1),  // 3
      ins(FOp::movi, 4, 0, 0, 0, 0),  // 4 r = false (b is +0 here)
      ins(FOp::jmp, 8),               // 5
      ins(FOp::mark, 0, 0, 0, 0, 0),  // 6
      ins(FOp::mov, 4, 2),            // 7 r = b
      ins(FOp::not_, 5, 4),           // 8 not r
  };
  c.regions = {{1, 8, 2, 0}};
  c.cells = {cell(4), cell(5)};
  const Compiled before = c;
  mls::fast::optimise(c, {{0, -2, 2, false}});
  CHECK(c.code.size() == 6);  // the two writes of r and the second `not` gone
  CHECK(c.cells[0].reg == 2);
  CHECK(c.cells[1].reg == 3);
  for (double x : {-2.0, 0.0, 0.5, 1.0, 2.0}) same_runs(before, c, x, 0);
}

namespace {

std::optional<RunResult> run_src(const std::string& src, unsigned threads) {
  Harness s;
  s.prog.reader = [&](const std::string& path) -> std::optional<std::string> {
    if (path != "main.mls") return std::nullopt;
    return src;
  };
  REQUIRE(prepare(s, "main.mls"));
  RunOptions opt;
  opt.exact_limit = 0;  // binary64, compiled
  opt.threads = threads;
  return execute(s, Selection{}, opt);
}

}  // namespace

// The same products inside an arm, after it, and in a function inlined twice; the arm's copy
// is not the one after the join (y > 13 decides per point, inner variable, lanes and one by one).
TEST_CASE("shared subexpressions give the exact path's bits on every arm") {
  const std::string src =
      "let f(u, v) = u * v + u / v\n"
      "sweep t over a in [1, 2, 3], y in 1..40 {\n"
      "  let z = if y > 13 then y * a / 3 + f(y, a) else y - a\n"
      "  let w = y * a / 3 + f(y, a)\n"
      "  let bad = (y < 1 or a > 3) or y > 40\n"
      "  show a, y, z, w, s = z + w * f(y, a), m = max(z, w) + y * a,\n"
      "       v = if bad then 0 else y * 0 + a * 2 / 2 + y / a / (a + y)\n"
      "}\n";
  for (unsigned threads : {1u, 2u}) {
    const auto fast = run_src(src, threads);
    REQUIRE(fast.has_value());
    const Table& t = fast->tables.at(0);
    CHECK(t.engine == "binary64, compiled");
    REQUIRE(t.rows.size() == 120);
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const double a = static_cast<double>(i / 40 + 1), y = static_cast<double>(i % 40 + 1);
      const double f = y * a + y / a, w = y * a / 3 + f, z = y > 13 ? y * a / 3 + f : y - a;
      const double v = y * 0 + a * 2 / 2 + y / a / (a + y);
      const std::vector<double> want = {a, y, z, w, z + w * f, (z > w ? z : w) + y * a, v};
      REQUIRE(t.rows[i].cells.size() == want.size());
      for (std::size_t k = 0; k < want.size(); ++k) {
        INFO("threads " << threads << " a " << a << " y " << y << " column " << k);
        CHECK(same_bits(t.rows[i].cells[k].n.d, want[k]));
      }
    }
  }
}
