// format.cpp — text, JSON, CSV and Markdown renderings of a run. Text is for people (aligned,
// assumptions under each number, notes under each table); JSON is the stable contract.
#include "format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace mls {

bool AssumptionView::operator<(const AssumptionView& o) const {
  static const std::map<std::string, int> order = {{"convention", 0}, {"set", 1}, {"registry", 2}, {"default", 3}, {"approx", 4}};
  auto rank = [&](const std::string& k) {
    auto it = order.find(k);
    return it == order.end() ? 9 : it->second;
  };
  const int ra = rank(kind), rb = rank(o.kind);
  return std::tie(ra, name, at, value, via) < std::tie(rb, o.name, o.at, o.value, o.via);
}

bool AssumptionView::operator==(const AssumptionView& o) const {
  return kind == o.kind && name == o.name && value == o.value && at == o.at && via == o.via;
}

std::vector<AssumptionView> assumptions_of(const Program& p, DepSet d) {
  std::vector<AssumptionView> out;
  for (AtomId a : p.deps.atoms(d)) {
    if (!p.deps.is_assumption(a)) continue;
    const Assumption& as = p.deps.assumption(a);
    out.push_back({kind_name(as.kind), as.name, as.value, p.sources.where_line(as.at), as.via});
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

DepSet column_deps(Program& p, const Table& t, std::size_t c) {
  DepSet d = 0;
  for (const auto& r : t.rows) d = p.deps.unite(d, r.cells[c].deps);
  return d;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) out += fmt::format("\\u{:04x}", c);
        else out += ch;
    }
  }
  return out + "\"";
}

std::string json_number(const Num& n) { return format_json(n.d); }

std::string header_text(const Column& c) { return c.display.unit.empty() ? c.name : c.name + " [" + c.display.unit + "]"; }

std::string cell_text(const Value& v, const Display& d) { return format_value(v, d); }

std::string via_text(const AssumptionView& a) {
  if (a.via.empty() || a.via == "stdlib" || a.via == "scenario" || a.via == "arithmetic") return "";
  return "(" + a.via + ")";
}

void assumption_block(std::string& out, const std::vector<AssumptionView>& as, const std::string& indent) {
  std::size_t wk = 0, wn = 0, wv = 0;
  for (const auto& a : as) {
    wk = std::max(wk, a.kind.size());
    wn = std::max(wn, a.name.size());
    wv = std::max(wv, a.value.size() + (via_text(a).empty() ? 0 : via_text(a).size() + 1));
  }
  for (const auto& a : as) {
    std::string value = a.value;
    if (!via_text(a).empty()) value += " " + via_text(a);
    out += indent + fmt::format("{:<{}}  {:<{}} = {:<{}}  {}", a.kind, wk, a.name, wn, value, wv, a.at);
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += "\n";
  }
}

std::string value_with_unit(const Value& v, const Display& d) {
  std::string s = format_value(v, d);
  if (v.k == Value::K::num && !d.unit.empty()) s += (d.unit == "%" ? "" : " ") + d.unit;
  return s;
}

namespace {

bool is_numeric(const Value& v) { return v.k == Value::K::num; }

void table_text(std::string& out, Program& p, const Table& t) {
  out += "\n" + std::string(t.search ? "search " : "table ") + t.name;
  if (t.search) {
    out += fmt::format(" — {}; {} points evaluated, {} infeasible, {} filtered; best {} shown\n", t.objective, t.evaluated,
                       t.infeasible, t.filtered, t.rows.size());
  } else {
    out += fmt::format(" — {} row{}", t.rows.size(), t.rows.size() == 1 ? "" : "s");
    if (t.filtered) out += fmt::format(", {} filtered out", t.filtered);
    if (t.infeasible) out += fmt::format(", {} infeasible (kept, feasible = false)", t.infeasible);
    out += "\n";
  }
  std::vector<std::string> heads;
  std::vector<std::size_t> width;
  for (const auto& c : t.cols) {
    heads.push_back(header_text(c));
    width.push_back(heads.back().size());
  }
  std::vector<std::vector<std::string>> cells(t.rows.size());
  for (std::size_t r = 0; r < t.rows.size(); ++r)
    for (std::size_t c = 0; c < t.cols.size(); ++c) {
      cells[r].push_back(format_value(t.rows[r].cells[c], t.cols[c].display));
      width[c] = std::max(width[c], cells[r].back().size());
    }
  std::vector<bool> right(t.cols.size(), true);
  for (std::size_t c = 0; c < t.cols.size(); ++c)
    if (!t.rows.empty() && !is_numeric(t.rows[0].cells[c])) right[c] = false;
  auto line = [&](const std::vector<std::string>& v) {
    std::string s = "  ";
    for (std::size_t c = 0; c < v.size(); ++c) {
      if (c) s += "  ";
      s += right[c] ? fmt::format("{:>{}}", v[c], width[c]) : fmt::format("{:<{}}", v[c], width[c]);
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out += s + "\n";
  };
  line(heads);
  std::vector<std::string> rule;
  for (std::size_t w : width) rule.push_back(std::string(w, '-'));
  line(rule);
  for (const auto& r : cells) line(r);
  // Assumptions once per column, grouping columns that share the same list.
  std::vector<std::pair<std::vector<AssumptionView>, std::vector<std::string>>> groups;
  for (std::size_t c = 0; c < t.cols.size(); ++c) {
    auto as = assumptions_of(p, column_deps(p, t, c));
    if (as.empty()) continue;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == as; });
    if (it == groups.end()) groups.push_back({as, {t.cols[c].name}});
    else it->second.push_back(t.cols[c].name);
  }
  if (!groups.empty()) out += "  assumptions:\n";
  for (const auto& [as, cols] : groups) {
    std::string names;
    for (const auto& c : cols) names += (names.empty() ? "" : ", ") + c;
    out += "    " + names + ":\n";
    assumption_block(out, as, "      ");
  }
  if (!t.notes.empty()) out += "  notes:\n";
  for (const auto& n : t.notes) {
    std::string key;
    for (std::size_t k = 0; k < t.key_names.size(); ++k)
      key += (key.empty() ? "" : ", ") + t.key_names[k] + "=" + format_value(t.rows[n.row].key[k], {});
    out += "    row " + std::to_string(n.row + 1) + " (" + key + "): " + n.text + "\n";
  }
}

}  // namespace

std::string format_text(Program& p, const RunResult& r, const std::string& file) {
  std::string out = "mls " + std::string(kVersion) + " · " + file + " · preset " + r.preset;
  out += r.preset_via == "default" ? " (default: the scenario names no preset)\n" : " (" + r.preset_via + ")\n";
  for (const auto& item : r.order) {
    switch (item.k) {
      case RunResult::Item::K::result: {
        const Shown& s = r.results[item.index];
        out += "\n" + s.name + " = " + value_with_unit(s.value, s.display) + "\n";
        assumption_block(out, assumptions_of(p, s.value.deps), "    ");
        break;
      }
      case RunResult::Item::K::table: table_text(out, p, r.tables[item.index]); break;
      case RunResult::Item::K::assertion: break;
    }
  }
  std::size_t failed = 0;
  for (const auto& a : r.asserts) {
    if (a.ok) continue;
    ++failed;
    out += "\nassertion failed: " + a.text + (a.message.empty() ? "" : " — " + a.message) + "  (" + p.sources.where_col(a.span) + ")\n";
    if (!a.detail.empty()) out += "    " + a.detail + "\n";
  }
  if (!r.asserts.empty())
    out += fmt::format("\n{} of {} assertion{} passed\n", r.asserts.size() - failed, r.asserts.size(), r.asserts.size() == 1 ? "" : "s");
  return out;
}

namespace {

void json_assumptions(std::string& out, const std::vector<AssumptionView>& as) {
  out += "[";
  for (std::size_t i = 0; i < as.size(); ++i) {
    const auto& a = as[i];
    if (i) out += ", ";
    out += "{\"kind\": " + json_string(a.kind) + ", \"name\": " + json_string(a.name) + ", \"value\": " + json_string(a.value) +
           ", \"at\": " + json_string(a.at) + ", \"via\": " + json_string(a.via) + "}";
  }
  out += "]";
}

std::string json_cell(const Value& v, const Display& d) {
  switch (v.k) {
    case Value::K::num: return json_number(in_unit(v.n, d));
    case Value::K::boolean: return v.b ? "true" : "false";
    case Value::K::str: return json_string(v.str());
    default: return "null";
  }
}

}  // namespace

std::string format_json(Program& p, const RunResult& r, const std::string& file) {
  std::string out = "{\n  \"mls\": " + json_string(kVersion) + ",\n  \"file\": " + json_string(file) +
                    ",\n  \"preset\": " + json_string(r.preset) + ",\n  \"conventions\": {";
  for (std::size_t i = 0; i < r.conventions.size(); ++i)
    out += (i ? ", " : "") + json_string(r.conventions[i].first) + ": " + json_string(r.conventions[i].second);
  out += "},\n  \"results\": [";
  for (std::size_t i = 0; i < r.results.size(); ++i) {
    const Shown& s = r.results[i];
    out += std::string(i ? "," : "") + "\n    {\"name\": " + json_string(s.name) + ", \"value\": " + json_cell(s.value, s.display) +
           ", \"unit\": " + json_string(s.display.unit) + ", \"assumptions\": ";
    json_assumptions(out, assumptions_of(p, s.value.deps));
    out += "}";
  }
  out += r.results.empty() ? "],\n" : "\n  ],\n";
  out += "  \"tables\": [";
  for (std::size_t ti = 0; ti < r.tables.size(); ++ti) {
    const Table& t = r.tables[ti];
    out += std::string(ti ? "," : "") + "\n    {\"name\": " + json_string(t.name) + ",\n     \"columns\": [";
    for (std::size_t c = 0; c < t.cols.size(); ++c)
      out += std::string(c ? ", " : "") + "{\"name\": " + json_string(t.cols[c].name) + ", \"unit\": " + json_string(t.cols[c].display.unit) + "}";
    out += "],\n     \"rows\": [";
    for (std::size_t ri = 0; ri < t.rows.size(); ++ri) {
      out += std::string(ri ? "," : "") + "\n       [";
      for (std::size_t c = 0; c < t.cols.size(); ++c) out += std::string(c ? ", " : "") + json_cell(t.rows[ri].cells[c], t.cols[c].display);
      out += "]";
    }
    out += t.rows.empty() ? "],\n" : "\n     ],\n";
    out += "     \"assumptions\": {";
    bool first = true;
    for (std::size_t c = 0; c < t.cols.size(); ++c) {
      out += std::string(first ? "" : ",") + "\n       " + json_string(t.cols[c].name) + ": ";
      first = false;
      json_assumptions(out, assumptions_of(p, column_deps(p, t, c)));
    }
    out += t.cols.empty() ? "},\n" : "\n     },\n";
    out += "     \"notes\": [";
    for (std::size_t n = 0; n < t.notes.size(); ++n)
      out += std::string(n ? "," : "") + "\n       {\"row\": " + std::to_string(t.notes[n].row) + ", \"column\": " +
             json_string(t.notes[n].column) + ", \"text\": " + json_string(t.notes[n].text) + "}";
    out += t.notes.empty() ? "]" : "\n     ]";
    if (t.search)
      out += fmt::format(",\n     \"search\": {{\"objective\": {}, \"evaluated\": {}, \"infeasible\": {}, \"filtered\": {}}}",
                         json_string(t.objective), t.evaluated, t.infeasible, t.filtered);
    out += "}";
  }
  out += r.tables.empty() ? "],\n" : "\n  ],\n";
  out += "  \"asserts\": {\"passed\": ";
  std::size_t failed = 0;
  for (const auto& a : r.asserts) failed += a.ok ? 0 : 1;
  out += std::to_string(r.asserts.size() - failed) + ", \"failed\": " + std::to_string(failed) + "},\n";
  out += "  \"warnings\": []\n}\n";
  return out;
}

std::string format_csv(Program& p, const RunResult& r) {
  (void)p;
  auto quote = [](const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  std::string out;
  for (std::size_t ti = 0; ti < r.tables.size(); ++ti) {
    const Table& t = r.tables[ti];
    if (ti) out += "\n";
    if (r.tables.size() > 1) out += "# table " + t.name + "\n";
    for (std::size_t c = 0; c < t.cols.size(); ++c) out += (c ? "," : "") + quote(header_text(t.cols[c]));
    out += "\n";
    for (const auto& row : t.rows) {
      for (std::size_t c = 0; c < t.cols.size(); ++c) out += (c ? "," : "") + quote(format_value(row.cells[c], t.cols[c].display));
      out += "\n";
    }
  }
  return out;
}

std::string format_markdown(Program& p, const RunResult& r, const std::string& file) {
  std::string out = "# " + file + " (preset " + r.preset + ")\n";
  for (const auto& item : r.order) {
    if (item.k == RunResult::Item::K::result) {
      const Shown& s = r.results[item.index];
      out += "\n- **" + s.name + "** = " + value_with_unit(s.value, s.display) + "\n";
      continue;
    }
    if (item.k != RunResult::Item::K::table) continue;
    const Table& t = r.tables[item.index];
    out += "\n## " + t.name + "\n\n|";
    for (const auto& c : t.cols) out += " " + header_text(c) + " |";
    out += "\n|";
    for (std::size_t c = 0; c < t.cols.size(); ++c)
      out += (!t.rows.empty() && is_numeric(t.rows[0].cells[c])) ? " ---: |" : " --- |";
    out += "\n";
    for (const auto& row : t.rows) {
      out += "|";
      for (std::size_t c = 0; c < t.cols.size(); ++c) {
        std::string v = format_value(row.cells[c], t.cols[c].display);
        std::string esc;
        for (char ch : v) esc += ch == '|' ? std::string("\\|") : std::string(1, ch);
        out += " " + esc + " |";
      }
      out += "\n";
    }
    for (const auto& n : t.notes) out += "\n> row " + std::to_string(n.row + 1) + ": " + n.text + "\n";
    (void)p;
  }
  return out;
}

}  // namespace mls
