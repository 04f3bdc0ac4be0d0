// fastpath_passes.hpp — the optimiser's passes over a compiled sweep body (optimise, in
// fastpath_opt.cpp, runs them in rounds) and the facts they share. Internal to runtime/.
#pragma once

#include <cstdint>
#include <limits>
#include <unordered_map>
#include <vector>

#include "fastpath_compiled.hpp"
#include "fastpath_opt.hpp"

// A round, in the manner of LLVM's pass manager in miniature: the facts of the code as the
// round finds it (facts_of), then passes that each rewrite it a step further. The passes record
// what they found in a Rewrite (which register is read in place of which, which instructions
// go); the last two apply it. Each can be run alone on hand-written code (fastpath_opt_test).
//   share_dominating  common subexpressions and copies, down the dominator tree (share.cpp)
//   fold_ranges       value ranges forward; constants, identities, branch results (ranges.cpp)
//   read_representatives  every reader and output reads its representative (facts.cpp)
//   drop_dead         unread values that cannot fail (ranges.cpp: it needs the ranges)
//   compact           removed instructions gone, jumps and branch extents moved (facts.cpp)
namespace mls::fast::passes {

constexpr std::uint32_t kNone = ~std::uint32_t{0};

// Operations whose result depends only on their operands' values, and that write nothing but
// their destination (not max/min/clamp, which also record their arm in a signature slot).
bool pure(Op op);
// Operations that can neither fail nor raise a floating-point flag on finite operands.
bool harmless(Op op);
bool commutative(Op op);

// Calls f on each register an instruction reads (by reference: a pass may redirect it).
template <typename F>
void for_each_read(Ins& i, F f) {
  const Operands o = operands(i.op);
  if (o.reads > 0) f(i.a);
  if (o.reads > 1) f(i.b);
  if (o.reads > 2) f(i.c);
}

// What a round knows of the code as it found it. Every jump goes forward, so the code is a DAG
// in instruction order: a path from instruction `from` to `to` runs only instructions between.
struct Facts {
  std::size_t n = 0;                                                      // instructions
  std::vector<std::uint32_t> ndefs;                                       // per register: its writers
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> defs_at;  // a register's, if several
  std::vector<std::uint32_t> idom;                                        // immediate dominator (kNone: unreachable)
  std::vector<std::uint32_t> npred, pred;                                 // reachable predecessors: count, and the last
  std::vector<std::uint32_t> first_child, next_sibling;                   // the dominator tree

  [[nodiscard]] bool reachable(std::uint32_t pc) const { return idom[pc] != kNone; }
  // Registers made during the round (constants) have no writer.
  [[nodiscard]] std::uint32_t writers(std::uint32_t r) const { return r < ndefs.size() ? ndefs[r] : 0; }
  // Where a register written more than once is written, in instruction order.
  [[nodiscard]] const std::vector<std::uint32_t>& sites(std::uint32_t r) const { return defs_at.at(r); }
  // Whether register r is written strictly between instructions `from` and `to`.
  [[nodiscard]] bool written_between(std::uint32_t r, std::uint32_t from, std::uint32_t to) const;
};
Facts facts_of(const Compiled& c);

// What the passes decided: the register each register's readers read instead, and which
// instructions go. Registers a pass adds (constants) are their own representatives.
struct Rewrite {
  std::vector<std::uint32_t> rep;
  std::vector<std::uint8_t> removed;
  explicit Rewrite(const Compiled& c);
};

// What is known of a register's value on every path that reaches a reader (bounds with slack
// for rounding, sign of zero, exact zero), from the sweep variables' domains forward.
constexpr double kBig = 1e300;  // a bound on a result that did not overflow
struct Range {
  double lo = -std::numeric_limits<double>::infinity(), hi = std::numeric_limits<double>::infinity();
  bool nonneg = false;   // >= +0: never negative, never -0
  bool zero = false;     // +0 or -0 for certain
  bool boolean = false;  // +0 or 1 (a comparison's result)
  [[nodiscard]] bool bounded() const { return lo >= -kBig && hi <= kBig; }
  [[nodiscard]] bool nonzero() const { return lo > 0 || hi < 0; }
  [[nodiscard]] bool plus_zero() const { return zero && nonneg; }
  [[nodiscard]] bool not_minus_zero() const { return nonneg || nonzero(); }
};
// The range of an operation's result from its operands' ranges.
Range range_of(Op op, const Range& a, const Range& b, const Range& c, double imm);
// Whether an operation with these operand ranges can fail, bail or raise a floating-point flag.
bool cannot_fail(Op op, const Range& a, const Range& b, const Range& result);

// Common subexpressions and copies. Down the dominator tree, a table holds the computations of
// the instructions that dominate the one visited (run on every path to it): a pure operation
// found there with no operand written in between is read from the first, which raises the same
// flags and domain errors first; a register written once by `mov` is read as its source.
// Redirects the reads of reachable instructions as it goes.
void share_dominating(Compiled& c, const Facts& f, Rewrite& rw, OptStats& st);

// Ranges, forward in instruction order from `inputs` and the constants (a register's writers
// come before its readers; a branch's result is known once every arm wrote it). A result that
// is +0 for certain, or a function of constants, becomes a constant (new constant registers are
// added to `c`); x + (+0) and x - (+0) are x (x not -0, for the sum); (x * c) * 2^k is
// x * (c * 2^k) when x * c and the result are normal; a branch's result that every arm writes
// from the same register is that register. Returns each register's range (for drop_dead).
std::vector<Range> fold_ranges(Compiled& c, const Facts& f, Rewrite& rw, const std::vector<InputRange>& inputs,
                               OptStats& st);

// Every instruction kept (unreachable ones too, so their masks stay those of registers still
// written), cell, objective, condition, assert and branch condition reads its representative.
void read_representatives(Compiled& c, const Rewrite& rw);

// Dead code: what nothing reads (no instruction, no output, no branch's condition) and that
// cannot fail or raise a flag with its operands' ranges (`range`, one per register, or empty:
// nothing known). Backwards, so a chain goes at once. After read_representatives.
void drop_dead(Compiled& c, const std::vector<Range>& range, Rewrite& rw, OptStats& st);

// The removed instructions gone; jumps and branch extents move to the next instruction kept.
// Whether the code got shorter.
bool compact(Compiled& c, const Rewrite& rw);

}  // namespace mls::fast::passes
