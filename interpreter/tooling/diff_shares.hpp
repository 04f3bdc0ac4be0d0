// diff_shares.hpp — how much of a changed value each of its causes explains (issue #12): every
// cause switched alone from the left side's value to the right's, all others as on the left,
// the result evaluated again (rerun.hpp, as `mls sensitivity` does), and what is left over
// reported as the interaction. Method, limits and the rule for causes that cannot be switched
// alone: docs/diff.md, "How much each cause explains".
#pragma once

#include <cstddef>

#include "core.hpp"
#include "interpreter/results/diff.hpp"

namespace mls {

struct ShareLimits {
  std::size_t max_causes = 8;    // a value with more causes is not split (said so)
  std::size_t max_reruns = 200;  // per diff; values beyond it are not split (said so)
};

// Fills `shares` (or `shares_skipped`) of every changed number of `d` with two or more causes.
// `left` is the left side's session core, evaluated under `left_sel` to `left_run`. Both sides must
// be the same file: with two files the formulas may differ too, and the leftover would not be
// an interaction. Throws DiagnosticError only for Ctrl-C (interrupted).
void split_changes(Core& left, const Selection& left_sel, const RunResult& left_run, const RunOptions& opt,
                   DiffReport& d, const ShareLimits& lim = {});

}  // namespace mls
