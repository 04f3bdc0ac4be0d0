// session_text.hpp — the REPL's value and assumption text, shared by ReplSession::format
// (session_text.cpp) and the inspecting commands (session_inspect.cpp), and the Probe they inspect.
// Internal to tooling: front ends get finished text from ReplSession.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "interpreter/results/run_result.hpp"

namespace mls {

class Checker;
class Program;
struct Config;

// A checked expression handed to an inspector (`:explain`, `:diff`, `:assumptions`, completion) by
// ReplSession::probe, valid while the inspector runs (the probe is a rolled-back transaction).
struct Probe {
  Program& prog;
  Checker& ck;
  const Config& cfg;  // the session's current choices
  Stmt& stmt;         // `show EXPR`, among the main statements until the probe ends
  const Expr& expr;
  int nslots = 0;
  TypeP type;
  std::optional<std::uint32_t> global;  // the expression is the name of a global
};

// One printed line per leaf of a value: records expand to `label.field` (lists are skipped, as
// in `mls run`).
struct Leaf {
  std::string label;
  Value value;
  TypeP type;
};
void flatten(const Value& v, const TypeP& t, const std::string& label, std::vector<Leaf>& out);

// "67 h", "92.4%", "\"adam\"", "true": a value in the unit chosen for display.
[[nodiscard]] std::string value_text(const Value& v, const Display& d);
// An answer as the REPL prints it: `value_text`, with at least kAskedDigits significant digits
// when the input asked for a unit (`2 GiB -> MB` is 2147.48 MB), and bytes in the prefix family
// they were written in (`H100.hbm.size` is 80 GiB, as the registry says).
inline constexpr int kAskedDigits = 6;
[[nodiscard]] std::string answer_text(const Program& p, const Value& v, const TypeP& t, const Display& d);
// The display of a leaf: its `-> unit` if any, else a human unit for its magnitude.
[[nodiscard]] Display display_of(const Program& p, const Leaf& l);

// "  depends on: convention mtbf_model = node_series, set gpus = 512" (wrapped, capped), or ""
// when the set is empty. Assumptions written inside `own` are left out (a definition's own
// literals: `let node = {gpus: 8}` does not depend on something else called node.gpus).
[[nodiscard]] std::string compact_assumptions(Program& p, DepSet d, Span own = {});
// Aligned lines `kind  name = value (via)  file:line`, as `mls run` prints them.
[[nodiscard]] std::string assumption_lines_text(const Program& p, DepSet d, const std::string& indent);

}  // namespace mls
