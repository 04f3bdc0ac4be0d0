// solve.hpp — `solve NAME in LO..HI such that EXPR == TARGET` (or <=, >=): a bracketing root
// finder over the range, run on the binary64 evaluator and confirmed on the exact one.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "eval.hpp"

namespace mls {

struct SolveAnswer {
  Value value;       // NAME at the answer, carrying the assumptions of EXPR and TARGET there
  std::string role;  // "root" (==), "min" (smallest value satisfying), "max" (largest)
};

struct SolveOutcome {
  std::vector<SolveAnswer> answers;  // ascending; several when EXPR is not monotone
  bool integer = false;              // NAME ranges over whole numbers
  bool monotone = true;              // EXPR - TARGET was monotone over the sampled points
  std::size_t evaluations = 0;       // evaluations of both sides (scan, refinement, checks)
};

// Every answer in the range; throws solve.no_root (none), solve.decl (an empty range) or the
// runtime error of an evaluation, with a help line naming NAME's value there. `lhs_type` (the
// checker's type of EXPR, when the caller has it) sets the unit of the no-answer message.
[[nodiscard]] SolveOutcome solve_statement(Evaluator& ev, const Stmt& s, TypeP lhs_type = nullptr);
// The value the global NAME takes: the first answer.
[[nodiscard]] Value solve_value(Evaluator& ev, const Stmt& s);

}  // namespace mls
