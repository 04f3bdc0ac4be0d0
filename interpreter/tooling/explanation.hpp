// explanation.hpp — what `mls explain` and the REPL's `:explain NAME` show, as data: the formula
// chain of one result (which functions and computed globals produced it, each with its arguments
// and value, nested by call depth) and the assumptions it depends on; and its text. A front end's
// header: the explaining itself (explain.hpp) reads the Program and the Checker.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "interpreter/results/run_result.hpp"

namespace mls {

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

[[nodiscard]] std::string format_explanation(const Explanation& e);

}  // namespace mls
