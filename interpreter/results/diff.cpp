// diff.cpp — matching two runs value by value and cell by cell, and attributing each change to
// the assumptions that differ between the sides and that the value depends on.
#include "diff.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace mls {

namespace {

int kind_rank(AssumptionKind k) {
  switch (k) {
    case AssumptionKind::convention: return 0;
    case AssumptionKind::set: return 1;
    case AssumptionKind::registry: return 2;
    case AssumptionKind::default_: return 3;
    case AssumptionKind::approx: return 4;
    case AssumptionKind::note:
    case AssumptionKind::validation: return 9;
  }
  return 9;
}

}  // namespace

bool AssumptionKey::operator<(const AssumptionKey& o) const {
  const int c = std::string_view(kind_name(kind)).compare(kind_name(o.kind));
  return c != 0 ? c < 0 : name < o.name;
}

namespace {

bool key_before(const AssumptionKey& a, const AssumptionKey& b) {
  const int ra = kind_rank(a.kind), rb = kind_rank(b.kind);
  return ra != rb ? ra < rb : a.name < b.name;
}

AssumptionView view_of(const ResultScope& p, AtomId a) {
  const Assumption& as = p.deps.assumption(a);
  AssumptionView v;
  v.kind = as.kind;
  v.name = as.name;
  v.value = as.value;
  v.at = p.sources.where_line(as.at);
  v.via = as.via;
  v.band = as.band;
  v.domain = as.domain;
  v.extrapolated = as.extrapolated;
  return v;
}

// A text that is equal exactly when two row keys are equal (exact rationals where known).
std::string key_identity(const std::vector<Value>& key) {
  std::string s;
  for (const auto& v : key) {
    switch (v.k) {
      case Value::K::num: s += "n" + (v.n.exact() ? exact_text(v.n) : format_json(v.n.d)); break;
      case Value::K::boolean: s += v.b ? "t" : "f"; break;
      case Value::K::str: s += "s" + std::to_string(v.str().size()) + ":" + v.str(); break;
      case Value::K::record: s += "r" + record_label(v); break;
      default: s += "?"; break;
    }
    s += '\x1f';
  }
  return s;
}

std::string signed_text(const std::string& s, const Num& x) { return compare(x, Num::of_int(0)) > 0 ? "+" + s : s; }

std::string unit_suffix(const Display& d) { return d.unit.empty() ? "" : (d.unit == "%" ? "%" : " " + d.unit); }

std::string delta_text(const Num& dx, const Display& ld, bool below_resolution) {
  std::string change;
  if (ld.resolution && !below_resolution) {
    const Num rounded = round_to(dx, *ld.resolution);
    if (!is_zero(rounded)) change = format_fixed(rounded, decimals_of_resolution(*ld.resolution));
  }
  if (change.empty()) change = format_sig(dx, below_resolution ? 3 : 4);
  // The difference of two percentages is in percentage points: "-46.5 pp", so that it is not
  // read as the relative change printed next to it.
  return signed_text(change, dx) + (ld.unit == "%" ? " pp" : unit_suffix(ld));
}

// Pairs items by (name, occurrence): the second `show x` on the left meets the second on the right.
template <typename T, typename NameOf>
std::vector<std::pair<std::optional<std::size_t>, std::optional<std::size_t>>> match_by_name(const std::vector<T>& l,
                                                                                             const std::vector<T>& r,
                                                                                             NameOf name_of) {
  std::unordered_map<std::string, std::vector<std::size_t>> right;
  for (std::size_t i = 0; i < r.size(); ++i) right[name_of(r[i])].push_back(i);
  std::unordered_map<std::string, std::size_t> taken;
  std::vector<bool> used(r.size(), false);
  std::vector<std::pair<std::optional<std::size_t>, std::optional<std::size_t>>> out;
  for (std::size_t i = 0; i < l.size(); ++i) {
    const std::string n = name_of(l[i]);
    auto it = right.find(n);
    std::size_t& k = taken[n];
    if (it != right.end() && k < it->second.size()) {
      out.push_back({i, it->second[k]});
      used[it->second[k]] = true;
      ++k;
    } else {
      out.push_back({i, std::nullopt});
    }
  }
  for (std::size_t j = 0; j < r.size(); ++j)
    if (!used[j]) out.push_back({std::nullopt, j});
  return out;
}

ValueDiff one_sided(DiffStatus st, const std::string& name, const Value& v, const Display& d) {
  ValueDiff vd;
  vd.status = st;
  vd.name = name;
  (st == DiffStatus::added ? vd.right : vd.left) = v;
  (st == DiffStatus::added ? vd.right_display : vd.left_display) = d;
  (st == DiffStatus::added ? vd.right_text : vd.left_text) = value_with_unit(v, d);
  return vd;
}

class Differ {
 public:
  Differ(const DiffSide& l, const DiffSide& r) : l_(l), r_(r) {
    std::vector<DepSet> lused, rused;
    collect(*l.run, lused);
    collect(*r.run, rused);
    lmap_ = effective_assumptions(l.scope, l.configured, lused);
    rmap_ = effective_assumptions(r.scope, r.configured, rused);
  }

  DiffReport run() {
    DiffReport d;
    d.left_file = l_.file;
    d.right_file = r_.file;
    d.left_label = l_.label;
    d.right_label = r_.label;
    d.left_preset = l_.run->preset;
    d.right_preset = r_.run->preset;
    d.left_preset_via = l_.run->preset_via;
    d.right_preset_via = r_.run->preset_via;
    d.assumptions = differing_assumptions(lmap_, rmap_);
    results(d);
    auto pairs = match_by_name(l_.run->tables, r_.run->tables, [](const Table& t) { return t.name; });
    for (const auto& [li, ri] : pairs) {
      if (li && ri) {
        d.tables.push_back(table(l_.run->tables[*li], r_.run->tables[*ri]));
      } else {
        const Table& t = li ? l_.run->tables[*li] : r_.run->tables[*ri];
        TableDiff td;
        td.name = t.name;
        td.search = t.search;
        td.only = li ? DiffStatus::removed : DiffStatus::added;
        (li ? td.left_rows : td.right_rows) = t.rows.size();
        d.tables.push_back(std::move(td));
      }
    }
    diff_asserts(l_, r_, d);
    return d;
  }

 private:
  // Each dependency set the outputs carry, once (a table's cells mostly share a few).
  static void collect(const RunResult& r, std::vector<DepSet>& used) {
    std::unordered_set<DepSet> seen;
    auto use = [&](DepSet d) {
      if (seen.insert(d).second) used.push_back(d);
    };
    for (const auto& s : r.results)
      for (DepSet d : deps_within(s.value)) use(d);
    for (const auto& t : r.tables)
      for (const auto& row : t.rows)
        for (const auto& c : row.cells) use(c.deps);
  }

  void results(DiffReport& d) {
    const auto& lr = l_.run->results;
    const auto& rr = r_.run->results;
    for (const auto& [li, ri] : match_by_name(lr, rr, [](const Shown& s) { return s.name; })) {
      if (li && ri) {
        const Shown& a = lr[*li];
        const Shown& b = rr[*ri];
        auto vd = compare_values(a.value, a.type, a.display, b.value, b.type, b.display);
        if (!vd) {
          ++d.results_unchanged;
          continue;
        }
        vd->name = a.name;
        vd->because = attribute(lmap_, rmap_, l_.scope, deps_within(a.value), r_.scope, deps_within(b.value));
        d.results.push_back(std::move(*vd));
      } else if (li) {
        d.results.push_back(one_sided(DiffStatus::removed, lr[*li].name, lr[*li].value, lr[*li].display));
      } else {
        d.results.push_back(one_sided(DiffStatus::added, rr[*ri].name, rr[*ri].value, rr[*ri].display));
      }
    }
  }

  TableDiff table(const Table& a, const Table& b) {
    TableDiff td;
    td.name = a.name;
    td.search = a.search || b.search;
    td.left_rows = a.rows.size();
    td.right_rows = b.rows.size();
    td.key_names = a.key_names;
    td.right_key_names = b.key_names;
    // A key is shown like the column of the same name, if the sweep shows it.
    auto displays = [](const Table& t) {
      std::vector<Display> out;
      for (const auto& k : t.key_names) {
        Display kd;
        for (const auto& c : t.cols)
          if (c.name == k) kd = c.display;
        out.push_back(kd);
      }
      return out;
    };
    td.key_displays = displays(a);
    td.right_key_displays = displays(b);
    td.keys_differ = a.key_names != b.key_names;
    // Columns by name; a name shown twice pairs by occurrence.
    std::vector<std::pair<std::size_t, std::size_t>> cols;
    for (const auto& [li, ri] : match_by_name(a.cols, b.cols, [](const Column& c) { return c.name; })) {
      if (li && ri)
        cols.emplace_back(*li, *ri);
      else if (li)
        td.columns_removed.push_back(a.cols[*li].name);
      else
        td.columns_added.push_back(b.cols[*ri].name);
    }
    auto add_key = [&](const std::vector<Value>& k, bool right_side = false) {
      td.row_keys.push_back(k);
      td.row_is_right.push_back(right_side);
      return td.row_keys.size() - 1;
    };
    // A row on one side only: counted, and listed while the diff lists (kDiffListed).
    auto one_sided = [&](const std::vector<Value>& k, bool right_side) {
      ++(right_side ? td.rows_added_count : td.rows_removed_count);
      if (listed_ >= kDiffListed) return;
      ++listed_;
      (right_side ? td.rows_added : td.rows_removed).push_back(add_key(k, right_side));
    };
    if (td.keys_differ) {
      for (const auto& row : a.rows) one_sided(row.key, false);
      for (const auto& row : b.rows) one_sided(row.key, true);
      return td;
    }
    std::vector<bool> used(b.rows.size(), false);
    std::map<std::vector<AssumptionKey>, std::size_t> cause_index;  // into td.causes
    auto compare = [&](const Row& row, const Row& other) {
      compare_row(td, a, b, cols, row, other, add_key, cause_index);
    };
    std::vector<std::size_t> unmatched = match_rows(a, b, {}, {}, used, compare);
    // Keys that read a solve's answer move with it: the rows left over meet by their other keys.
    if (!a.key_solved.empty() && a.key_solved == b.key_solved)
      unmatched = match_rows(a, b, unmatched, a.key_solved, used, compare);
    for (std::size_t i : unmatched) one_sided(a.rows[i].key, false);
    for (std::size_t j = 0; j < b.rows.size(); ++j)
      if (!used[j]) one_sided(b.rows[j].key, true);
    return td;
  }

  // Pairs rows of `a` (those in `only`, or all) with unused rows of `b` of the same key (its
  // positions marked in `skip` left out), by occurrence; calls `both` on each pair and returns
  // the rows of `a` left unpaired.
  template <typename Both>
  static std::vector<std::size_t> match_rows(const Table& a, const Table& b, const std::vector<std::size_t>& only,
                                             const std::vector<bool>& skip, std::vector<bool>& used, Both& both) {
    auto id_of = [&](const std::vector<Value>& key) {
      std::vector<Value> kept;
      for (std::size_t k = 0; k < key.size(); ++k)
        if (k >= skip.size() || !skip[k]) kept.push_back(key[k]);
      return key_identity(kept);
    };
    std::unordered_map<std::string, std::vector<std::size_t>> right;
    for (std::size_t j = 0; j < b.rows.size(); ++j)
      if (!used[j]) right[id_of(b.rows[j].key)].push_back(j);
    std::unordered_map<std::string, std::size_t> taken;
    std::vector<std::size_t> left;
    if (only.empty() && skip.empty())
      for (std::size_t i = 0; i < a.rows.size(); ++i) left.push_back(i);
    else
      left = only;
    std::vector<std::size_t> unmatched;
    for (std::size_t i : left) {
      const Row& row = a.rows[i];
      const std::string id = id_of(row.key);
      auto it = right.find(id);
      std::size_t& k = taken[id];
      if (it == right.end() || k >= it->second.size()) {
        unmatched.push_back(i);
        continue;
      }
      used[it->second[k]] = true;
      both(row, b.rows[it->second[k]]);
      ++k;
    }
    return unmatched;
  }

  // One pair of rows: every changed cell is counted under its cause; the first ones are listed.
  template <typename AddKey>
  void compare_row(TableDiff& td, const Table& a, const Table& b,
                   const std::vector<std::pair<std::size_t, std::size_t>>& cols, const Row& row, const Row& other,
                   AddKey& add_key, std::map<std::vector<AssumptionKey>, std::size_t>& cause_index) {
    ++td.rows_compared;
    std::optional<std::size_t> ref;
    for (const auto& [ci, cj] : cols) {
      const Value& lv = row.cells[ci];
      const Value& rv = other.cells[cj];
      if (same_value(lv, rv)) {
        ++td.cells_unchanged;
        continue;
      }
      const std::vector<AssumptionKey>& because = cause_of(lv.deps, rv.deps);
      const std::string& column = a.cols[ci].name;
      ++td.cells_changed;
      ++td.changed_columns[column];
      auto [at, fresh] = cause_index.emplace(because, td.causes.size());
      if (fresh) td.causes.push_back({because, {}});
      ++td.causes[at->second].columns[column];
      if (listed_ >= kDiffListed) continue;
      ++listed_;
      auto vd = compare_values(lv, a.cols[ci].type, a.cols[ci].display, rv, b.cols[cj].type, b.cols[cj].display);
      if (!ref) ref = add_key(row.key);
      vd->name = column;
      vd->row = *ref;
      vd->because = because;
      td.cells.push_back(std::move(*vd));
    }
  }

  // A changed cell's attribution, by its two dependency sets: the cells of a column mostly share
  // them, and attribute() reads every atom of both.
  const std::vector<AssumptionKey>& cause_of(DepSet l, DepSet r) {
    const auto key = std::make_pair(l, r);
    auto it = causes_.find(key);
    if (it != causes_.end()) return it->second;
    if (causes_.size() >= 65536) causes_.clear();  // bounded: a table of all-different provenance
    return causes_.emplace(key, attribute(lmap_, rmap_, l_.scope, {l}, r_.scope, {r})).first->second;
  }

  const DiffSide& l_;
  const DiffSide& r_;
  AssumptionMap lmap_, rmap_;
  std::size_t listed_ = 0;  // changed cells and one-sided rows listed so far (kDiffListed)
  std::map<std::pair<DepSet, DepSet>, std::vector<AssumptionKey>> causes_;
};

}  // namespace

AssumptionMap effective_assumptions(const ResultScope& p, const ConfiguredAtoms* configured,
                                    const std::vector<DepSet>& used) {
  AssumptionMap m;
  // With a configuration, its own convention and override atoms are the configured ones; atoms
  // another config of the same program created (REPL) are skipped, as are the settings a later
  // one shadows (they never reach a value).
  static const std::set<AtomId> kNone;
  const std::set<AtomId>& own = configured ? configured->own : kNone;
  const std::set<AtomId>& dead = configured ? configured->dead : kNone;
  for (AtomId a = 0; a < p.deps.atom_count(); ++a) {
    if (!p.deps.is_assumption(a) || dead.count(a)) continue;
    const Assumption& as = p.deps.assumption(a);
    // A validation summary exists per evaluator and only where a value carries it (below).
    if (as.kind == AssumptionKind::validation || as.kind == AssumptionKind::note) continue;
    if (configured) {
      const bool set_by_config = as.kind == AssumptionKind::convention || as.via.kind == ViaKind::command_line ||
                                 as.via.kind == ViaKind::preset;
      if (set_by_config && !own.count(a)) continue;
    }
    AssumptionView v = view_of(p, a);
    m[{v.kind, v.name}] = std::move(v);  // creation order is precedence order: later wins
  }
  std::set<AtomId> seen;
  // A note is a consequence of the assumptions (a convention's caveat), not one of them.
  for (DepSet d : used)
    for (AtomId a : p.deps.atoms(d))
      if (p.deps.is_assumption(a) && p.deps.assumption(a).kind != AssumptionKind::note) seen.insert(a);
  for (AtomId a : seen) {
    AssumptionView v = view_of(p, a);
    m[{v.kind, v.name}] = std::move(v);
  }
  return m;
}

std::vector<AssumptionChange> differing_assumptions(const AssumptionMap& lmap, const AssumptionMap& rmap) {
  std::set<AssumptionKey> keys;
  for (const auto& [k, v] : lmap) keys.insert(k);
  for (const auto& [k, v] : rmap) keys.insert(k);
  std::vector<AssumptionChange> out;
  for (const auto& k : keys) {
    auto li = lmap.find(k);
    auto ri = rmap.find(k);
    const AssumptionView* lv = li == lmap.end() ? nullptr : &li->second;
    const AssumptionView* rv = ri == rmap.end() ? nullptr : &ri->second;
    if (!assumption_differs(lv, rv)) continue;
    AssumptionChange c;
    c.key = k;
    if (lv) c.left = *lv;
    if (rv) c.right = *rv;
    auto other_kind = [&](const AssumptionMap& m) -> std::optional<AssumptionView> {
      for (const auto& [mk, v] : m)
        if (mk.name == k.name && mk.kind != k.kind && mk.kind != AssumptionKind::convention &&
            mk.kind != AssumptionKind::approx)
          return v;
      return std::nullopt;
    };
    if (!lv) c.left_other_kind = other_kind(lmap);
    if (!rv) c.right_other_kind = other_kind(rmap);
    out.push_back(std::move(c));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const AssumptionChange& a, const AssumptionChange& b) { return key_before(a.key, b.key); });
  return out;
}

bool AssumptionChange::same_value() const {
  const auto& l = left ? left : left_other_kind;
  const auto& r = right ? right : right_other_kind;
  return l && r && l->value == r->value;
}

bool assumption_differs(const AssumptionView* left, const AssumptionView* right) {
  if (!left || !right) return left != right;
  return left->value != right->value || left->via != right->via;
}

std::vector<AssumptionKey> attribute(const AssumptionMap& lmap, const AssumptionMap& rmap, const ResultScope& lp,
                                     const std::vector<DepSet>& ldeps, const ResultScope& rp,
                                     const std::vector<DepSet>& rdeps) {
  std::set<AssumptionKey> keys;
  for (DepSet d : ldeps)
    for (AtomId a : lp.deps.atoms(d))
      if (lp.deps.is_assumption(a)) keys.insert({lp.deps.assumption(a).kind, lp.deps.assumption(a).name});
  for (DepSet d : rdeps)
    for (AtomId a : rp.deps.atoms(d))
      if (rp.deps.is_assumption(a)) keys.insert({rp.deps.assumption(a).kind, rp.deps.assumption(a).name});
  std::vector<AssumptionKey> out;
  for (const auto& k : keys) {
    // A validation band is a consequence of the model a value comes from (its measured error),
    // never what moved the value: one side's serving_sim against the other's disaggregated_sim
    // differ by their formulas, not by the band only one of them lists.
    if (k.kind == AssumptionKind::validation) continue;
    auto li = lmap.find(k);
    auto ri = rmap.find(k);
    // A cause is a value that differs (or exists on one side only): the same choice made by
    // another preset (`dp_node_count: ceil -> ceil`) moved nothing.
    const AssumptionView* lv = li == lmap.end() ? nullptr : &li->second;
    const AssumptionView* rv = ri == rmap.end() ? nullptr : &ri->second;
    if (lv && rv ? lv->value != rv->value : lv != rv) out.push_back(k);
  }
  std::stable_sort(out.begin(), out.end(), key_before);
  return out;
}

namespace {
void deps_within_walk(const Value& v, std::set<DepSet>& out, std::unordered_set<const Heap*>& seen) {
  // As deep_deps: a record or list stands for its elements' dependencies.
  if (v.k != Value::K::record && v.k != Value::K::list) {
    if (v.deps != 0) out.insert(v.deps);
    return;
  }
  if (!seen.insert(v.h.get()).second) return;
  if (v.k == Value::K::record)
    for (const auto& [n, f] : v.rec().fields) deps_within_walk(f, out, seen);
  else
    for (const auto& x : v.list().items) deps_within_walk(x, out, seen);
}
}  // namespace

std::vector<DepSet> deps_within(const Value& v) {
  std::set<DepSet> out;
  std::unordered_set<const Heap*> seen;
  deps_within_walk(v, out, seen);
  return {out.begin(), out.end()};
}

bool same_value(const Value& a, const Value& b) {
  if (a.k != b.k) return false;
  switch (a.k) {
    case Value::K::num: return compare(a.n, b.n) == 0;
    case Value::K::boolean: return a.b == b.b;
    case Value::K::str: return a.str() == b.str();
    case Value::K::record: {
      const auto& fa = a.rec().fields;
      const auto& fb = b.rec().fields;
      if (fa.size() != fb.size()) return false;
      for (const auto& [n, v] : fa) {
        const Value* o = b.rec().get(n);
        if (!o || !same_value(v, *o)) return false;
      }
      return true;
    }
    case Value::K::list: {
      const auto& la = a.list().items;
      const auto& lb = b.list().items;
      if (la.size() != lb.size()) return false;
      for (std::size_t i = 0; i < la.size(); ++i)
        if (!same_value(la[i], lb[i])) return false;
      return true;
    }
  }
  return false;
}

std::optional<ValueDiff> compare_values(const Value& l, const TypeP& lt, const Display& ld, const Value& r,
                                        const TypeP& rt, const Display& rd) {
  if (same_value(l, r)) return std::nullopt;
  ValueDiff vd;
  vd.left = l;
  vd.right = r;
  vd.left_display = ld;
  vd.right_display = rd;
  const bool numbers = l.k == Value::K::num && r.k == Value::K::num;
  const bool typed = lt && rt && lt->k == Type::K::num && rt->k == Type::K::num;
  vd.comparable = numbers && (!typed || lt->dim == rt->dim);
  if (!vd.comparable) {
    vd.left_text = value_with_unit(l, ld);
    vd.right_text = value_with_unit(r, rd);
    return vd;
  }
  // Both sides in the left side's unit: a change of display unit is not a change of value.
  vd.right_display = ld;
  const Num xl = in_unit(l.n, ld);
  const Num xr = in_unit(r.n, ld);
  vd.left_text = value_with_unit(l, ld);
  vd.right_text = value_with_unit(r, ld);
  if (vd.left_text == vd.right_text) {
    // Compared at full precision, shown at the shown one: add digits until the texts differ.
    vd.below_resolution = true;
    for (int sig = 5; sig <= 17; ++sig) {
      vd.left_text = format_sig(xl, sig) + unit_suffix(ld);
      vd.right_text = format_sig(xr, sig) + unit_suffix(ld);
      if (vd.left_text != vd.right_text) break;
    }
  }
  bool lost = false;
  const Num dx = sub(xr, xl, lost);
  vd.change = dx.d;
  vd.change_text = delta_text(dx, ld, vd.below_resolution);
  if (!is_zero(xl)) {
    const double rel = (xr.d - xl.d) / std::fabs(xl.d) * 100.0;
    vd.relative_pct = rel;
    // One decimal, as percentages are usually quoted; two significant digits below 0.1 %.
    const Num rn = Num::of_double(rel);
    vd.relative_text = signed_text(std::fabs(rel) >= 0.1 ? format_fixed(rn, 1) : format_sig(rn, 2), rn) + " %";
  }
  return vd;
}

std::string change_in_unit_text(const Num& dx, const Display& d) { return delta_text(dx, d, false); }

bool Shares::complete() const {
  for (const auto& c : causes)
    if (!c.share) return false;
  return true;
}

bool TableDiff::differs() const {
  return only || keys_differ || !columns_added.empty() || !columns_removed.empty() || rows_added_count > 0 ||
         rows_removed_count > 0 || cells_changed > 0;
}

std::string TableDiff::row_text(std::size_t row) const {
  const bool right_side = row < row_is_right.size() && row_is_right[row];
  const auto& names = right_side ? right_key_names : key_names;
  const auto& displays = right_side ? right_key_displays : key_displays;
  std::string s;
  for (std::size_t k = 0; k < names.size() && k < row_keys[row].size(); ++k) {
    const Display d = k < displays.size() ? displays[k] : Display{};
    s += (s.empty() ? "" : ", ") + names[k] + "=" + value_with_unit(row_keys[row][k], d);
  }
  return s;
}

bool DiffReport::differs() const {
  if (!results.empty() || !asserts.empty()) return true;
  for (const auto& t : tables)
    if (t.differs()) return true;
  return false;
}

std::size_t DiffReport::cells_unchanged() const {
  std::size_t n = 0;
  for (const auto& t : tables) n += t.cells_unchanged;
  return n;
}

const AssumptionChange* DiffReport::change_of(const AssumptionKey& k) const {
  for (const auto& c : assumptions)
    if (c.key == k) return &c;
  return nullptr;
}

DiffReport diff_runs(const DiffSide& left, const DiffSide& right) { return Differ(left, right).run(); }

}  // namespace mls
