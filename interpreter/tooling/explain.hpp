// explain.hpp — explaining one result (explanation.hpp): found by name in a run and evaluated again
// under a tracer that records its formula chain. Internal to tooling: it reads the Program and the
// Checker; front ends get an Explanation from Scenario or text from ReplSession.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "explanation.hpp"
#include "interpreter/results/format.hpp"
#include "interpreter/runtime/run.hpp"
#include "interpreter/semantics/check.hpp"
#include "interpreter/semantics/config.hpp"

namespace mls {

struct ExplainOptions {
  std::size_t max_depth = 8;      // deeper calls are counted, not shown
  std::size_t max_children = 16;  // per step; the rest are counted
  std::size_t max_args = 80;      // characters of argument text per step
  std::size_t max_value = 72;     // characters of a step's value (records are summarised)
  // Receives the value evaluated again (under the configuration given to explain(), which can
  // differ from the run's: `mls sensitivity` re-evaluates one result with one input moved).
  Value* value = nullptr;
};

// Every name `explain` accepts in a run, for did-you-mean and completion: shown labels,
// TABLE.COLUMN forms and global names.
[[nodiscard]] std::vector<std::string> explainable_names(const Program& p, const RunResult& r);

// Finds `name` — a shown label, TABLE.COLUMN[KEY=VALUE, ...] (the row may be left out of a
// one-row table) or a global — and evaluates it again under a tracer. An unknown name, column or
// row throws DiagnosticError (name.unknown, exit 65) with did-you-mean and the valid choices.
[[nodiscard]] Explanation explain(Program& p, Checker& ck, const Config& cfg, const RunResult& r,
                                  const std::string& name, const RunOptions& run_opt = {},
                                  const ExplainOptions& opt = {});

}  // namespace mls
