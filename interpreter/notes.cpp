// notes.cpp — regime notes: where a swept column silently changes meaning.
// Every cell knows which branches produced it (branch atoms in its deps). A note is written where
// a branch flips between rows, and where a column moves inside one regime while it is pinned in
// another (the E2 trap: local batch 64 -> 16 -> 8 while max(64, gpus) takes 64). Rows arrive one
// at a time and only bounded summaries are kept, so a million-row sweep costs no extra memory.
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "run.hpp"

namespace mls {

namespace {

using ArmSet = std::vector<std::uint32_t>;
constexpr std::size_t kMaxRunsPerSite = 64;     // regimes tracked in detail per branch site
constexpr std::size_t kMaxChangesPerRun = 20;   // per-row drift notes before summarising
constexpr std::size_t kMaxFlipNotesPerSite = 20;

bool same_cell(const Value& a, const Value& b) {
  if (a.k != b.k) return false;
  if (a.k == Value::K::num) return compare(a.n, b.n) == 0;
  if (a.k == Value::K::boolean) return a.b == b.b;
  if (a.k == Value::K::str) return a.str() == b.str();
  return true;
}

std::string arms_text(const Site& s, const ArmSet& arms) {
  std::string out;
  for (std::uint32_t a : arms) {
    if (!out.empty()) out += " and ";
    out += a < s.arms.size() ? s.arms[a] : "?";
  }
  return out.empty() ? "(not reached)" : out;
}

// Branch arms per site of one row: site -> (per column arms, union over columns).
struct RowArms {
  std::vector<std::pair<std::uint32_t, std::vector<ArmSet>>> sites;  // sorted by site
};

struct VecHash {
  std::size_t operator()(const std::vector<DepSet>& v) const {
    std::size_t h = 1469598103934665603ull;
    for (auto x : v) h = (h ^ x) * 1099511628211ull;
    return h;
  }
};

}  // namespace

struct NotesBuilder::State {
  const Program& p;
  const Table& t;
  std::size_t ncols;

  struct Change {
    std::size_t row;
    Value from, to;
    std::vector<Value> key;
  };
  struct ColRun {
    bool has_site = false;  // the column depends on the site in this run
    bool moved = false;
    Value first;
    std::vector<Change> changes;  // first kMaxChangesPerRun
    std::size_t nchanges = 0;
  };
  struct Run {
    std::size_t begin = 0, end = 0;  // [begin, end)
    ArmSet arms;
    std::vector<Value> begin_key, end_key;
    std::vector<ColRun> cols;
  };
  struct SiteState {
    std::vector<ArmSet> prev;  // per column, previous row
    std::vector<Run> runs;
    std::size_t extra_runs = 0;
    std::size_t flips = 0;
    bool seen_prev = false;
  };
  std::map<std::uint32_t, SiteState> sites;
  std::unordered_map<std::vector<DepSet>, RowArms, VecHash> memo;
  std::vector<Value> prev_cells;
  std::size_t rows = 0;
  std::vector<std::size_t> value_flips;
  std::vector<Note> notes;

  State(const Program& prog, const Table& table) : p(prog), t(table), ncols(table.cols.size()) {}

  // Row labels are formatted only when a note needs them (formatting exact keys is not free).
  std::string label(const std::vector<Value>& key) const {
    std::string s;
    for (std::size_t k = 0; k < t.key_names.size() && k < key.size(); ++k)
      s += (s.empty() ? "" : ", ") + t.key_names[k] + "=" + format_value(key[k], Display{});
    return s;
  }

  std::string cell(std::size_t c, const Value& v) const {
    std::string s = format_value(v, t.cols[c].display);
    if (v.k == Value::K::num && !t.cols[c].display.unit.empty()) s += " " + t.cols[c].display.unit;
    return s;
  }

  const RowArms& arms_of(const Row& r) {
    std::vector<DepSet> key;
    key.reserve(ncols);
    for (const auto& v : r.cells) key.push_back(v.deps);
    auto it = memo.find(key);
    if (it != memo.end()) return it->second;
    std::map<std::uint32_t, std::vector<ArmSet>> m;
    for (std::size_t c = 0; c < ncols; ++c)
      for (AtomId a : p.deps.atoms(key[c])) {
        if (p.deps.is_assumption(a)) continue;
        auto& per = m[p.deps.atom_site(a)];
        if (per.empty()) per.resize(ncols);
        per[c].push_back(p.deps.atom_arm(a));
      }
    RowArms ra;
    for (auto& [site, per] : m) ra.sites.emplace_back(site, std::move(per));
    if (memo.size() > 4096) memo.clear();
    return memo.emplace(std::move(key), std::move(ra)).first->second;
  }

  // No assumption but arithmetic approximations (the binary64 engine marks every cell) and no
  // branch: the value is a function of the swept values alone.
  [[nodiscard]] bool is_label(const Value& v) const {
    for (AtomId a : p.deps.atoms(v.deps))
      if (!p.deps.is_assumption(a) || p.deps.assumption(a).kind != AssumptionKind::approx) return false;
    return true;
  }

  void add(const Row& r, std::size_t index) {
    const RowArms& ra = arms_of(r);
    std::vector<bool> changed(ncols, false);
    if (index > 0)
      for (std::size_t c = 0; c < ncols; ++c) changed[c] = !same_cell(prev_cells[c], r.cells[c]);
    // Boolean and string columns that flip (feasibility, binding stage) are noted as values. A
    // cell that depends on no assumption and no branch is a pure function of the swept values
    // (the optimizer being swept, a grid's name): a row label, not a regime, so it is skipped.
    if (value_flips.empty()) value_flips.resize(ncols);
    for (std::size_t c = 0; c < ncols; ++c) {
      const Value& v = r.cells[c];
      if (!changed[c] || (v.k != Value::K::boolean && v.k != Value::K::str)) continue;
      if (is_label(v) && is_label(prev_cells[c])) continue;
      if (value_flips[c]++ < kMaxFlipNotesPerSite)
        notes.push_back({index, t.cols[c].name,
                         t.cols[c].name + " changes from " + format_value(prev_cells[c], {}) + " to " + format_value(v, {}), label(r.key)});
    }
    // Sites seen before but absent now keep their previous arms as "not reached".
    std::set<std::uint32_t> present;
    for (const auto& [site, per] : ra.sites) {
      present.insert(site);
      step(site, per, r, index, changed);
    }
    for (auto& [site, st] : sites)
      if (!present.count(site)) step(site, std::vector<ArmSet>(ncols), r, index, changed);
    prev_cells = r.cells;
    rows = index + 1;
  }

  void step(std::uint32_t site_id, const std::vector<ArmSet>& per, const Row& r, std::size_t index,
            const std::vector<bool>& changed) {
    SiteState& st = sites[site_id];
    const Site& site = p.deps.site(site_id);
    if (st.prev.empty()) st.prev.resize(ncols);
    // Flips: a column produced through another arm than on the previous row.
    if (st.seen_prev) {
      std::string cols;
      std::string first_col;
      ArmSet from, to;
      for (std::size_t c = 0; c < ncols; ++c) {
        if (st.prev[c].empty() || per[c].empty() || st.prev[c] == per[c]) continue;
        cols += (cols.empty() ? "" : ", ") + t.cols[c].name;
        if (first_col.empty()) first_col = t.cols[c].name;
        from = st.prev[c];
        to = per[c];
      }
      if (!cols.empty()) {
        if (st.flips < kMaxFlipNotesPerSite)
          notes.push_back({index, first_col,
                           "`" + site.what + "` (" + p.sources.where_line(site.span) + ") takes " + arms_text(site, to) +
                               " from here, " + arms_text(site, from) + " before; affects " + cols,
                           label(r.key)});
        else if (st.flips == kMaxFlipNotesPerSite)
          notes.push_back({index, first_col, "`" + site.what + "` keeps changing branch; further changes are not listed", label(r.key)});
        ++st.flips;
      }
    }
    st.prev = per;
    st.seen_prev = true;
    // Regimes: maximal runs of rows with the same arms (over all columns).
    std::set<std::uint32_t> u;
    for (const auto& a : per) u.insert(a.begin(), a.end());
    const ArmSet row_arms(u.begin(), u.end());
    Run* run = st.runs.empty() ? nullptr : &st.runs.back();
    if (!run || run->arms != row_arms || run->end != index) {
      if (st.runs.size() >= kMaxRunsPerSite) {
        ++st.extra_runs;
        return;
      }
      st.runs.push_back(Run{index, index, row_arms, r.key, r.key, std::vector<ColRun>(ncols)});
      run = &st.runs.back();
      for (std::size_t c = 0; c < ncols; ++c) run->cols[c].first = r.cells[c];
    } else {
      for (std::size_t c = 0; c < ncols; ++c) {
        if (!changed[c]) continue;
        ColRun& cr = run->cols[c];
        cr.moved = true;
        if (cr.changes.size() < kMaxChangesPerRun) cr.changes.push_back({index, prev_cells[c], r.cells[c], r.key});
        ++cr.nchanges;
      }
    }
    for (std::size_t c = 0; c < ncols; ++c)
      if (!per[c].empty()) run->cols[c].has_site = true;
    run->end = index + 1;
    run->end_key = r.key;
  }

  // A column that moves within one regime but is pinned within another changes meaning.
  void drift_notes() {
    for (auto& [site_id, st] : sites) {
      if (st.runs.size() < 2 || st.extra_runs > 0) continue;
      const Site& site = p.deps.site(site_id);
      const std::string where = p.sources.where_line(site.span);
      for (std::size_t ri = 0; ri < st.runs.size(); ++ri) {
        const Run& run = st.runs[ri];
        if (run.end - run.begin < 2 || run.arms.empty()) continue;
        std::vector<std::pair<std::size_t, std::string>> flagged;  // column, where it is pinned
        for (std::size_t c = 0; c < ncols; ++c) {
          if (!run.cols[c].has_site || !run.cols[c].moved) continue;
          for (std::size_t rj = 0; rj < st.runs.size(); ++rj) {
            const Run& other = st.runs[rj];
            // Three rows make "pinned" evidence rather than coincidence.
            if (rj == ri || other.end - other.begin < 3 || !other.cols[c].has_site || other.cols[c].moved) continue;
            flagged.emplace_back(c, cell(c, other.cols[c].first) + " where it takes " + arms_text(site, other.arms));
            break;
          }
        }
        if (flagged.empty()) continue;
        const std::string tail = "while `" + site.what + "` (" + where + ") takes " + arms_text(site, run.arms) +
                                 " these columns change meaning from row to row (rows " + label(run.begin_key) + " to " +
                                 label(run.end_key) + ")";
        // Per-row notes where few rows change; one summary where many do.
        std::map<std::size_t, std::string> per_row;
        std::map<std::size_t, std::string> labels;
        std::size_t total = 0;
        bool truncated = false;
        for (const auto& [c, pinned] : flagged) {
          const ColRun& cr = run.cols[c];
          total += cr.nchanges;
          truncated |= cr.nchanges > cr.changes.size();
          for (const auto& ch : cr.changes) {
            labels[ch.row] = label(ch.key);
            std::string& s = per_row[ch.row];
            s += (s.empty() ? "" : ", ") + t.cols[c].name + " " + cell(c, ch.from) + " -> " + cell(c, ch.to) + " (stays " + pinned + ")";
          }
        }
        if (!truncated && per_row.size() <= kMaxChangesPerRun) {
          for (const auto& [row, text] : per_row)
            notes.push_back({row, t.cols[flagged.front().first].name, text + ": " + tail, labels[row]});
        } else {
          std::string cols;
          for (const auto& [c, pinned] : flagged) cols += (cols.empty() ? "" : ", ") + t.cols[c].name + " (stays " + pinned + ")";
          notes.push_back({per_row.begin()->first, t.cols[flagged.front().first].name,
                           cols + " move on " + std::to_string(total) + " rows: " + tail, labels.begin()->second});
        }
      }
    }
  }
};

NotesBuilder::NotesBuilder(const Program& p, const Table& t) : s_(std::make_unique<State>(p, t)) {}
NotesBuilder::~NotesBuilder() = default;

void NotesBuilder::add(const Row& row, std::size_t index) { s_->add(row, index); }

std::vector<Note> NotesBuilder::finish() {
  s_->drift_notes();
  std::vector<Note> out = std::move(s_->notes);
  std::stable_sort(out.begin(), out.end(), [](const Note& a, const Note& b) { return a.row < b.row; });
  return out;
}

}  // namespace mls
