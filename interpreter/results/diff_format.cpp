// diff_format.cpp — a DiffReport as text for people (what moved, by how much, because of what)
// and as JSON (the schema in docs/diff.md).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "diff.hpp"

namespace mls {

namespace {

// "node_series (default)": the value, and who set it when that is informative — always when
// the two sides were set by different hands.
std::string side_text(const std::optional<AssumptionView>& v, const std::optional<AssumptionView>& other) {
  if (!v) return "(absent)";
  const bool via_differs = other && other->via != v->via;
  if (!via_text(*v).empty() || (via_differs && v->via.kind != ViaKind::none))
    return v->value + " (" + v->via.text() + ")";
  return v->value;
}

// An absent side that has the name as another kind says so: "8 (default, stdlib)".
std::string side_of(const std::optional<AssumptionView>& v, const std::optional<AssumptionView>& other_kind,
                    const std::optional<AssumptionView>& other_side) {
  if (!v && other_kind)
    return other_kind->value + " (" + kind_name(other_kind->kind) +
           (other_kind->via.kind == ViaKind::none ? "" : ", " + other_kind->via.text()) + ")";
  return side_text(v, other_side);
}

std::string left_text(const AssumptionChange& c) { return side_of(c.left, c.left_other_kind, c.right); }
std::string right_text(const AssumptionChange& c) { return side_of(c.right, c.right_other_kind, c.left); }

// Who set one side: "preset mlsysim", "default, stdlib" (another kind of the same name).
std::string setter(const std::optional<AssumptionView>& v, const std::optional<AssumptionView>& other_kind) {
  if (v) return v->via.kind == ViaKind::none ? kind_name(v->kind) : v->via.text();
  return kind_name(other_kind->kind) + (other_kind->via.kind == ViaKind::none ? "" : ", " + other_kind->via.text());
}

// The value moves ("node_series (default) → gpu_only (command line)"), or only who set it
// does ("node_series (preset mlsysim → preset mls)").
std::string change_text(const AssumptionChange& c) {
  if (c.same_value())
    return (c.left ? c.left->value : c.left_other_kind->value) + " (" + setter(c.left, c.left_other_kind) + " → " +
           setter(c.right, c.right_other_kind) + ")";
  return left_text(c) + " → " + right_text(c);
}

std::string change_line(const AssumptionChange& c) { return c.key.text() + ": " + change_text(c); }

std::size_t width(const std::string& s) {
  // Display width: count UTF-8 lead bytes only (the arrow and dashes are one column each).
  std::size_t n = 0;
  for (unsigned char ch : s)
    if ((ch & 0xC0) != 0x80) ++n;
  return n;
}

std::string pad(const std::string& s, std::size_t w, bool right) {
  const std::size_t n = width(s);
  if (n >= w) return s;
  return right ? std::string(w - n, ' ') + s : s + std::string(w - n, ' ');
}

// Renders rows as aligned columns (numbers right-aligned), trailing spaces trimmed.
void aligned(std::string& out, const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right,
             const std::string& indent) {
  std::vector<std::size_t> w;
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) {
      if (w.size() <= c) w.push_back(0);
      w[c] = std::max(w[c], width(r[c]));
    }
  for (const auto& r : rows) {
    std::string line = indent;
    for (std::size_t c = 0; c < r.size(); ++c) line += (c ? "  " : "") + pad(r[c], w[c], c < right.size() && right[c]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
}

std::string left_of(const ValueDiff& v) { return v.status == DiffStatus::added ? "(absent)" : v.left_text; }
std::string right_of(const ValueDiff& v) { return v.status == DiffStatus::removed ? "(absent)" : v.right_text; }

// The change and the relative change, as two columns (empty where they do not apply).
std::string change_of_text(const ValueDiff& v) {
  if (v.status != DiffStatus::changed) return "";
  if (!v.comparable) return v.left.k == Value::K::num && v.right.k == Value::K::num ? "different dimensions" : "";
  return v.change_text;
}

std::string relative_of_text(const ValueDiff& v) {
  if (v.status != DiffStatus::changed) return "";
  if (!v.comparable) return "";
  return v.relative_text.empty() ? "from 0" : v.relative_text;
}

std::string note_of(const ValueDiff& v) {
  if (v.status != DiffStatus::changed) return v.status == DiffStatus::added ? "only on the right" : "only on the left";
  return v.below_resolution ? "(below the shown resolution)" : "";
}

void because_lines(std::string& out, const DiffReport& d, const std::vector<AssumptionKey>& keys,
                   const std::string& indent) {
  // `indent` may end in a word ("because "): later lines align under the first one's text.
  const std::string cont(width(indent), ' ');
  if (keys.empty()) {
    out += indent + "no assumption it depends on differs: the formulas differ\n";
    return;
  }
  // Assumptions whose value moved come first; those only set by another hand after them.
  std::vector<std::string> lines, same;
  for (const auto& k : keys) {
    const AssumptionChange* c = d.change_of(k);
    if (!c)
      lines.push_back(k.text());
    else
      (c->same_value() ? same : lines).push_back(change_line(*c));
  }
  lines.insert(lines.end(), same.begin(), same.end());
  for (std::size_t i = 0; i < lines.size(); ++i) out += (i ? cont : indent) + lines[i] + "\n";
}

std::string side_header(const std::string& label, const std::string& preset, const std::string& via) {
  return label + " · preset " + preset + " (" + via + ")";
}

void table_text(std::string& out, const DiffReport& d, const TableDiff& t) {
  if (t.only) {
    const bool added = *t.only == DiffStatus::added;
    out += fmt::format("\n{} {} — only on the {} ({} rows)\n", t.search ? "search" : "table", t.name,
                       added ? "right" : "left", added ? t.right_rows : t.left_rows);
    return;
  }
  if (!t.differs()) return;
  auto names = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  if (t.keys_differ)
    out += fmt::format("\n{} {} — the sweeps range over different variables ({} → {}): no row can be compared\n",
                       t.search ? "search" : "table", t.name, names(t.key_names), names(t.right_key_names));
  else
    out += fmt::format("\n{} {} — {} row{} compared; {} cell{} changed, {} unchanged\n", t.search ? "search" : "table",
                       t.name, t.rows_compared, t.rows_compared == 1 ? "" : "s", t.cells_changed,
                       t.cells_changed == 1 ? "" : "s", t.cells_unchanged);
  // Rows and cells past the diff's listing limit are counted, not listed (kDiffListed).
  auto rows = [&](const std::vector<std::size_t>& v, std::size_t count) {
    std::string s;
    for (std::size_t r : v) s += (s.empty() ? "" : "; ") + t.row_text(r);
    if (count > v.size()) s += fmt::format("{}and {} more", s.empty() ? "" : "; ", count - v.size());
    return s;
  };
  if (!t.columns_removed.empty()) out += "  columns only on the left: " + names(t.columns_removed) + "\n";
  if (!t.columns_added.empty()) out += "  columns only on the right: " + names(t.columns_added) + "\n";
  if (t.rows_removed_count > 0) out += "  rows only on the left: " + rows(t.rows_removed, t.rows_removed_count) + "\n";
  if (t.rows_added_count > 0) out += "  rows only on the right: " + rows(t.rows_added, t.rows_added_count) + "\n";
  if (t.cells_changed == 0) return;
  const std::string more = t.cells_changed > t.cells.size()
                               ? fmt::format(
                                     "  … and {} more changed cells (a diff lists {} cells and rows; `mls run "
                                     "--format csv` of each side has them all)\n",
                                     t.cells_changed - t.cells.size(), kDiffListed)
                               : std::string();
  if (t.cells.empty()) out += more;
  if (!t.cells.empty()) {
    std::vector<std::vector<std::string>> grid;
    std::vector<std::string> head = t.key_names;
    for (const char* h : {"column", "left", "right", "change", "relative", ""}) head.emplace_back(h);
    grid.push_back(head);
    std::vector<std::string> rule;
    for (const auto& h : head) rule.emplace_back(width(h), '-');
    grid.push_back(rule);
    std::vector<bool> right;
    for (std::size_t k = 0; k < t.key_names.size(); ++k)
      right.push_back(!t.cells.empty() && t.row_keys[t.cells[0].row][k].k == Value::K::num);
    for (bool b : {false, true, true, true, true, false}) right.push_back(b);
    for (const auto& c : t.cells) {
      std::vector<std::string> line;
      for (std::size_t k = 0; k < t.key_names.size(); ++k)
        line.push_back(format_value(t.row_keys[c.row][k], k < t.key_displays.size() ? t.key_displays[k] : Display{}));
      line.push_back(c.name);
      line.push_back(left_of(c));
      line.push_back(right_of(c));
      line.push_back(change_of_text(c));
      line.push_back(relative_of_text(c));
      line.push_back(note_of(c));
      grid.push_back(std::move(line));
    }
    // The rule row must span each column's width: rebuild it after measuring.
    std::vector<std::size_t> w(head.size(), 0);
    for (const auto& r : grid)
      for (std::size_t i = 0; i < r.size(); ++i)
        if (&r != &grid[1]) w[i] = std::max(w[i], width(r[i]));
    for (std::size_t i = 0; i < w.size(); ++i) grid[1][i] = head[i].empty() ? "" : std::string(w[i], '-');
    aligned(out, grid, right, "  ");
    out += more;
  }
  // Why: every changed cell grouped by its attribution (TableDiff::causes, counted over all of
  // them, listed or not); a group names whole columns where it can, else the listed cells.
  std::map<std::vector<AssumptionKey>, std::vector<std::size_t>> members;  // listed cells per cause
  for (std::size_t i = 0; i < t.cells.size(); ++i) members[t.cells[i].because].push_back(i);
  out += "  because:\n";
  for (const auto& cause : t.causes) {
    std::vector<std::string> parts;
    std::set<std::string> seen;
    auto add = [&](std::string part) {
      if (seen.insert(part).second) parts.push_back(std::move(part));
    };
    auto whole = [&](const std::string& column) { return cause.columns.at(column) == t.changed_columns.at(column); };
    std::size_t listed_partial = 0;
    for (std::size_t i : members[cause.because]) {
      const ValueDiff& c = t.cells[i];
      if (whole(c.name)) {
        add(c.name);
      } else {
        add(c.name + "[" + t.row_text(c.row) + "]");
        ++listed_partial;
      }
    }
    std::size_t partial = 0;
    for (const auto& [column, n] : cause.columns) {
      if (whole(column))
        add(column);  // a whole column none of whose cells is listed
      else
        partial += n;
    }
    if (partial > listed_partial) parts.push_back(fmt::format("{} more cells", partial - listed_partial));
    std::string head_line;
    for (const auto& p : parts) head_line += (head_line.empty() ? "" : ", ") + p;
    out += "    " + head_line + ":\n";
    because_lines(out, d, cause.because, "      ");
  }
  // Each cell's split between its causes, where it has several (tooling/diff_shares.hpp).
  std::string shares;
  for (const auto& c : t.cells) {
    const std::string lines = format_shares_text(c, "      ");
    if (!lines.empty()) shares += "    " + c.name + "[" + t.row_text(c.row) + "]  " + c.change_text + "\n" + lines;
  }
  if (!shares.empty())
    out += "  each cause alone (switched to the right's value, the others as on the left):\n" + shares;
}

std::string json_opt(const std::optional<double>& x) { return x ? format_json(*x) : "null"; }

std::string json_view(const std::optional<AssumptionView>& v, bool with_kind = false) {
  if (!v) return "null";
  return std::string("{") + (with_kind ? "\"kind\": " + json_string(kind_name(v->kind)) + ", " : "") +
         "\"value\": " + json_string(v->value) + ", \"via\": " + json_string(v->via.text()) +
         ", \"at\": " + json_string(v->at) + "}";
}

std::string json_row(const TableDiff& t, std::size_t row) {
  const bool right_side = row < t.row_is_right.size() && t.row_is_right[row];
  const auto& names = right_side ? t.right_key_names : t.key_names;
  const auto& displays = right_side ? t.right_key_displays : t.key_displays;
  std::string s = "{";
  for (std::size_t k = 0; k < names.size() && k < t.row_keys[row].size(); ++k)
    s += (k ? ", " : "") + json_string(names[k]) + ": " +
         json_cell(t.row_keys[row][k], k < displays.size() ? displays[k] : Display{});
  return s + "}";
}

// The fields shared by a changed result and a changed cell.
std::string json_value_diff(const ValueDiff& v) {
  const char* status = v.status == DiffStatus::changed ? "changed"
                       : v.status == DiffStatus::added ? "added"
                                                       : "removed";
  const Display& ud = v.status == DiffStatus::added ? v.right_display : v.left_display;
  std::string s = "\"status\": " + json_string(status) + ", \"unit\": " + json_string(ud.unit);
  if (v.status == DiffStatus::changed && v.right_display.unit != ud.unit)
    s += ", \"right_unit\": " + json_string(v.right_display.unit);
  s += ", \"left\": " + (v.status == DiffStatus::added ? std::string("null") : json_cell(v.left, v.left_display));
  s += ", \"right\": " + (v.status == DiffStatus::removed ? std::string("null") : json_cell(v.right, v.right_display));
  s += ", \"change\": " + json_opt(v.change) + ", \"relative_pct\": " + json_opt(v.relative_pct);
  s += ", \"below_resolution\": " + std::string(v.below_resolution ? "true" : "false") + ", \"because\": [";
  for (std::size_t i = 0; i < v.because.size(); ++i)
    s += (i ? ", " : "") + std::string("{\"kind\": ") + json_string(kind_name(v.because[i].kind)) +
         ", \"name\": " + json_string(v.because[i].name) + "}";
  return s + "], \"shares\": " + format_shares_json(v);
}

std::string json_names(const std::vector<std::string>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + json_string(v[i]);
  return s + "]";
}

}  // namespace

std::string format_diff_text(const DiffReport& d) {
  std::string out = "mls " + std::string(kVersion) + " diff · " +
                    (d.left_file == d.right_file ? d.left_file : d.left_file + " → " + d.right_file) + "\n";
  out += "  left:  " + side_header(d.left_label, d.left_preset, d.left_preset_via.text()) + "\n";
  out += "  right: " + side_header(d.right_label, d.right_preset, d.right_preset_via.text()) + "\n";
  std::vector<std::vector<std::string>> moved, same;
  for (const auto& c : d.assumptions) {
    if (c.same_value())
      same.push_back({kind_name(c.key.kind), c.key.name, change_text(c)});
    else
      moved.push_back({kind_name(c.key.kind), c.key.name, left_text(c), "→", right_text(c)});
  }
  if (d.assumptions.empty()) out += "\nno assumption differs\n";
  if (!moved.empty()) {
    out += fmt::format("\nassumptions that differ ({}):\n", moved.size());
    aligned(out, moved, {}, "  ");
  }
  if (!same.empty()) {
    out += fmt::format("\nsame value, set by another hand ({}):\n", same.size());
    aligned(out, same, {}, "  ");
  }
  if (!d.results.empty()) {
    out += "\nvalues that differ:\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& v : d.results)
      rows.push_back({v.name, left_of(v), "→", right_of(v), change_of_text(v), relative_of_text(v), note_of(v)});
    // Aligned as one grid, with each value's reasons under it.
    std::string grid;
    aligned(grid, rows, {false, true, false, true, true, true, false}, "  ");
    std::size_t pos = 0;
    for (const auto& v : d.results) {
      const std::size_t nl = grid.find('\n', pos);
      out += grid.substr(pos, nl - pos + 1);
      pos = nl + 1;
      if (v.status == DiffStatus::changed) because_lines(out, d, v.because, "      because ");
      out += format_shares_text(v, "      each cause alone: ");
    }
  }
  for (const auto& t : d.tables) table_text(out, d, t);
  out += format_assert_diffs_text(d);
  out += "\n";
  if (!d.differs()) out += "no shown value or table cell differs; ";
  // Counts of what was compared and found equal; a kind of output neither side has is not named.
  std::vector<std::string> parts;
  if (d.results_unchanged || !d.results.empty())
    parts.push_back(fmt::format("{} value{} unchanged", d.results_unchanged, d.results_unchanged == 1 ? "" : "s"));
  bool any_table = false;
  for (const auto& t : d.tables) any_table |= !t.only;
  if (any_table)
    parts.push_back(fmt::format("{} table cell{} unchanged", d.cells_unchanged(), d.cells_unchanged() == 1 ? "" : "s"));
  if (d.asserts_failed_both)
    parts.push_back(
        fmt::format("{} assert{} failing on both sides", d.asserts_failed_both, d.asserts_failed_both == 1 ? "" : "s"));
  if (parts.empty()) parts.push_back("nothing is shown on both sides");
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  out += "\n";
  return out;
}

std::string format_diff_json(const DiffReport& d) {
  auto side = [](const std::string& file, const std::string& label, const std::string& preset, const std::string& via) {
    return "{\"file\": " + json_string(file) + ", \"label\": " + json_string(label) +
           ", \"preset\": " + json_string(preset) + ", \"preset_via\": " + json_string(via) + "}";
  };
  std::string out = "{\n  \"mls\": " + json_string(kVersion) + ",\n";
  out += "  \"left\": " + side(d.left_file, d.left_label, d.left_preset, d.left_preset_via.text()) + ",\n";
  out += "  \"right\": " + side(d.right_file, d.right_label, d.right_preset, d.right_preset_via.text()) + ",\n";
  out += "  \"differs\": " + std::string(d.differs() ? "true" : "false") + ",\n  \"assumptions\": [";
  for (std::size_t i = 0; i < d.assumptions.size(); ++i) {
    const auto& c = d.assumptions[i];
    out += std::string(i ? "," : "") + "\n    {\"kind\": " + json_string(kind_name(c.key.kind)) +
           ", \"name\": " + json_string(c.key.name) + ", \"left\": " + json_view(c.left) +
           ", \"right\": " + json_view(c.right);
    if (c.left_other_kind) out += ", \"left_other_kind\": " + json_view(c.left_other_kind, true);
    if (c.right_other_kind) out += ", \"right_other_kind\": " + json_view(c.right_other_kind, true);
    out += "}";
  }
  out += d.assumptions.empty() ? "],\n" : "\n  ],\n";
  out += "  \"results\": [";
  for (std::size_t i = 0; i < d.results.size(); ++i)
    out += std::string(i ? "," : "") + "\n    {\"name\": " + json_string(d.results[i].name) + ", " +
           json_value_diff(d.results[i]) + "}";
  out += d.results.empty() ? "],\n" : "\n  ],\n";
  out += "  \"tables\": [";
  for (std::size_t ti = 0; ti < d.tables.size(); ++ti) {
    const TableDiff& t = d.tables[ti];
    const char* status = !t.only ? "compared" : *t.only == DiffStatus::added ? "added" : "removed";
    out += std::string(ti ? "," : "") + "\n    {\"name\": " + json_string(t.name) +
           ", \"status\": " + json_string(status) + ", \"left_rows\": " + std::to_string(t.left_rows) +
           ", \"right_rows\": " + std::to_string(t.right_rows);
    if (!t.only) {
      out += ",\n     \"key\": " + json_names(t.key_names) + ", \"right_key\": " + json_names(t.right_key_names) +
             ", \"keys_differ\": " + (t.keys_differ ? "true" : "false") +
             ", \"rows_compared\": " + std::to_string(t.rows_compared) +
             ", \"cells_changed\": " + std::to_string(t.cells_changed) +
             ", \"cells_unchanged\": " + std::to_string(t.cells_unchanged);
      out += ",\n     \"columns_added\": " + json_names(t.columns_added) +
             ", \"columns_removed\": " + json_names(t.columns_removed);
      auto rows = [&](const std::vector<std::size_t>& v) {
        std::string s = "[";
        for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + json_row(t, v[i]);
        return s + "]";
      };
      out += ",\n     \"rows_added\": " + rows(t.rows_added) + ", \"rows_removed\": " + rows(t.rows_removed) +
             ", \"rows_added_count\": " + std::to_string(t.rows_added_count) +
             ", \"rows_removed_count\": " + std::to_string(t.rows_removed_count);
      out += ",\n     \"cells\": [";
      for (std::size_t i = 0; i < t.cells.size(); ++i)
        out += std::string(i ? "," : "") + "\n       {\"row\": " + json_row(t, t.cells[i].row) +
               ", \"column\": " + json_string(t.cells[i].name) + ", " + json_value_diff(t.cells[i]) + "}";
      out += t.cells.empty() ? "]" : "\n     ]";
    }
    out += ", \"search\": " + std::string(t.search ? "true" : "false") + "}";
  }
  out += d.tables.empty() ? "],\n" : "\n  ],\n";
  out += "  \"asserts\": " + format_assert_diffs_json(d) + ",\n";
  out += "  \"unchanged\": {\"results\": " + std::to_string(d.results_unchanged) +
         ", \"cells\": " + std::to_string(d.cells_unchanged()) +
         ", \"asserts_failed_both\": " + std::to_string(d.asserts_failed_both) + "}\n}\n";
  return out;
}

std::string assumption_change_text(const AssumptionChange& c) { return change_text(c); }
std::string diff_left_text(const ValueDiff& v) { return left_of(v); }
std::string diff_right_text(const ValueDiff& v) { return right_of(v); }
std::string diff_change_text(const ValueDiff& v) { return change_of_text(v); }
std::string diff_relative_text(const ValueDiff& v) { return relative_of_text(v); }
std::string diff_note_text(const ValueDiff& v) { return note_of(v); }

}  // namespace mls
