// solve.hpp — `solve NAME in LO..HI [by STEP] such that EXPR == TARGET` (or <=, >=): a
// bracketing root finder over the range, run on the binary64 evaluator and confirmed on the exact one.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
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
  // An integer variable: the whole numbers of the range that could not be evaluated (a layout
  // that does not divide the GPUs), skipped as a search skips an infeasible point, and why
  // ("code: message", most frequent first, with how many).
  std::size_t skipped = 0;
  std::vector<std::pair<std::string, std::size_t>> skip_reasons;
};

// Every answer in the range; throws solve.no_root (none), solve.decl (an empty range) or the
// runtime error of an evaluation, with a help line naming NAME's value there. `lhs_type` (the
// checker's type of EXPR, when the caller has it) sets the unit of the no-answer message.
[[nodiscard]] SolveOutcome solve_statement(Evaluator& ev, const Stmt& s, TypeP lhs_type = nullptr);
// "12 values of nodes could not be evaluated and were skipped: 12 runtime.error: ...", or ""
// when none was (shown under each answer, and in the help of solve.no_root).
[[nodiscard]] std::string skipped_text(const SolveOutcome& o, const std::string& name);
// Each answer's label, as it is shown: NAME (a root of ==), `min NAME` / `max NAME` (the smallest /
// largest value satisfying <= or >=), numbered `min NAME[2]` when a role has several answers.
// explain and sensitivity take these labels back (issue 36).
[[nodiscard]] std::vector<std::string> solve_labels(const SolveOutcome& o, const std::string& name);
// Whether `e` reads the answer of a solve (a solved global, directly or through the globals and
// functions it reads): a sweep key that does moves with the solve, and a diff matches the rows
// of such a sweep by their other keys (issue 36).
[[nodiscard]] bool reads_solve(const Program& p, const Expr& e);
// The value the global NAME takes: the first answer.
[[nodiscard]] Value solve_value(Evaluator& ev, const Stmt& s);

}  // namespace mls
