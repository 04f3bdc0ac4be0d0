// sensitivity_format.cpp — `mls sensitivity` as text (a ranked table), as JSON (the contract in
// docs/sensitivity.md: fields may be added, never removed or renamed) and as a tornado's bars.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "interpreter/results/format.hpp"
#include "sensitivity.hpp"

namespace mls {

namespace {

// Round-trip text of a binary64; JSON has no infinities (none reach here: moves that give one
// are skipped).
std::string num(double v) { return fmt::format("{:.17g}", v); }

// Signed with `decimals` places, and no sign on a value that rounds to zero ("0.000", not "-0.000").
std::string signed_text(double v, int decimals) {
  std::string t = fmt::format("{:+.{}f}", v, decimals);
  if (t.find_first_not_of("+-0.") == std::string::npos) t = t.substr(1);
  return t;
}
std::string opt_num(const std::optional<double>& v) { return v ? num(*v) : "null"; }

// A change from the base: "-8.61 %", or the moved value itself when the base is zero.
std::string change_text(const Sensitivity& r, double v) {
  if (const auto c = r.change(v)) return signed_text(*c * 100, 2) + " %";
  return "= " + r.text(v);
}

std::string moved_value(const SensitivityEntry& e) {
  if (e.whole) return e.value + " -> " + e.down_text + " / " + e.up_text;
  return e.value;
}

void table(std::string& out, const std::vector<std::vector<std::string>>& rows, std::size_t right) {
  std::vector<std::size_t> w(rows[0].size(), 0);
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size(); ++i) w[i] = std::max(w[i], row[i].size());
  for (const auto& row : rows) {
    std::string line = " ";
    for (std::size_t i = 0; i < row.size(); ++i) {
      const std::string pad(w[i] - row[i].size(), ' ');
      line += "  " + (i < right ? pad + row[i] : row[i] + pad);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
}

}  // namespace

std::string format_sensitivity_text(const Sensitivity& r, std::size_t top) {
  const std::string pc = std::to_string(std::lround(r.step * 100));
  std::string out = r.name + " = " + r.shown + "\n  " + r.what + "\n\n";
  out += "each input scaled by -" + pc + " % and +" + pc +
         " % (a count written as a whole number: to whole numbers), each convention switched to\n"
         "its other choices; elasticity = d ln result / d ln input (central difference). Largest change first.\n\n";
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"elasticity", "-" + pc + " %", "+" + pc + " %", "switched", "kind", "name", "value", "at"});
  bool uneven = false;
  for (std::size_t i = 0; i < r.entries.size() && i < top; ++i) {
    const auto& e = r.entries[i];
    if (e.convention) {
      bool first = true;
      for (const auto& sw : e.switches) {
        rows.push_back({"", "", "", sw.value ? change_text(r, *sw.value) : "n/a", first ? e.source : "",
                        first ? e.name : "", e.choice + " -> " + sw.choice + (sw.value ? "" : " (" + sw.why + ")"),
                        first ? e.at : ""});
        first = false;
      }
      continue;
    }
    uneven = uneven || e.uneven;
    rows.push_back({(e.elasticity ? signed_text(*e.elasticity, 3) : "n/a") + (e.uneven ? "~" : " "),
                    change_text(r, *e.down), change_text(r, *e.up), "", e.source, e.name, moved_value(e), e.at});
  }
  table(out, rows, 4);
  if (r.entries.size() > top)
    out += "  + " + std::to_string(r.entries.size() - top) + " more with smaller changes (--top K lists K)\n";
  if (uneven)
    out +=
        "\n  ~ the two sides disagree by more than a quarter: something changes regime within the move (a\n"
        "    max() flips, a count stops dividing); the elasticity is the average slope across it\n";
  if (r.base == 0) out += "\n  the result is 0: changes are shown as the moved values, and there is no elasticity\n";
  if (!r.skipped.empty()) {
    out +=
        "\nnot moved (" + std::to_string(r.skipped.size()) + "): the result cannot be evaluated with the input moved\n";
    rows.clear();
    for (const auto& e : r.skipped) rows.push_back({e.source, e.name, e.value, e.at, e.skipped});
    table(out, rows, 0);
  }
  if (!r.not_inputs.empty()) {
    out += "\nnot inputs: ";
    for (std::size_t i = 0; i < r.not_inputs.size(); ++i) out += (i ? ", " : "") + r.not_inputs[i];
    out += " (notes on the result, not values to move)\n";
  }
  return out;
}

std::string format_sensitivity_json(const Sensitivity& r, std::size_t top) {
  std::string out = "{\n  \"result\": " + json_string(r.name) + ",\n  \"value\": " + num(r.base) +
                    ",\n  \"shown\": " + json_string(r.shown) + ",\n  \"unit\": " + json_string(r.display.unit) +
                    ",\n  \"step\": " + fmt::format("{:.15g}", r.step) + ",\n  \"entries\": [";
  auto common = [&](const SensitivityEntry& e, const char* kind) {
    return std::string(out.back() == '[' ? "\n" : ",\n") + "    {\"assumption\": " + json_string(e.name) +
           ", \"kind\": \"" + kind + "\", \"source\": " + json_string(e.source) + ", \"at\": " + json_string(e.at);
  };
  for (std::size_t i = 0; i < r.entries.size() && i < top; ++i) {
    const auto& e = r.entries[i];
    if (e.convention) {
      out += common(e, "convention") + ", \"choice\": " + json_string(e.choice) + ", \"switches\": [";
      for (std::size_t k = 0; k < e.switches.size(); ++k) {
        const auto& sw = e.switches[k];
        out += std::string(k ? ", " : "") + "{\"choice\": " + json_string(sw.choice) +
               ", \"value\": " + opt_num(sw.value) +
               ", \"change\": " + opt_num(sw.value ? r.change(*sw.value) : std::nullopt);
        if (!sw.value) out += ", \"error\": " + json_string(sw.why);
        out += "}";
      }
      out += "]}";
      continue;
    }
    out += common(e, "setting") + ", \"value\": " + json_string(e.value) +
           ", \"elasticity\": " + opt_num(e.elasticity) + ", \"minus10\": " + opt_num(r.change(*e.down)) +
           ", \"plus10\": " + opt_num(r.change(*e.up)) + ", \"down\": " + num(*e.down) + ", \"up\": " + num(*e.up) +
           ", \"factors\": [" + fmt::format("{:.15g}", e.f_down) + ", " + fmt::format("{:.15g}", e.f_up) +
           "], \"whole\": " + (e.whole ? "true" : "false") + ", \"uneven\": " + (e.uneven ? "true" : "false") + "}";
  }
  out += std::string(out.back() == '[' ? "" : "\n  ") +
         "],\n  \"more\": " + std::to_string(r.entries.size() > top ? r.entries.size() - top : 0) +
         ",\n  \"not_moved\": [";
  for (std::size_t i = 0; i < r.skipped.size(); ++i) {
    const auto& e = r.skipped[i];
    out += std::string(i ? ",\n" : "\n") + "    {\"assumption\": " + json_string(e.name) +
           ", \"source\": " + json_string(e.source) + ", \"value\": " + json_string(e.value) +
           ", \"at\": " + json_string(e.at) + ", \"reason\": " + json_string(e.skipped) + "}";
  }
  out += std::string(r.skipped.empty() ? "" : "\n  ") + "],\n  \"not_inputs\": [";
  for (std::size_t i = 0; i < r.not_inputs.size(); ++i) out += (i ? ", " : "") + json_string(r.not_inputs[i]);
  out += "]\n}\n";
  return out;
}

Tornado tornado_of(const Sensitivity& r, std::size_t top) {
  Tornado t;
  t.result = r.name;
  t.shown = r.shown;
  t.step = std::to_string(std::lround(r.step * 100)) + " %";
  for (const auto& e : r.entries) {
    if (t.bars.size() >= top) {
      ++t.more;
      continue;
    }
    if (e.convention) {
      for (const auto& sw : e.switches)
        if (sw.value)
          t.bars.push_back(
              {e.name + " -> " + sw.choice, "convention, now " + e.choice, 0, r.change(*sw.value).value_or(0), true});
      continue;
    }
    char el[32];
    std::snprintf(el, sizeof el, "%+.3f", e.elasticity.value_or(0));
    t.bars.push_back({e.name,
                      e.source + " " + e.value +
                          (e.whole ? " (moved to " + e.down_text + " and " + e.up_text + ")" : "") +
                          (e.elasticity ? ", elasticity " + std::string(el) : "") + (e.uneven ? ", uneven" : ""),
                      r.change(*e.down).value_or(0), r.change(*e.up).value_or(0), false});
  }
  return t;
}

}  // namespace mls
