// notes.cpp — regime notes: where a swept column silently changes meaning.
// Every cell knows which branches produced it (branch atoms in its deps). A note is written where
// a branch flips between rows, and where a column moves inside one regime while it is pinned in
// another (the E2 trap: local batch 64 -> 16 -> 8 while max(64, gpus) takes 64). Rows arrive one
// at a time and only bounded summaries are kept, so a million-row sweep costs no extra memory.
#include "notes.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

#include "interpreter/semantics/resolve.hpp"
#include "sweep_points.hpp"

namespace mls {

namespace {

using ArmSet = std::vector<std::uint32_t>;
constexpr std::size_t kMaxRunsPerSite = 64;    // regimes tracked in detail per branch site
constexpr std::size_t kMaxChangesPerRun = 20;  // per-row drift notes before summarising
constexpr std::size_t kMaxFlipNotesPerSite = 20;

std::string arms_text(const Site& s, const ArmSet& arms);

// Two single arms whose labels were cut to the same text ("ring_allreduce(grad_bytes, dp, bw_int...")
// are shown from just before where their full source texts differ, so the note says what changed.
std::pair<std::string, std::string> contrast(const Site& s, const ArmSet& to, const ArmSet& from) {
  std::string a = arms_text(s, to), b = arms_text(s, from);
  if (to.size() != 1 || from.size() != 1 || to[0] >= s.full_arms.size() || from[0] >= s.full_arms.size()) return {a, b};
  const std::string& fa = s.full_arms[to[0]];
  const std::string& fb = s.full_arms[from[0]];
  if (a != b) return {a, b};  // the labels already tell the two apart
  std::size_t pre = 0;
  while (pre < fa.size() && pre < fb.size() && fa[pre] == fb[pre]) ++pre;
  std::size_t start = pre > 16 ? pre - 16 : 0;
  while (start > 0 && (static_cast<unsigned char>(fa[start]) & 0xC0) == 0x80) --start;
  auto window = [&](const std::string& f) {
    std::string w = f.substr(start);
    if (w.size() > 48) w = utf8_prefix(w, 45) + "...";
    return (start > 0 ? "..." : "") + w;
  };
  return {window(fa), window(fb)};
}

std::string arms_text(const Site& s, const ArmSet& arms) {
  std::string out;
  for (std::uint32_t a : arms) {
    if (!out.empty()) out += " and ";
    out += a < s.arms.size() ? s.arms[a] : "?";
  }
  return out.empty() ? "(not reached)" : out;
}

// Branch arms per site of one row: per column, their union over columns, and ids that let
// consecutive rows be compared without touching the vectors.
struct SiteRow {
  std::uint32_t site = 0;
  std::vector<ArmSet> per;                        // per column
  ArmSet row_arms;                                // union over columns
  std::uint32_t per_id = 0;                       // equal ids <=> equal `per` (interned per site)
  const std::vector<ArmSet>* interned = nullptr;  // `per` as interned (stable for the whole table)
};
struct RowArms {
  std::vector<SiteRow> sites;  // sorted by site
  std::uint64_t id = 0;        // equal ids <=> equal rows of arms
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
  // Rows between two consecutive regime boundaries (of any site). Each row's column changes are
  // recorded once, in its segment; a site's regime is a run of segments, so per-site work is
  // needed only where some branch changes, never on every row.
  struct ColSeg {
    bool entry = false;  // changed on the segment's first row (vs the row before)
    Change entry_change;
    std::vector<Change> changes;  // within the segment, first kMaxChangesPerRun
  };
  struct Segment {
    std::size_t begin = 0;
    std::vector<ColSeg> cols;
    std::vector<std::size_t> n;  // per column: its changes within the segment (after the first row)
    std::uint64_t full = 0;      // bit c: column c (< 64) has its first kMaxChangesPerRun changes listed
  };
  struct Run {
    std::size_t begin = 0, end = 0;  // [begin, end); end set when the run closes
    ArmSet arms;
    std::vector<Value> begin_key, end_key;
    std::vector<Value> first;    // cells on the run's first row
    std::vector<bool> has_site;  // the column depends on the site in this run
    // Per column, the site's arms it was produced through on the run's first row (interned).
    const std::vector<ArmSet>* per = nullptr;
    std::size_t seg = 0;  // the segment starting at `begin`
  };
  struct SiteState {
    const std::vector<ArmSet>* prev = nullptr;  // per column, previous row (interned: never copied)
    std::uint32_t prev_id = 0;
    std::vector<Run> runs;
    std::size_t extra_runs = 0;
    std::size_t flips = 0;
    bool seen_prev = false;
  };
  std::map<std::uint32_t, SiteState> sites;
  std::unordered_map<std::vector<DepSet>, RowArms, VecHash> memo;
  std::vector<DepSet> last_deps;
  const RowArms* last_arms = nullptr;
  const RowArms* prev_arms = nullptr;  // the previous row's (stable until the memo is cleared)
  std::map<std::vector<std::pair<std::uint32_t, std::uint32_t>>, std::uint64_t> content_ids;
  std::unordered_map<std::uint64_t, std::vector<std::pair<std::uint32_t, const SiteRow*>>> transitions;
  std::uint64_t prev_arms_id = 0;
  // Per site: each distinct `per` and its id. Never cleared: SiteRow::interned points into it.
  std::map<std::uint32_t, std::map<std::vector<ArmSet>, std::uint32_t>> per_ids;
  std::map<std::uint32_t, SiteRow> absent;
  std::vector<Segment> segs;
  bool segs_overflow = false;
  std::vector<Value> prev_cells, prev_key;
  std::size_t rows = 0;
  // The row being added: a Row (row_), or a compact row (its numbers cur_x_ and deps cur_deps_,
  // point cur_point_) whose Values are made only if a note needs them (cells(), key()). After a
  // compact row the previous row is kept the same way (prev_x_...) until pcells() or pkey().
  const Row* row_ = nullptr;
  const CompactCells* compact_ = nullptr;
  std::function<void(std::size_t, std::vector<Value>&)> key_of_;
  const double* cur_x_ = nullptr;
  const std::vector<DepSet>* cur_deps_ = nullptr;
  std::size_t cur_point_ = 0;
  std::vector<Value> cur_cells_, cur_key_;
  bool cur_cells_ok_ = false, cur_key_ok_ = false;
  // The previous compact row's numbers: in its chunk while that chunk is being added, else
  // (add_chunk's end) in prev_store_, since the chunk's storage is then reused.
  const double* prev_x_ = nullptr;
  std::vector<double> prev_store_;
  const std::vector<DepSet>* prev_deps_ = nullptr;
  std::size_t prev_point_ = 0;
  bool prev_cells_ok_ = true, prev_key_ok_ = true;  // prev_cells, prev_key hold the previous row
  // Compact rows: the arms of each deps vector met (cleared with memo), and of the last one.
  std::unordered_map<const std::vector<DepSet>*, const RowArms*> by_ptr_;
  const std::vector<DepSet>* last_ptr_ = nullptr;
  // Compact rows: changes of deps vector after which add_row steps no site that could still
  // note anything (quiet; a few, direct-mapped, cleared with memo). From the arms of id
  // `from` to deps vector `to`, whose arms are `arms`: every site whose arms differ between
  // the two is frozen (see frozen()), or none does. A row described as numbers only whose
  // change is quiet is then only counted, as a row with the previous row's deps is.
  struct Quiet {
    std::uint64_t from = 0;
    const std::vector<DepSet>* to = nullptr;
    const RowArms* arms = nullptr;
  };
  std::array<Quiet, 16> quiet_{};
  static std::size_t quiet_slot(std::uint64_t from, const std::vector<DepSet>* to) {
    const std::uint64_t h = (from * 0x9E3779B97F4A7C15ull) ^ reinterpret_cast<std::uintptr_t>(to);
    return static_cast<std::size_t>((h ^ (h >> 17) ^ (h >> 5)) & 15);
  }
  std::vector<std::size_t> value_flips;
  // The columns whose cell differs from the previous row's, ascending (reused): the per-row
  // work after the comparison is proportional to what changed, not to the width of the table.
  std::vector<std::uint32_t> changed_cols;
  std::vector<Note> notes;
  const bool shortcuts;

  static constexpr std::size_t kMaxSegments = 1024;

  State(const Program& prog, const Table& table, bool fast)
      : p(prog), t(table), ncols(table.cols.size()), shortcuts(fast) {}

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

  // The current row's width and cell c's deps (a compact row's feasibility cell has none).
  [[nodiscard]] std::size_t width() const { return row_ ? row_->cells.size() : compact_->kinds.size(); }
  [[nodiscard]] DepSet dep(std::size_t c) const {
    if (row_) return row_->cells[c].deps;
    return c < cur_deps_->size() ? (*cur_deps_)[c] : DepSet{0};
  }
  const std::vector<Value>& cells() {
    if (row_) return row_->cells;
    if (!cur_cells_ok_) compact_->materialize(cur_x_, *cur_deps_, cur_cells_);
    cur_cells_ok_ = true;
    return cur_cells_;
  }
  const std::vector<Value>& key() {
    if (row_) return row_->key;
    if (!cur_key_ok_) key_of_(cur_point_, cur_key_);
    cur_key_ok_ = true;
    return cur_key_;
  }
  const std::vector<Value>& pcells() {
    if (!prev_cells_ok_) compact_->materialize(prev_x_, *prev_deps_, prev_cells);
    prev_cells_ok_ = true;
    return prev_cells;
  }
  const std::vector<Value>& pkey() {
    if (!prev_key_ok_) key_of_(prev_point_, prev_key);
    prev_key_ok_ = true;
    return prev_key;
  }

  const RowArms& arms_of(bool same_deps) {
    // Consecutive rows usually share their cells' dependency sets (one branch signature).
    if (same_deps && last_arms != nullptr) return *last_arms;
    if (row_) return arms_by_content();
    // A compact row's deps are its branch signature's vector, shared by every row with that
    // signature: its arms are found by its address, without reading the deps.
    if (cur_deps_ == last_ptr_ && last_arms != nullptr) return *last_arms;
    if (auto it = by_ptr_.find(cur_deps_); it != by_ptr_.end()) {
      last_ptr_ = cur_deps_;
      last_deps.clear();  // last_arms is not the arms of last_deps any more
      return *(last_arms = it->second);
    }
    const RowArms& ra = arms_by_content();
    by_ptr_.emplace(cur_deps_, &ra);
    last_ptr_ = cur_deps_;
    return ra;
  }

  const RowArms& arms_by_content() {
    const std::size_t n = width();
    bool same = last_arms != nullptr && last_deps.size() == n;
    for (std::size_t c = 0; same && c < n; ++c) same = last_deps[c] == dep(c);
    if (same) return *last_arms;
    last_deps.clear();
    for (std::size_t c = 0; c < n; ++c) last_deps.push_back(dep(c));
    auto it = memo.find(last_deps);
    if (it != memo.end()) return *(last_arms = &it->second);
    std::map<std::uint32_t, std::vector<ArmSet>> m;
    for (std::size_t c = 0; c < ncols; ++c)
      for (AtomId a : p.deps.atoms(last_deps[c])) {
        if (p.deps.is_assumption(a)) continue;
        auto& per = m[p.deps.atom_site(a)];
        if (per.empty()) per.resize(ncols);
        per[c].push_back(p.deps.atom_arm(a));
      }
    RowArms ra;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> content;  // (site, per_id)
    for (auto& [site, per] : m) {
      SiteRow sr;
      sr.site = site;
      std::set<std::uint32_t> u;
      for (const auto& a : per) u.insert(a.begin(), a.end());
      sr.row_arms.assign(u.begin(), u.end());
      auto& ids = per_ids[site];
      const auto id = ids.emplace(per, static_cast<std::uint32_t>(ids.size() + 1)).first;
      sr.per_id = id->second;
      sr.interned = &id->first;
      sr.per = std::move(per);
      content.emplace_back(site, sr.per_id);
      ra.sites.push_back(std::move(sr));
    }
    // Rows whose branches agree share an id, whatever else differs in their deps.
    ra.id = content_ids.emplace(content, content_ids.size() + 1).first->second;
    if (memo.size() > 4096) forget_arms();
    return *(last_arms = &memo.emplace(last_deps, std::move(ra)).first->second);
  }

  // No assumption but arithmetic approximations (the binary64 engine marks every cell) and no
  // branch: the value is a function of the swept values alone.
  [[nodiscard]] bool is_label(const Value& v) const {
    for (AtomId a : p.deps.atoms(v.deps))
      if (!p.deps.is_assumption(a) || p.deps.assumption(a).kind != AssumptionKind::approx) return false;
    return true;
  }

  // The arms of a site on a row that did not reach it: empty, with an id of its own.
  const SiteRow& absent_row(std::uint32_t site) {
    auto& a = absent[site];
    if (a.per.empty()) {
      a.site = site;
      a.per.resize(ncols);
      auto& ids = per_ids[site];
      const auto it = ids.emplace(a.per, static_cast<std::uint32_t>(ids.size() + 1)).first;
      a.per_id = it->second;
      a.interned = &it->first;
    }
    return a;
  }

  void add(Row& r, std::size_t index, const RowDelta& delta) {
    row_ = &r;
    add_row(index, delta);
    row_ = nullptr;
    std::swap(prev_cells, r.cells);  // r gets the storage of the row before (see add's contract)
    std::swap(prev_key, r.key);
    prev_cells_ok_ = prev_key_ok_ = true;
  }

  // The non-filtered rows of a chunk of compact rows. A row described against the previous
  // one (known), with the previous row's deps vector (so the same arms: no site steps) or one
  // whose change is quiet (the sites it steps are frozen), no boolean or string among its
  // changed cells (no value flip) and every changed column's list of changes in the current
  // segment full (or no segments kept any more) only counts its changes: what add_row would do
  // for it, without its calls and lookups. Any other row goes through add_row.
  void add_chunk(const CompactCells& cc, const CompactRows& chunk, std::size_t first_point, std::size_t index) {
    compact_ = &cc;
    const std::size_t width = cc.kinds.size();
    bool any = false;
    for (std::size_t r = 0; r < chunk.size(); ++r) {
      const CompactRows::Meta& m = chunk.meta[r];
      if (m.flags & CompactRows::filtered) continue;
      any = true;
      const double* const x = chunk.row(r);
      const std::uint8_t need = CompactRows::known | CompactRows::numbers_only;
      if (shortcuts && index > 0 && (m.flags & need) == need && last_arms != nullptr && last_arms->id == prev_arms_id &&
          (segs_overflow || !segs.empty())) {
        const Quiet* q = nullptr;
        if (m.deps != prev_deps_) {
          q = &quiet_[quiet_slot(prev_arms_id, m.deps)];
          if (q->to != m.deps || q->from != prev_arms_id) q = nullptr;
        }
        if ((m.deps == prev_deps_ || q) && (segs_overflow || (m.changed & ~segs.back().full) == 0)) {
          if (q) {
            // As add_row after arms_of found q->arms by the deps' address and stepped frozen
            // sites only: these are now the last and the previous row's arms.
            last_arms = prev_arms = q->arms;
            last_ptr_ = m.deps;
            last_deps.clear();
            prev_arms_id = q->arms->id;
          }
          if (!segs_overflow) {
            Segment& sg = segs.back();
            for (std::uint64_t b = m.changed; b != 0; b &= b - 1) ++sg.n[static_cast<std::size_t>(std::countr_zero(b))];
          }
          step_prev(x, m.deps, first_point + r, false, false);
          rows_to(index++);
          continue;
        }
      }
      cur_x_ = x;
      cur_deps_ = m.deps;
      cur_point_ = first_point + r;
      cur_cells_ok_ = cur_key_ok_ = false;
      add_row(index++, chunk.delta(r));
      // This row becomes the previous one: its Values if they were made, else its numbers.
      if (cur_cells_ok_) std::swap(prev_cells, cur_cells_);
      if (cur_key_ok_) std::swap(prev_key, cur_key_);
      step_prev(x, m.deps, first_point + r, cur_cells_ok_, cur_key_ok_);
    }
    // The chunk's storage is reused after this: the last row's numbers are kept.
    if (any) {
      prev_store_.assign(prev_x_, prev_x_ + width);
      prev_x_ = prev_store_.data();
    }
  }
  void step_prev(const double* x, const std::vector<DepSet>* deps, std::size_t point, bool cells_ok, bool key_ok) {
    prev_x_ = x;
    prev_deps_ = deps;
    prev_point_ = point;
    prev_cells_ok_ = cells_ok;
    prev_key_ok_ = key_ok;
  }
  void rows_to(std::size_t index) { rows = index + 1; }

  // Drops every memo of rows' arms and whatever points into them (the quiet transitions hold
  // RowArms pointers): when the memo grows past its bound, and per row for the reference.
  void forget_arms() {
    memo.clear();
    transitions.clear();
    last_arms = nullptr;
    prev_arms = nullptr;
    by_ptr_.clear();
    last_ptr_ = nullptr;
    quiet_.fill(Quiet{});
  }

  void add_row(std::size_t index, const RowDelta& delta) {
    if (!shortcuts) {
      // The reference: every row's arms recomputed and every site stepped (step itself finds
      // that a site whose arms did not change continues its regime).
      forget_arms();
    }
    const bool known = delta.known && shortcuts && index > 0;
    const RowArms& ra = arms_of(known && delta.same_deps);
    changed_cols.clear();
    if (known) {
      for (std::uint64_t m = delta.changed; m != 0; m &= m - 1)
        changed_cols.push_back(static_cast<std::uint32_t>(std::countr_zero(m)));
    } else if (index > 0) {
      for (std::uint32_t c = 0; c < ncols; ++c)
        if (!same_cell(pcells()[c], cells()[c])) changed_cols.push_back(c);
    }
    // Boolean and string columns that flip (feasibility, binding stage) are noted as values. A
    // cell that depends on no assumption and no branch is a pure function of the swept values
    // (the optimizer being swept, a grid's name): a row label, not a regime, so it is skipped.
    if (value_flips.empty()) value_flips.resize(ncols);
    for (const std::uint32_t c : changed_cols) {
      if (known && delta.numbers_only) break;
      const Value& v = cells()[c];
      if (v.k != Value::K::boolean && v.k != Value::K::str) continue;
      if (is_label(v) && is_label(pcells()[c])) continue;
      if (value_flips[c]++ < kMaxFlipNotesPerSite)
        notes.push_back(
            {index, t.cols[c].name,
             t.cols[c].name + " changes from " + format_value(pcells()[c], {}) + " to " + format_value(v, {}),
             label(key())});
    }
    // Branches: only when this row's arms differ from the previous row's.
    bool boundary = segs.empty();
    // A compact row described as numbers only that steps only frozen sites, if any: the next
    // time a row's deps change the same way it is only counted (add_chunk).
    const bool may_be_quiet = shortcuts && !row_ && known && delta.numbers_only && prev_arms;
    bool quiet = may_be_quiet;
    const std::uint64_t from_id = prev_arms_id;
    if (ra.id != prev_arms_id || !shortcuts) {
      if (prev_arms) {
        // Only the sites whose arms differ between the two rows can flip or start a regime.
        for (const auto& [site_id, sr] : transition(*prev_arms, ra)) {
          SiteState& st = sites[site_id];
          boundary |= step(st, site_id, *sr, index);
          quiet &= frozen(st);
        }
      } else {
        std::size_t k = 0;
        for (auto& [site_id, st] : sites) {
          (void)st;
          while (k < ra.sites.size() && ra.sites[k].site < site_id) ++k;
          if (k < ra.sites.size() && ra.sites[k].site == site_id) continue;
          boundary |= step(site_id, absent_row(site_id), index);
        }
        for (const auto& sr : ra.sites) boundary |= step(sr.site, sr, index);
      }
      prev_arms_id = ra.id;
      prev_arms = &ra;
    }
    if (quiet && prev_arms == &ra && last_arms == &ra)
      quiet_[quiet_slot(from_id, cur_deps_)] = {from_id, cur_deps_, &ra};
    record(index, boundary);
    rows = index + 1;
  }

  // A site none of whose further steps can change the notes: its regimes are past the limit
  // (drift_notes skips it; a step only counts one more) and its "keeps changing branch" note
  // is written (a flip adds nothing). Once frozen, a site stays so.
  static bool frozen(const SiteState& st) { return st.extra_runs > 0 && st.flips > kMaxFlipNotesPerSite; }

  // The sites whose arms differ from one row of arms to the next (cached per pair of ids).
  using Transition = std::vector<std::pair<std::uint32_t, const SiteRow*>>;
  const Transition& transition(const RowArms& from, const RowArms& to) {
    const std::uint64_t key = (from.id << 32) | to.id;
    auto it = transitions.find(key);
    if (it != transitions.end()) return it->second;
    Transition tr;
    std::size_t i = 0, j = 0;
    while (i < from.sites.size() || j < to.sites.size()) {
      if (j == to.sites.size() || (i < from.sites.size() && from.sites[i].site < to.sites[j].site)) {
        tr.emplace_back(from.sites[i].site, &absent_row(from.sites[i].site));  // no longer reached
        ++i;
      } else if (i == from.sites.size() || to.sites[j].site < from.sites[i].site) {
        tr.emplace_back(to.sites[j].site, &to.sites[j]);  // newly reached
        ++j;
      } else {
        if (from.sites[i].per_id != to.sites[j].per_id) tr.emplace_back(to.sites[j].site, &to.sites[j]);
        ++i;
        ++j;
      }
    }
    return transitions.emplace(key, std::move(tr)).first->second;
  }

  // Column changes of this row, into the current segment (a new one at a regime boundary).
  void record(std::size_t index, bool boundary) {
    if (segs_overflow) return;
    if (boundary && (segs.empty() || segs.back().begin != index)) {
      if (segs.size() >= kMaxSegments) {
        segs_overflow = true;
        return;
      }
      segs.push_back(Segment{index, std::vector<ColSeg>(ncols), std::vector<std::size_t>(ncols, 0), 0});
    }
    Segment& sg = segs.back();
    for (const std::uint32_t c : changed_cols) {
      ColSeg& cs = sg.cols[c];
      if (index == sg.begin) {
        cs.entry = true;
        cs.entry_change = Change{index, pcells()[c], cells()[c], key()};
        continue;
      }
      // Only the first changes are kept (for per-row notes); later ones are counted.
      if (cs.changes.size() < kMaxChangesPerRun) {
        cs.changes.push_back(Change{index, pcells()[c], cells()[c], key()});
        if (cs.changes.size() == kMaxChangesPerRun && c < 64) sg.full |= std::uint64_t{1} << c;
      }
      ++sg.n[c];
    }
  }

  // Returns whether a new regime starts for this site at this row.
  bool step(std::uint32_t site_id, const SiteRow& sr, std::size_t index) {
    return step(sites[site_id], site_id, sr, index);
  }
  bool step(SiteState& st, std::uint32_t site_id, const SiteRow& sr, std::size_t index) {
    // Unchanged arms for this site (another site changed): its regime simply continues.
    if (st.seen_prev && st.prev_id == sr.per_id && !st.runs.empty() && st.runs.back().end == 0) return false;
    const Site& site = p.deps.site(site_id);
    const std::vector<ArmSet>& per = sr.per;
    // Flips: a column produced through another arm than on the previous row. Past the limit
    // (the "keeps changing branch" note written) a flip changes nothing more, so the columns are
    // not looked at: naming them cost a few allocations on every row where the arms change.
    if (st.seen_prev && st.prev_id != sr.per_id && st.flips <= kMaxFlipNotesPerSite) {
      std::string cols;
      std::string first_col;
      ArmSet from, to;
      const std::vector<ArmSet>& before = *st.prev;
      for (std::size_t c = 0; c < ncols; ++c) {
        if (before[c].empty() || per[c].empty() || before[c] == per[c]) continue;
        cols += (cols.empty() ? "" : ", ") + t.cols[c].name;
        if (first_col.empty()) first_col = t.cols[c].name;
        from = before[c];
        to = per[c];
      }
      if (!cols.empty()) {
        if (st.flips < kMaxFlipNotesPerSite)
          notes.push_back({index, first_col,
                           "`" + site.what + "` (" + p.sources.where_line(site.span) + ") takes " +
                               contrast(site, to, from).first + " from here, " + contrast(site, to, from).second +
                               " before; affects " + cols,
                           label(key())});
        else if (st.flips == kMaxFlipNotesPerSite)
          notes.push_back({index, first_col,
                           "`" + site.what + "` keeps changing branch; further changes are not listed", label(key())});
        ++st.flips;
      }
    }
    if (!st.seen_prev || st.prev_id != sr.per_id) {
      st.prev = sr.interned;
      st.prev_id = sr.per_id;
    }
    st.seen_prev = true;
    // Regimes: maximal runs of rows with the same arms (over all columns).
    Run* run = st.runs.empty() ? nullptr : &st.runs.back();
    const bool continues = run && run->end == 0 && run->arms == sr.row_arms;
    if (continues) {
      for (std::size_t c = 0; c < ncols; ++c)
        if (!per[c].empty()) run->has_site[c] = true;
      return false;
    }
    if (run && run->end == 0) {
      run->end = index;
      run->end_key = pkey();
    }
    if (st.runs.size() >= kMaxRunsPerSite) {
      ++st.extra_runs;
      return false;
    }
    Run nr;
    nr.begin = index;
    nr.arms = sr.row_arms;
    nr.begin_key = key();
    nr.first = cells();
    nr.has_site.assign(ncols, false);
    for (std::size_t c = 0; c < ncols; ++c) nr.has_site[c] = !per[c].empty();
    nr.per = sr.interned;
    nr.seg = segs.size();  // record() opens this segment for the row
    if (!segs.empty() && segs.back().begin == index) nr.seg = segs.size() - 1;
    st.runs.push_back(std::move(nr));
    return true;
  }

  // A column's changes within a run: the segments it spans, each one's first-row change
  // counting except the run's own first row.
  struct RunChanges {
    bool moved = false;
    std::size_t n = 0;
    std::vector<const Change*> list;
  };
  RunChanges changes_in(const Run& run, std::size_t c) const {
    RunChanges rc;
    for (std::size_t s = run.seg; s < segs.size() && segs[s].begin < run.end; ++s) {
      const ColSeg& cs = segs[s].cols[c];
      const std::size_t n = segs[s].n[c];
      if (s != run.seg && cs.entry) {
        rc.moved = true;
        ++rc.n;
        if (rc.list.size() < kMaxChangesPerRun) rc.list.push_back(&cs.entry_change);
      }
      if (n) rc.moved = true;
      rc.n += n;
      for (const auto& ch : cs.changes)
        if (rc.list.size() < kMaxChangesPerRun) rc.list.push_back(&ch);
    }
    return rc;
  }

  // A column that moves within one regime but is pinned within another changes meaning.
  void drift_notes() {
    if (segs_overflow) return;
    for (auto& [site_id, st] : sites)
      if (!st.runs.empty() && st.runs.back().end == 0) {
        st.runs.back().end = rows;
        st.runs.back().end_key = pkey();
      }
    for (auto& [site_id, st] : sites) {
      if (st.runs.size() < 2 || st.extra_runs > 0) continue;
      const Site& site = p.deps.site(site_id);
      const std::string where = p.sources.where_line(site.span);
      for (std::size_t ri = 0; ri < st.runs.size(); ++ri) {
        const Run& run = st.runs[ri];
        if (run.end - run.begin < 2 || run.arms.empty()) continue;
        std::vector<std::pair<std::size_t, std::string>> flagged;  // column, where it is pinned
        std::vector<RunChanges> moves;
        for (std::size_t c = 0; c < ncols; ++c) {
          if (!run.has_site[c]) continue;
          RunChanges rc = changes_in(run, c);
          if (!rc.moved) continue;
          for (std::size_t rj = 0; rj < st.runs.size(); ++rj) {
            const Run& other = st.runs[rj];
            // Three rows make "pinned" evidence rather than coincidence. A column produced
            // through the same arms in both regimes (arms it inherits from an input, such as a
            // solve's answer) does not change with this branch: it is not its regime's to note.
            if (rj == ri || other.end - other.begin < 3 || !other.has_site[c] || changes_in(other, c).moved) continue;
            if (run.per && other.per && (*run.per)[c] == (*other.per)[c]) continue;
            flagged.emplace_back(c, cell(c, other.first[c]) + " where it takes " + arms_text(site, other.arms));
            moves.push_back(std::move(rc));
            break;
          }
        }
        if (flagged.empty()) continue;
        const std::string tail = "while `" + site.what + "` (" + where + ") takes " + arms_text(site, run.arms) +
                                 " these columns change meaning from row to row (rows " + label(run.begin_key) +
                                 " to " + label(run.end_key) + ")";
        // Per-row notes where few rows change; one summary where many do.
        std::map<std::size_t, std::string> per_row;
        std::map<std::size_t, std::string> labels;
        std::size_t total = 0;
        bool truncated = false;
        for (std::size_t f = 0; f < flagged.size(); ++f) {
          const auto& [c, pinned] = flagged[f];
          total += moves[f].n;
          truncated |= moves[f].n > moves[f].list.size();
          for (const Change* ch : moves[f].list) {
            labels[ch->row] = label(ch->key);
            std::string& s = per_row[ch->row];
            s += (s.empty() ? "" : ", ") + t.cols[c].name + " " + cell(c, ch->from) + " -> " + cell(c, ch->to) +
                 " (stays " + pinned + ")";
          }
        }
        if (per_row.empty()) continue;
        if (!truncated && per_row.size() <= kMaxChangesPerRun) {
          for (const auto& [row, text] : per_row)
            notes.push_back({row, t.cols[flagged.front().first].name, text + ": " + tail, labels[row]});
        } else {
          std::string cols;
          for (const auto& [c, pinned] : flagged)
            cols += (cols.empty() ? "" : ", ") + t.cols[c].name + " (stays " + pinned + ")";
          notes.push_back({per_row.begin()->first, t.cols[flagged.front().first].name,
                           cols + " move on " + std::to_string(total) + " rows: " + tail, labels.begin()->second});
        }
      }
    }
  }
};

NotesBuilder::NotesBuilder(const Program& p, const Table& t, Mode mode)
    : s_(std::make_unique<State>(p, t, mode == Mode::incremental)) {}
NotesBuilder::~NotesBuilder() = default;

void NotesBuilder::add(Row& row, std::size_t index, const RowDelta& delta) { s_->add(row, index, delta); }

void NotesBuilder::key_maker(std::function<void(std::size_t, std::vector<Value>&)> key_of) {
  s_->key_of_ = std::move(key_of);
}

void NotesBuilder::add_chunk(const CompactCells& cc, const CompactRows& rows, std::size_t first_point,
                             std::size_t first_index) {
  s_->add_chunk(cc, rows, first_point, first_index);
}

void RowDelta::compare(RowDelta& d, const std::vector<Value>& prev, const std::vector<Value>& row) {
  d = RowDelta{};
  if (row.size() != prev.size() || row.size() > 64) return;
  d.known = true;
  d.same_deps = true;
  d.numbers_only = true;
  for (std::size_t c = 0; c < row.size(); ++c) {
    const Value &a = prev[c], &b = row[c];
    d.same_deps &= a.deps == b.deps;
    if (same_cell(a, b)) continue;
    d.changed |= std::uint64_t{1} << c;
    d.numbers_only &= a.k == Value::K::num && b.k == Value::K::num;
  }
}

std::vector<Note> NotesBuilder::finish() {
  s_->drift_notes();
  std::vector<Note> out = std::move(s_->notes);
  std::stable_sort(out.begin(), out.end(), [](const Note& a, const Note& b) { return a.row < b.row; });
  return out;
}

}  // namespace mls
