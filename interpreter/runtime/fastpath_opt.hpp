// fastpath_opt.hpp — optimising a compiled sweep body's register code before its schedules are
// derived (fastpath_opt.cpp). Internal to runtime/.
#pragma once

#include <cstddef>
#include <cstdio>

namespace mls::fast {

struct Compiled;

// What optimise removed.
struct OptStats {
  std::size_t before = 0, after = 0;
  std::size_t cse = 0, copies = 0, dead = 0;
};

// Rewrites c.code in place, before Compiler::masks derives each instruction's sweep-variable
// mask (and from it the schedules) from the result:
// - common subexpressions: an operation of pure arithmetic (not max/min/clamp, whose arm is a
//   signature slot) with the same operands as one that dominates it (runs on every path to it,
//   no operand written in between) is not computed again: its readers read the first. The
//   first raises the same flags and domain errors first, so every point fails, bails or is
//   filtered exactly as before, and computes the same bits.
// - copies: a register written once by `mov` is read as its source.
// - dead code: an unread value that cannot fail or raise a flag (moves, comparisons, not, neg,
//   abs, floor, ceil, round) is dropped; unread arithmetic stays (its overflow or division by
//   zero makes the point bail where the evaluator stops).
// Jumps, marks, `where` exits, fails and the signature slots are kept as they are; branch
// extents (regions) and jump targets move with the code, and cells, objectives, conditions and
// asserts read the representatives.
OptStats optimise(Compiled& c);

// The register code, one instruction a line (MLS_DEBUG_FAST_CODE).
void dump(const Compiled& c, std::FILE* out);

}  // namespace mls::fast
