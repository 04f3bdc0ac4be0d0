// format.hpp — rendering a RunResult as text, JSON (the documented contract), CSV and Markdown.
#pragma once

#include <string>
#include <vector>

#include "run.hpp"

namespace mls {

inline constexpr const char* kVersion = "0.1.0";

struct AssumptionView {
  std::string kind, name, value, at, via;
  bool operator<(const AssumptionView& o) const;
  bool operator==(const AssumptionView& o) const;
};

// The assumptions in a dependency set, sorted (kind, name, at) and de-duplicated.
[[nodiscard]] std::vector<AssumptionView> assumptions_of(const Program& p, DepSet d);
// Union of the cells' dependencies of column `c`.
[[nodiscard]] DepSet column_deps(Program& p, const Table& t, std::size_t c);

[[nodiscard]] std::string format_text(Program& p, const RunResult& r, const std::string& file);
[[nodiscard]] std::string format_json(Program& p, const RunResult& r, const std::string& file);
[[nodiscard]] std::string format_csv(Program& p, const RunResult& r);
[[nodiscard]] std::string format_markdown(Program& p, const RunResult& r, const std::string& file);

[[nodiscard]] std::string json_string(const std::string& s);
[[nodiscard]] std::string json_number(const Num& n);
// Column header with its unit: "step_ms [ms]".
[[nodiscard]] std::string header_text(const Column& c);
[[nodiscard]] std::string cell_text(const Value& v, const Display& d);
// "67.0 h", "45.8%", "true": a value in its display unit, with the unit.
[[nodiscard]] std::string value_with_unit(const Value& v, const Display& d);
// "(preset mlsysim)" for a `via` worth showing, "" for the unsurprising ones (stdlib, scenario).
[[nodiscard]] std::string via_text(const AssumptionView& a);
// The aligned `kind  name = value (via)  file:line` lines printed under a result.
void assumption_block(std::string& out, const std::vector<AssumptionView>& as, const std::string& indent);

}  // namespace mls
