// fastpath_passes_test.cpp — each of the optimiser's passes (runtime/fastpath_passes.hpp) alone:
// the facts against brute force (a dominator is an instruction every path to the other runs),
// and every rewrite against the reference machine (the same cells, signature and failures
// before and after), with what each pass must keep.
#include "interpreter/runtime/fastpath_passes.hpp"

#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "fastpath_reference.hpp"

using namespace fast_ref;
namespace passes = mls::fast::passes;
using mls::fast::OptStats;
using passes::kNone;

namespace {

// Whether every path from instruction 0 to `to` runs `d` (brute force: with `d` taken out,
// `to` cannot be reached), and whether `to` is reachable at all.
bool reaches(const Compiled& c, std::uint32_t to, std::uint32_t without) {
  std::vector<std::uint8_t> on(c.code.size() + 1, 0);
  if (without == 0) return false;
  on[0] = 1;
  for (std::uint32_t pc = 0; pc < c.code.size(); ++pc) {
    if (!on[pc] || pc == without) continue;
    const Ins& i = c.code[pc];
    if (i.op == FOp::jmp) {
      on[i.d] = 1;
    } else if (i.op == FOp::jz) {
      on[pc + 1] = 1;
      on[i.d] = 1;
    } else if (i.op != FOp::fail) {
      on[pc + 1] = 1;
    }
  }
  return on[to] != 0;
}

// The immediate dominator by brute force: of the instructions that dominate `pc` (other than
// itself), the last one (dominators of one instruction are ordered along every path).
std::uint32_t brute_idom(const Compiled& c, std::uint32_t pc) {
  if (!reaches(c, pc, kNone)) return kNone;
  if (pc == 0) return 0;
  std::uint32_t best = kNone;
  for (std::uint32_t d = 0; d < pc; ++d)
    if (!reaches(c, pc, d)) best = d;
  return best;
}

// Applies what the passes decided.
void apply(Compiled& c, const passes::Rewrite& rw) {
  passes::read_representatives(c, rw);
  passes::compact(c, rw);
}

void same_on_grid(const Compiled& before, const Compiled& after, const std::vector<double>& xs,
                  const std::vector<double>& ys) {
  for (double x : xs)
    for (double y : ys) same_runs(before, after, x, y);
}

}  // namespace

// if x > 3 then (mark 0; u = x) else (mark 1; u = y); v = u * y; if v then w = v + x else
// (fail; an instruction only the fail falls into). Each arm is dominated by the jz, the join by
// it too (by neither arm), the second jz's target by that jz (the fail ends its arm).
TEST_CASE("facts: dominators, predecessors and def sites of a branch") {
  Compiled c = two_inputs(10, 1);
  c.constants = {{2, 3.0}};
  c.code = {
      ins(FOp::gt, 3, 0, 2),          // 0 x > 3
      ins(FOp::jz, 5, 3),             // 1 -> else
      ins(FOp::mark, 0, 0, 0, 0, 0),  // 2
      ins(FOp::mov, 4, 0),            // 3 u = x
      ins(FOp::jmp, 7),               // 4 -> join
      ins(FOp::mark, 0, 0, 0, 0, 1),  // 5 else
      ins(FOp::mov, 4, 1),            // 6 u = y
      ins(FOp::mul, 5, 4, 1),         // 7 v = u * y
      ins(FOp::jz, 11, 5),            // 8 v = 0 -> 11
      ins(FOp::fail, 0),              // 9
      ins(FOp::mov, 6, 0),            // 10 after the fail: unreachable
      ins(FOp::add, 7, 5, 0),         // 11 w = v + x
  };
  const passes::Facts f = passes::facts_of(c);
  CHECK(f.idom == std::vector<std::uint32_t>{0, 0, 1, 2, 3, 1, 5, 1, 7, 8, kNone, 8});
  for (std::uint32_t pc = 0; pc < c.code.size(); ++pc) CHECK(f.idom[pc] == brute_idom(c, pc));
  CHECK_FALSE(f.reachable(10));
  CHECK(f.npred[7] == 2);
  CHECK(f.pred[7] == 6);  // the last
  CHECK(f.npred[5] == 1);
  CHECK(f.pred[5] == 1);
  CHECK(f.npred[11] == 1);  // from 8 only: 9 fails, 10 is unreachable
  CHECK(f.pred[11] == 8);
  CHECK(f.npred[10] == 0);
  CHECK(f.writers(4) == 2);
  CHECK(f.sites(4) == std::vector<std::uint32_t>{3, 6});
  CHECK(f.writers(5) == 1);
  CHECK(f.writers(99) == 0);  // a register made later
  CHECK(f.written_between(4, 0, 7));
  CHECK(f.written_between(4, 3, 7));
  CHECK_FALSE(f.written_between(4, 6, 7));
  CHECK_FALSE(f.written_between(5, 0, 11));
  // The dominator tree, children in instruction order.
  auto kids = [&](std::uint32_t pc) {
    std::vector<std::uint32_t> out;
    for (std::uint32_t k = f.first_child[pc]; k != kNone; k = f.next_sibling[k]) out.push_back(k);
    return out;
  };
  CHECK(kids(1) == std::vector<std::uint32_t>{2, 5, 7});
  CHECK(kids(8) == std::vector<std::uint32_t>{9, 11});
  CHECK(kids(9).empty());
}

// Random forward jumps, conditional and not, and fails: the dominators agree with brute force.
TEST_CASE("facts: dominators agree with brute force on random code") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    Compiled c = two_inputs(4, 0);
    const std::uint32_t n = 2 + rng() % 30;
    for (std::uint32_t pc = 0; pc < n; ++pc) {
      const std::uint32_t to = pc + 1 + rng() % (n - pc);
      switch (rng() % 6) {
        case 0: c.code.push_back(ins(FOp::jz, to, 0)); break;
        case 1: c.code.push_back(ins(FOp::jmp, to)); break;
        case 2:
          if (rng() % 3 == 0) {
            c.code.push_back(ins(FOp::fail, 0));
            break;
          }
          [[fallthrough]];
        default: c.code.push_back(ins(FOp::add, 2, 0, 1)); break;
      }
    }
    const passes::Facts f = passes::facts_of(c);
    for (std::uint32_t pc = 0; pc < n; ++pc) {
      INFO("trial " << trial << " pc " << pc);
      CHECK(f.idom[pc] == brute_idom(c, pc));
    }
  }
}

// p = x * y before a branch whose arms write u; q = y * x in an arm and after the join (both
// the same as p); s = u * x before the branch and t = u * x after it (u written in between: not
// the same); x + y in each arm (neither arm's dominates the other's, nor the join's y + x).
TEST_CASE("share_dominating: what dominates, no operand written since, never across arms") {
  Compiled c = two_inputs(20, 1);
  c.constants = {{2, 3.0}};
  c.code = {
      ins(FOp::mul, 4, 0, 1),         // 0  p = x * y
      ins(FOp::mul, 5, 8, 0),         // 1  s = u * x (u from before: 0)
      ins(FOp::gt, 6, 0, 2),          // 2  x > 3
      ins(FOp::jz, 10, 6),            // 3  -> else
      ins(FOp::mark, 0, 0, 0, 0, 0),  // 4
      ins(FOp::mul, 7, 1, 0),         // 5  q = y * x: p
      ins(FOp::add, 10, 0, 1),        // 6  x + y
      ins(FOp::add, 17, 10, 7),       // 7  x + y + q
      ins(FOp::mov, 8, 17),           // 8  u = x + y + q
      ins(FOp::jmp, 13),              // 9  -> join
      ins(FOp::mark, 0, 0, 0, 0, 1),  // 10 else
      ins(FOp::add, 11, 0, 1),        // 11 x + y: not the other arm's
      ins(FOp::mov, 8, 11),           // 12 u = x + y
      ins(FOp::add, 12, 1, 0),        // 13 y + x: neither arm's
      ins(FOp::mul, 13, 8, 0),        // 14 t = u * x: not s (u written since)
      ins(FOp::mul, 14, 0, 1),        // 15 x * y: p
      ins(FOp::mov, 15, 14),          // 16 a copy of it
      ins(FOp::add, 16, 15, 8),       // 17 p + u
  };
  c.regions = {{3, 13, 6, 0}};
  c.cells = {cell(4), cell(5), cell(8), cell(12), cell(13), cell(15), cell(16)};
  const Compiled before = c;
  const passes::Facts f = passes::facts_of(c);
  passes::Rewrite rw(c);
  OptStats st;
  passes::share_dominating(c, f, rw, st);
  CHECK(st.cse == 2);     // q at 5, x * y at 15
  CHECK(st.copies == 1);  // 16 (the arms' moves write u twice: not copies)
  CHECK(std::vector<std::uint8_t>(rw.removed.begin(), rw.removed.end()) ==
        std::vector<std::uint8_t>{0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0});
  apply(c, rw);
  CHECK(count(c, FOp::mul) == 3);  // p, s, t
  CHECK(count(c, FOp::add) == 5);
  CHECK(c.code[6].b == 4);   // the arm's x + y + q reads p
  CHECK(c.code[14].a == 4);  // p + u
  CHECK(c.cells[5].reg == 4);
  CHECK(c.regions[0].begin == 3);
  CHECK(c.regions[0].end == 12);
  same_on_grid(before, c, {-1.0, 0.0, 2.0, 3.0, 4.0, 1e200}, {-3.0, 0.0, 0.5, 1e200});
}

// x in [1, 10], y in [-1, 1]. 0 * x is +0: x + 0 * x is x, but y + 0 * x is not y (y can be -0);
// (x * 2) * 0.5 is x and (x * 3) * 4 is x * 12; 3 * 4 is the constant 12 (its register made);
// a comparison of bounded values is no constant (it is 0 or 1).
TEST_CASE("fold_ranges: +0, identities, exact scalings and constants, from the domains") {
  Compiled c = two_inputs(20, 0);
  c.constants = {{2, 0.0}, {3, 1.0}, {9, 2.0}, {10, 0.5}, {14, 3.0}, {17, 4.0}};
  c.code = {
      ins(FOp::mul, 6, 2, 0),     // 0 0 * x: +0
      ins(FOp::add, 7, 0, 6),     // 1 x + 0 * x: x
      ins(FOp::add, 8, 1, 6),     // 2 y + 0 * x: stays
      ins(FOp::mul, 11, 0, 9),    // 3 x * 2
      ins(FOp::mul, 12, 11, 10),  // 4 (x * 2) * 0.5: x
      ins(FOp::mul, 15, 0, 14),   // 5 x * 3
      ins(FOp::mul, 16, 15, 17),  // 6 (x * 3) * 4: x * 12
      ins(FOp::mul, 18, 14, 17),  // 7 3 * 4: 12
      ins(FOp::gt, 19, 0, 1),     // 8 x > y
  };
  c.cells = {cell(7), cell(8), cell(12), cell(16), cell(18), cell(19)};
  const Compiled before = c;
  const passes::Facts f = passes::facts_of(c);
  passes::Rewrite rw(c);
  OptStats st;
  const std::vector<passes::Range> ranges = passes::fold_ranges(c, f, rw, {{0, 1, 10, true}, {1, -1, 1, false}}, st);
  CHECK(c.nregs == 21);  // +0 exists already; 12 is new
  REQUIRE(ranges.size() == 21);
  CHECK(ranges[19].boolean);
  CHECK(ranges[8].lo == -1);
  CHECK(ranges[8].hi == 1);
  CHECK(st.folded == 5);  // 0, 1, 4 and 7 folded away, 6 rewritten
  apply(c, rw);
  CHECK(c.code.size() == 5);  // x * 2 and x * 3 stay (dead code is not this pass's)
  CHECK(c.cells[0].reg == 0);
  CHECK(c.cells[2].reg == 0);
  CHECK(c.cells[4].reg == 20);
  CHECK(c.code[3].op == FOp::mul);  // x * 12
  CHECK(c.code[3].a == 0);
  CHECK(c.code[3].b == 20);
  CHECK(c.cells[3].reg == c.code[3].d);
  same_on_grid(before, c, {1.0, 2.5, 10.0}, {-1.0, -0.0, 0.0, 0.5, 1.0});
  // Without the domains only the constants fold.
  Compiled blind = before;
  passes::Rewrite rw2(blind);
  OptStats st2;
  passes::fold_ranges(blind, passes::facts_of(blind), rw2, {}, st2);
  CHECK(st2.folded == 1);
}

// b = x < 1; `b or false` writes +0 where b is +0 (the arm that runs when not b is not zero)
// and b elsewhere: it is b. The same with 1 in the arm where b is 0 is not b.
TEST_CASE("fold_ranges: a branch result its arms write from one register is that register") {
  for (const double written : {0.0, 1.0}) {
    Compiled c = two_inputs(10, 1);
    c.constants = {{6, 1.0}};
    c.code = {
        ins(FOp::lt, 2, 0, 6),                // 0 b = x < 1
        ins(FOp::not_, 3, 2),                 // 1 not b
        ins(FOp::jz, 6, 3),                   // 2 b -> 6
        ins(FOp::mark, 0, 0, 0, 0, 1),        // 3
        ins(FOp::movi, 4, 0, 0, 0, written),  // 4 r = false (or true) here, where b is +0
        ins(FOp::jmp, 8),                     // 5
        ins(FOp::mark, 0, 0, 0, 0, 0),        // 6
        ins(FOp::mov, 4, 2),                  // 7 r = b
        ins(FOp::not_, 5, 4),                 // 8 not r
    };
    c.regions = {{1, 8, 2, 0}};
    c.cells = {cell(4), cell(5)};
    const Compiled before = c;
    passes::Rewrite rw(c);
    OptStats st;
    passes::fold_ranges(c, passes::facts_of(c), rw, {{0, -2, 2, false}}, st);
    apply(c, rw);
    INFO("written " << written);
    CHECK(st.copies == (written == 0 ? 1 : 0));
    CHECK(c.code.size() == (written == 0 ? 7 : 9));
    CHECK((c.cells[0].reg == 2) == (written == 0));
    same_on_grid(before, c, {-2.0, 0.0, 0.5, 1.0, 2.0}, {0.0});
  }
}

// Unread: x > y (goes), y / x (x can be 0: stays), 1e300 * x (can overflow: stays), and a
// chain x + 1 -> (x + 1) * 2 that goes whole once the ranges bound x.
TEST_CASE("drop_dead: unread values that cannot fail go, backwards; what can fail stays") {
  Compiled c = two_inputs(12, 0);
  c.constants = {{2, 1e300}, {3, 1.0}, {4, 2.0}};
  c.code = {
      ins(FOp::gt, 5, 0, 1),   // 0 x > y
      ins(FOp::div, 6, 1, 0),  // 1 y / x
      ins(FOp::mul, 7, 2, 0),  // 2 1e300 * x
      ins(FOp::add, 8, 0, 3),  // 3 x + 1
      ins(FOp::mul, 9, 8, 4),  // 4 (x + 1) * 2
      ins(FOp::neg, 10, 9),    // 5 -((x + 1) * 2)
      ins(FOp::neg, 11, 1),    // 6 -y, read
  };
  c.cells = {cell(11)};
  const Compiled before = c;
  SUBCASE("nothing known of the values: only what cannot fail on any finite numbers") {
    passes::Rewrite rw(c);
    OptStats st;
    passes::drop_dead(c, {}, rw, st);
    apply(c, rw);
    CHECK(st.dead == 2);  // x > y, the neg
    CHECK(c.code.size() == 5);
    same_on_grid(before, c, {-1.0, 0.0, 1e10}, {0.0, 2.0});
  }
  SUBCASE("x in [-5, 5]: the chain cannot overflow, 1e300 * x can, y / x can divide by zero") {
    passes::Rewrite rw(c);
    OptStats st;
    const std::vector<passes::Range> ranges =
        passes::fold_ranges(c, passes::facts_of(c), rw, {{0, -5, 5, false}, {1, -1, 1, false}}, st);
    passes::read_representatives(c, rw);
    passes::drop_dead(c, ranges, rw, st);
    passes::compact(c, rw);
    CHECK(st.dead == 4);
    REQUIRE(c.code.size() == 3);
    CHECK(c.code[0].op == FOp::div);
    CHECK(c.code[1].op == FOp::mul);
    same_on_grid(before, c, {-5.0, 0.0, 1e-310, 5.0}, {-1.0, 0.0, 1.0});
  }
}

// Removed instructions (unread ones here) go; the jump over them and the branch's extent move.
TEST_CASE("compact: jumps and branch extents move to the next instruction kept") {
  Compiled c = two_inputs(10, 1);
  c.constants = {{2, 1.0}};
  c.code = {
      ins(FOp::gt, 3, 0, 1),          // 0 x > y
      ins(FOp::add, 9, 0, 0),         // 1 unread
      ins(FOp::jz, 7, 3),             // 2 -> else
      ins(FOp::mark, 0, 0, 0, 0, 0),  // 3
      ins(FOp::add, 4, 0, 2),         // 4 u = x + 1
      ins(FOp::mul, 8, 0, 0),         // 5 unread
      ins(FOp::jmp, 10),              // 6 -> join
      ins(FOp::mark, 0, 0, 0, 0, 1),  // 7 else
      ins(FOp::add, 4, 1, 2),         // 8 u = y + 1
      ins(FOp::mul, 8, 1, 1),         // 9 unread, the arm's last
      ins(FOp::add, 5, 4, 4),         // 10 u + u
  };
  c.regions = {{2, 10, 3, 0}};
  c.cells = {cell(4), cell(5)};
  const Compiled before = c;
  passes::Rewrite rw(c);
  for (std::uint32_t pc : {1u, 5u, 9u}) rw.removed[pc] = 1;
  CHECK(passes::compact(c, rw));
  REQUIRE(c.code.size() == 8);
  CHECK(c.code[1].op == FOp::jz);
  CHECK(c.code[1].d == 5);
  CHECK(c.code[4].op == FOp::jmp);
  CHECK(c.code[4].d == 7);
  CHECK(c.regions[0].begin == 1);
  CHECK(c.regions[0].end == 7);
  same_on_grid(before, c, {-1.0, 0.0, 2.0}, {-2.0, 0.0, 1.0});
  passes::Rewrite nothing(c);
  CHECK_FALSE(passes::compact(c, nothing));
}

// Cells, objectives, conditions, asserts, branch conditions and kept instructions read the
// representative; a removed instruction is left as it was.
TEST_CASE("read_representatives: every reader and output reads the representative") {
  Compiled c = two_inputs(8, 0);
  c.code = {ins(FOp::add, 2, 0, 1), ins(FOp::add, 3, 1, 0), ins(FOp::mul, 4, 3, 3), ins(FOp::mul, 5, 3, 2)};
  c.cells = {cell(3)};
  c.objectives = {cell(3)};
  c.feasibility = {cell(3)};
  c.asserts = {{cell(3), 0}};
  c.regions = {{0, 1, 3, 0}};
  Slot k;
  k.constant = true;
  k.reg = 3;
  c.cells.push_back(k);
  passes::Rewrite rw(c);
  rw.rep[3] = 2;
  rw.removed[1] = 1;
  rw.removed[3] = 1;
  passes::read_representatives(c, rw);
  CHECK(c.code[2].a == 2);
  CHECK(c.code[2].b == 2);
  CHECK(c.code[3].a == 3);  // removed: left alone
  CHECK(c.cells[0].reg == 2);
  CHECK(c.cells[1].reg == 3);  // a constant slot names no register
  CHECK(c.objectives[0].reg == 2);
  CHECK(c.feasibility[0].reg == 2);
  CHECK(c.asserts[0].first.reg == 2);
  CHECK(c.regions[0].cond == 2);
}
