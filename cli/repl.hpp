// repl.hpp — the pieces of `mls repl` shared between cli/repl*.cpp: printing answers, the
// inspecting meta commands (:explain, :diff, :assumptions, :conventions, :units).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "interpreter/tooling/session.hpp"

namespace mls {

// ---- repl_print.cpp ----

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

// What an input produced: choice changes, definitions, answers, tables and assertions. Tables
// are printed by `table_text` (the REPL pages long ones); nullptr prints them whole.
using TableText = std::function<std::string(const Table&)>;
[[nodiscard]] std::string format_outcome(Program& p, const Outcome& o, const TableText& table_text = nullptr);

// Diagnostics drawn under the line just typed at the prompt: the caret sits under the prompt
// line itself, then `error[code]: message`. Falls back to the usual rendering otherwise.
struct PromptLine {
  bool active = false;  // the input was one line typed at the prompt
  std::string text;     // as typed
  std::size_t prompt_width = 0;
};
[[nodiscard]] std::string render_at_prompt(const Sources& src, const Diagnostic& d, const PromptLine& pl);

// ---- repl_inspect.cpp ----
// Each returns false (and fills `err`) when the argument does not check or evaluation fails.

bool explain_expr(ReplSession& s, const std::string& text, std::uint32_t line, std::string& out, std::string& err);
bool assumptions_expr(ReplSession& s, const std::string& text, std::uint32_t line, std::string& out, std::string& err);
bool diff_expr(ReplSession& s, const std::string& text, std::uint32_t line, std::string& out, std::string& err);
// Every convention (or the named ones): its choices, the current one and who chose it.
bool conventions_text(ReplSession& s, const std::vector<std::string>& names, std::string& out, std::string& err);
bool units_text(ReplSession& s, const std::string& arg, std::string& out, std::string& err);

}  // namespace mls
