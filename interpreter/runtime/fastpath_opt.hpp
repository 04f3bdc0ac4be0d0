// fastpath_opt.hpp — optimising a compiled sweep body's register code before its schedules are
// derived (fastpath_opt.cpp). Internal to runtime/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "fastpath.hpp"

namespace mls::fast {

struct Compiled;

// The numbers a binding's register takes: over every point the program will run.
struct InputRange {
  std::uint32_t reg = 0;
  double lo = 0, hi = 0;
  bool nonneg = false;  // no negative number, no -0
};

// The ranges of the bindings' number (and boolean) leaves over their domains (the values
// SweepProgram::compile is given, which are all the program runs).
std::vector<InputRange> input_ranges(const Compiled& c, const std::vector<std::vector<std::vector<Value>>>& domains);

// What optimise removed.
struct OptStats {
  std::size_t before = 0, after = 0;
  std::size_t cse = 0, copies = 0, folded = 0, dead = 0;
};

// Rewrites c.code in place, before Compiler::masks derives each instruction's sweep-variable
// mask (and from it the schedules) from the result. Every point computes the same bits, sets
// the same signature slots and fails, bails or is filtered exactly as before. In rounds:
// - common subexpressions: an operation of pure arithmetic (not max/min/clamp, whose arm is a
//   signature slot) with the same operands as one that dominates it (runs on every path to it,
//   no operand written in between) is not computed again: its readers read the first, which
//   raises the same flags and domain errors first.
// - copies: a register written once by `mov` is read as its source; a branch's result that
//   every arm writes from the same register (`b or false`: +0 where b is known +0, else b) is
//   that register.
// - ranges, forward from `inputs` (the bindings' domains) and the constants, with the sign of
//   zero (rounding to nearest is monotone: bounds need no slack): a result that is +0 for
//   certain or a function of constants becomes a constant (only when computing it cannot fail);
//   x + (+0) is x when x cannot be -0, x - (+0) is x; (x * c) * 2^k is x * (c * 2^k) when
//   x * c and the result are normal numbers (and x when c * 2^k = 1).
// - dead code: an unread value that cannot fail or raise a flag is dropped: moves, comparisons,
//   not, neg, abs, floor, ceil, round, and arithmetic whose ranges prove it finite (and its
//   divisor not zero, its sqrt/log operand in domain). Other unread arithmetic stays: its
//   overflow or division by zero makes the point bail where the evaluator stops.
// Jumps, marks, `where` exits, fails and the signature slots are kept as they are; branch
// extents (regions) and jump targets move with the code; cells, objectives, conditions,
// asserts and branch conditions read the representatives.
OptStats optimise(Compiled& c, const std::vector<InputRange>& inputs = {});

// The register code, one instruction a line (MLS_DEBUG_FAST_CODE).
void dump(const Compiled& c, std::FILE* out);

}  // namespace mls::fast
