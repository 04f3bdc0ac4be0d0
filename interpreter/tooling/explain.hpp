// explain.hpp — the formula chain of one result: which functions (and computed globals) produced
// it, each with its arguments and value in a sensible unit, nested by call depth, and the
// assumptions the result depends on. Used by `mls explain` and the REPL's `:explain NAME`.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

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

struct ExplainStep {
  std::string text;   // "fleet_mtbf(gpus = 512)" or, for a computed global, "write_time"
  std::string value;  // "67.0 h"
  std::string at;     // where the function or global is defined: "stdlib/reliability.mls:12"
  bool global = false;
  bool cached = false;     // a global read again: its chain is shown where it was first computed
  std::size_t repeat = 1;  // identical consecutive calls are folded
  std::vector<ExplainStep> kids;
  std::size_t hidden_kids = 0;  // not kept: beyond max_children
  std::size_t hidden_deep = 0;  // not kept: beyond max_depth
};

struct Explanation {
  std::string name;                // as asked: "fleet_512", "o1.mtbf_h[gpus=512]", "write_time"
  std::string value;               // "67.0 h"
  std::string what;                // "shown at rel.mls:38", "table o1, column mtbf_h, row gpus=512 (rel.mls:40)"
  std::string formula;             // the source text of the expression or definition, compacted
  Span span;                       // where the result is written (the show item, column or definition)
  Display display;                 // the unit `value` is shown in
  std::vector<ExplainStep> chain;  // top-level steps in evaluation order
  std::size_t hidden_kids = 0;
  std::vector<AssumptionView> assumptions;
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

[[nodiscard]] std::string format_explanation(const Explanation& e);

}  // namespace mls
