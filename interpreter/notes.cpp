// notes.cpp — regime notes: where a swept column silently changes meaning.
// Every cell knows which branches produced it (branch atoms in its deps). A note is written where
// a branch flips between rows, and where a column moves inside one regime while it is pinned in
// another (the E2 trap: local batch 64 -> 16 -> 8 while max(64, gpus) takes 64).
#include <algorithm>
#include <map>
#include <set>

#include "run.hpp"

namespace mls {

namespace {

using ArmSet = std::vector<std::uint32_t>;

std::string arms_text(const Site& s, const ArmSet& arms) {
  std::string out;
  for (std::uint32_t a : arms) {
    if (!out.empty()) out += " and ";
    out += a < s.arms.size() ? s.arms[a] : "?";
  }
  return out.empty() ? "(not reached)" : out;
}

bool same_cell(const Value& a, const Value& b) {
  if (a.k != b.k) return false;
  if (a.k == Value::K::num) return compare(a.n, b.n) == 0;
  if (a.k == Value::K::boolean) return a.b == b.b;
  if (a.k == Value::K::str) return a.str() == b.str();
  return true;
}

std::string row_label(const Table& t, std::size_t r) {
  std::string s;
  for (std::size_t k = 0; k < t.key_names.size() && k < t.rows[r].key.size(); ++k) {
    if (!s.empty()) s += ", ";
    s += t.key_names[k] + "=" + format_value(t.rows[r].key[k], Display{});
  }
  return s;
}

std::string cell_text(const Table& t, std::size_t c, const Value& v) {
  std::string s = format_value(v, t.cols[c].display);
  if (v.k == Value::K::num && !t.cols[c].display.unit.empty()) s += " " + t.cols[c].display.unit;
  return s;
}

}  // namespace

void regime_notes(const Program& p, Table& t) {
  const std::size_t nrows = t.rows.size();
  const std::size_t ncols = t.cols.size();
  if (nrows < 2) return;
  // arms[site][col][row]: the arms of `site` that produced cell (row, col).
  std::map<std::uint32_t, std::vector<std::vector<ArmSet>>> arms;
  for (std::size_t r = 0; r < nrows; ++r)
    for (std::size_t c = 0; c < ncols; ++c)
      for (AtomId a : p.deps.atoms(t.rows[r].cells[c].deps)) {
        if (p.deps.is_assumption(a)) continue;
        auto& per = arms[p.deps.atom_site(a)];
        if (per.empty()) per.assign(ncols, std::vector<ArmSet>(nrows));
        per[c][r].push_back(p.deps.atom_arm(a));
      }
  std::map<std::size_t, std::vector<std::pair<std::string, std::string>>> by_row;  // row -> (column, text)
  for (auto& [site_id, per] : arms) {
    const Site& site = p.deps.site(site_id);
    const std::string where = p.sources.where_line(site.span);
    // Rows where this site's arms change, per column; merged into one note per row.
    std::map<std::size_t, std::pair<std::vector<std::string>, std::pair<ArmSet, ArmSet>>> flips;
    for (std::size_t c = 0; c < ncols; ++c)
      for (std::size_t r = 1; r < nrows; ++r) {
        const ArmSet& a = per[c][r - 1];
        const ArmSet& b = per[c][r];
        if (a == b || a.empty() || b.empty()) continue;
        auto& f = flips[r];
        f.first.push_back(t.cols[c].name);
        f.second = {a, b};
      }
    for (const auto& [r, f] : flips) {
      std::string cols;
      for (const auto& c : f.first) cols += (cols.empty() ? "" : ", ") + c;
      by_row[r].emplace_back(f.first.front(), "`" + site.what + "` (" + where + ") takes " + arms_text(site, f.second.second) +
                                                  " from here, " + arms_text(site, f.second.first) + " before; affects " + cols);
    }
    // Regimes: maximal runs of rows with the same arms (over all columns of the table).
    std::vector<ArmSet> row_arms(nrows);
    for (std::size_t r = 0; r < nrows; ++r) {
      std::set<std::uint32_t> s;
      for (std::size_t c = 0; c < ncols; ++c) s.insert(per[c][r].begin(), per[c][r].end());
      row_arms[r].assign(s.begin(), s.end());
    }
    std::vector<std::pair<std::size_t, std::size_t>> runs;  // [begin, end)
    for (std::size_t r = 0; r < nrows; ++r) {
      if (runs.empty() || row_arms[r] != row_arms[runs.back().first]) runs.push_back({r, r + 1});
      else runs.back().second = r + 1;
    }
    if (runs.size() < 2) continue;
    // A column that moves within one regime but is pinned within another changes meaning.
    for (std::size_t ri = 0; ri < runs.size(); ++ri) {
      const auto [b, e] = runs[ri];
      if (e - b < 2 || row_arms[b].empty()) continue;
      std::vector<std::pair<std::size_t, std::string>> pinned_elsewhere;  // column, pinned value text
      for (std::size_t c = 0; c < ncols; ++c) {
        if (per[c][b].empty()) continue;
        bool moves = false;
        for (std::size_t r = b + 1; r < e; ++r)
          if (!same_cell(t.rows[r].cells[c], t.rows[r - 1].cells[c])) moves = true;
        if (!moves) continue;
        for (std::size_t rj = 0; rj < runs.size(); ++rj) {
          const auto [b2, e2] = runs[rj];
          if (rj == ri || e2 - b2 < 2 || per[c][b2].empty()) continue;
          bool pinned = true;
          for (std::size_t r = b2 + 1; r < e2; ++r)
            if (!same_cell(t.rows[r].cells[c], t.rows[b2].cells[c])) pinned = false;
          if (pinned) {
            pinned_elsewhere.emplace_back(c, cell_text(t, c, t.rows[b2].cells[c]) + " where it takes " +
                                                  arms_text(site, row_arms[b2]));
            break;
          }
        }
      }
      if (pinned_elsewhere.empty()) continue;
      for (std::size_t r = b + 1; r < e; ++r) {
        std::string moved;
        for (const auto& [c, pinned] : pinned_elsewhere) {
          if (same_cell(t.rows[r].cells[c], t.rows[r - 1].cells[c])) continue;
          moved += (moved.empty() ? "" : ", ") + t.cols[c].name + " " + cell_text(t, c, t.rows[r - 1].cells[c]) + " -> " +
                   cell_text(t, c, t.rows[r].cells[c]) + " (stays " + pinned + ")";
        }
        if (moved.empty()) continue;
        by_row[r].emplace_back(t.cols[pinned_elsewhere.front().first].name,
                               moved + ": while `" + site.what + "` (" + where + ") takes " + arms_text(site, row_arms[b]) +
                                   " these columns change meaning from row to row (rows " + row_label(t, b) + " to " +
                                   row_label(t, e - 1) + ")");
      }
    }
  }
  // Boolean and string columns that flip (feasibility, binding stage). A cell that depends on no
  // assumption and no branch is a pure function of the swept values (the optimizer being swept,
  // a grid's name): a row label, not a regime, so its changes are not notes.
  const auto labels_only = [&](const Value& a, const Value& b) {
    return p.deps.atoms(a.deps).empty() && p.deps.atoms(b.deps).empty();
  };
  for (std::size_t c = 0; c < ncols; ++c)
    for (std::size_t r = 1; r < nrows; ++r) {
      const Value& a = t.rows[r - 1].cells[c];
      const Value& b = t.rows[r].cells[c];
      if ((a.k == Value::K::boolean || a.k == Value::K::str) && !same_cell(a, b) && !labels_only(a, b))
        by_row[r].emplace_back(t.cols[c].name, t.cols[c].name + " changes from " + format_value(a, {}) + " to " + format_value(b, {}));
    }
  for (auto& [r, list] : by_row)
    for (auto& [col, text] : list) t.notes.push_back(Note{r, col, text});
}

}  // namespace mls
