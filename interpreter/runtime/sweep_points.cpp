// sweep_points.cpp — one point of a sweep body (sweep_points.hpp): from scratch or incrementally
// on the tree-walking evaluator, or through the compiled program, alone or as a block of lanes
// (its row is written by sweep_rows.cpp); keys, and compact rows' cells as Values.
#include "sweep_points.hpp"

#include <algorithm>

#include "grammar/symbols.hpp"
#include "interpreter/results/format.hpp"
#include "search_group.hpp"

namespace mls {

SweepPoints::SweepPoints(Program& p, const Stmt& s) : p_(p), s_(s) {
  for (const auto& b : s_.bindings) {
    offset_.push_back(key_width_);
    key_width_ += b.names.size();
  }
  for (std::size_t i = 0; i < s_.body.size(); ++i) {
    const BodyItem& item = s_.body[i];
    if (item.kind == BK::subject) has_subject_ = true;
    if (item.kind == BK::top && !item.exprs.empty() && s_.kind == SK::search && !search_group_key(s_))
      group_item_ = static_cast<std::ptrdiff_t>(i);
  }
}

std::string SweepPoints::point_text(const std::vector<std::vector<std::vector<Value>>>& domains,
                                    std::size_t index) const {
  auto key = key_of(domains, index);
  std::string s;
  std::size_t k = 0;
  for (const auto& b : s_.bindings)
    for (std::size_t i = 0; i < b.names.size(); ++i, ++k) {
      if (!s.empty()) s += ", ";
      s += sym_name(b.names[i]) + " = " + format_value(key[k], Display{});
    }
  return s;
}

std::vector<Value> SweepPoints::key_of(const std::vector<std::vector<std::vector<Value>>>& domains,
                                       std::size_t index) const {
  std::vector<std::size_t> pick;
  std::vector<Value> key;
  key_of(domains, index, pick, key);
  return key;
}

// Cartesian product, first binding outermost (itertools.product order): `key` receives the
// point's values (assigned in place, keeping its storage), `pick` the element chosen from
// each binding's domain.
void SweepPoints::key_of(const std::vector<std::vector<std::vector<Value>>>& domains, std::size_t index,
                         std::vector<std::size_t>& pick, std::vector<Value>& key) const {
  pick.resize(domains.size());
  for (std::size_t b = domains.size(); b-- > 0;) {
    pick[b] = index % domains[b].size();
    index /= domains[b].size();
  }
  std::size_t width = 0;
  for (std::size_t b = 0; b < domains.size(); ++b) width += domains[b][pick[b]].size();
  key.resize(width);
  std::size_t k = 0;
  for (std::size_t b = 0; b < domains.size(); ++b)
    for (const auto& v : domains[b][pick[b]]) key[k++] = v;
}

// An `assert` inside the sweep body that is false at point `index`.
AssertOutcome SweepPoints::failed_assert(const BodyItem& item,
                                         const std::vector<std::vector<std::vector<Value>>>& domains,
                                         std::size_t index) const {
  AssertOutcome a;
  a.ok = false;
  a.span = item.exprs[0]->span;
  a.text = std::string(p_.sources.slice(item.exprs[0]->span));
  a.message = item.message;
  a.detail = "at " + point_text(domains, index);
  return a;
}

// One point from scratch: point_reusing with no previous point, so every item is evaluated
// (the careful re-run of a compiled point, a shard's first point, a bailed point's diagnostic).
PointOut SweepPoints::point(Evaluator& ev, const Domains& domains, std::size_t index, bool fast) {
  EvalRun fresh;
  PointOut o;
  point_reusing(ev, domains, index, fast, fresh, o);
  return o;
}

// Bit of binding b in the masks of point_reusing (the 64th binding and later share the last).
std::uint64_t SweepPoints::binding_bit(std::size_t b) { return std::uint64_t{1} << std::min<std::size_t>(b, 63); }

// Which bindings each body item depends on: the sweep variables it reads, directly or through
// the `let`s before it (slots are never reused within a statement, so a slot is one variable).
// A record's own items are computed inside the expression that reads them: they add nothing
// of their own. A slot read before anything is known to write it depends on everything.
void SweepPoints::body_masks() {
  const std::size_t n = static_cast<std::size_t>(std::max(s_.nslots, 1));
  std::vector<std::uint64_t> slot(n, ~std::uint64_t{0});
  for (std::size_t b = 0; b < s_.bindings.size(); ++b)
    for (const int sl : s_.bindings[b].slots)
      if (sl >= 0 && static_cast<std::size_t>(sl) < n) slot[static_cast<std::size_t>(sl)] = binding_bit(b);
  item_mask_.assign(s_.body.size(), 0);
  for (std::size_t i = 0; i < s_.body.size(); ++i) {
    const BodyItem& item = s_.body[i];
    std::uint64_t m = 0;
    auto walk = [&](auto& self, const Expr& e) -> void {
      if (e.kind == EK::record)
        for (const auto& it : e.items)
          if (it.slot >= 0 && static_cast<std::size_t>(it.slot) < n) slot[static_cast<std::size_t>(it.slot)] = 0;
      if (e.kind == EK::name && e.ref.kind == RefKind::local)
        m |= e.ref.index < n ? slot[e.ref.index] : ~std::uint64_t{0};
      for_each_child(e, [&](const Expr& kid) { self(self, kid); });
    };
    for (const auto& x : item.exprs) walk(walk, *x);
    for (const auto& sh : item.shows) walk(walk, *sh.expr);
    item_mask_[i] = m;
    if (item.kind == BK::let && item.slot >= 0 && static_cast<std::size_t>(item.slot) < n)
      slot[static_cast<std::size_t>(item.slot)] = m;
  }
}

// One point, incrementally: a body item none of whose bindings changed since this worker last
// evaluated it gives the values it gave then (its evaluation steps
// are charged again, so the step budget runs out exactly where it would; when they would not
// fit, the item is evaluated, to fail as it would). Points arrive in enumeration order, so
// mostly only the innermost binding changed. `o` is refilled in place.
void SweepPoints::point_reusing(Evaluator& ev, const Domains& domains, std::size_t index, bool fast, EvalRun& st,
                                PointOut& o) {
  const Evaluator::BudgetScope budget(ev);
  o.filtered = false;
  o.feasible = true;
  o.cells.clear();
  o.objectives.clear();
  o.failed.clear();
  o.failed_items.clear();
  o.error.clear();
  o.has_text = false;
  o.described = false;
  key_of(domains, index, st.pick, o.key);
  const std::size_t nbody = s_.body.size();
  std::uint64_t changed = 0;
  if (st.last_pick.size() != domains.size() || st.values.size() != nbody) {
    st.slots.assign(static_cast<std::size_t>(std::max(s_.nslots, 1)), Value{});
    st.stale.assign(nbody, 0);
    st.cost.assign(nbody, 0);
    st.valid.assign(nbody, 0);
    st.values.assign(nbody, {});
    changed = ~std::uint64_t{0};
  } else {
    for (std::size_t b = 0; b < domains.size(); ++b)
      if (st.pick[b] != st.last_pick[b]) changed |= binding_bit(b);
  }
  std::swap(st.pick, st.last_pick);
  Value* const slots = st.slots.data();
  std::size_t k = 0;
  for (std::size_t b = 0; b < s_.bindings.size(); ++b) {
    const Binding& bd = s_.bindings[b];
    const bool moved = (changed & binding_bit(b)) != 0;
    for (std::size_t j = 0; j < bd.slots.size(); ++j, ++k) {
      if (!moved) continue;
      Value& v = slots[static_cast<std::size_t>(bd.slots[j])];
      v = o.key[k];
      if (fast && v.k == Value::K::num) v.n = Num::of_double(v.n.d);
    }
  }
  // Every item learns what changed before any is evaluated: a `where` that filters the point,
  // or an error, ends the walk early, and the items after it must not miss this point's change
  // when the next point reuses them.
  for (std::size_t i = 0; i < nbody; ++i) st.stale[i] |= changed;
  const DepSet fast_deps = fast ? ev.overflow_deps() : 0;
  for (std::size_t i = 0; i < nbody; ++i) {
    const BodyItem& item = s_.body[i];
    if (item.kind == BK::top && static_cast<std::ptrdiff_t>(i) != group_item_) continue;
    std::vector<Value>& vals = st.values[i];
    if (st.valid[i] && (st.stale[i] & item_mask_[i]) == 0 && st.cost[i] < Evaluator::steps_left()) {
      ev.charge(st.cost[i], item.span);
    } else {
      st.valid[i] = 0;
      vals.clear();
      const std::uint64_t before = Evaluator::steps_left();
      // Every condition of `subject` and objective of `pareto`, the one expression of the
      // others.
      const std::size_t nexprs = item.kind == BK::subject || item.kind == BK::pareto
                                     ? item.exprs.size()
                                     : std::min<std::size_t>(item.exprs.size(), 1);
      for (std::size_t x = 0; x < nexprs; ++x) vals.push_back(ev.eval(*item.exprs[x], slots, 0));
      for (const auto& sh : item.shows) {
        vals.push_back(ev.eval(*sh.expr, slots, 0));
        if (fast_deps) vals.back().deps = ev.unite(vals.back().deps, fast_deps);
      }
      st.cost[i] = before - Evaluator::steps_left();
      st.stale[i] = 0;
      st.valid[i] = 1;
    }
    switch (item.kind) {
      case BK::let: slots[static_cast<std::size_t>(item.slot)] = vals[0]; break;
      case BK::where:
        if (!vals[0].b) {
          o.filtered = true;
          return;
        }
        break;
      case BK::subject:
        for (const auto& v : vals)
          if (!v.b) o.feasible = false;
        break;
      case BK::show: o.cells.insert(o.cells.end(), vals.begin(), vals.end()); break;
      case BK::assert_:
        if (!vals[0].b) {
          o.failed.push_back(failed_assert(item, domains, index));
          o.failed_items.push_back(i);
        }
        break;
      case BK::maximize:
      case BK::minimize:
      case BK::pareto: o.objectives.insert(o.objectives.end(), vals.begin(), vals.end()); break;
      case BK::top: break;
    }
  }
  // A group key follows the objectives wherever `top ... per` stands in the body.
  if (group_item_ >= 0) o.objectives.push_back(st.values[static_cast<std::size_t>(group_item_)][0]);
  if (has_subject_ && s_.kind == SK::sweep) o.cells.push_back(Value::boolean(o.feasible));
}

// Moves `run`'s key to point `index` (one odometer step from its previous point, usually the
// innermost binding only: only the bindings that moved are copied into the key, which
// `run.key` keeps between points). Returns the key positions that changed: compiled code that
// depends on none of them is not re-run.
std::uint64_t SweepPoints::advance(const Domains& domains, std::size_t index, fast::PointRun& run) const {
  std::uint64_t changed = 0;
  std::vector<std::size_t>& pick = run.last_pick;
  if (pick.size() == domains.size() && run.key.size() == key_width_ && index == run.last_index + 1) {
    // `from`: the binding that advanced without wrapping; every later one wrapped to 0.
    std::size_t from = domains.size() - 1;
    while (++pick[from] == domains[from].size() && from > 0) pick[from--] = 0;
    std::size_t k = offset_[from];  // a binding's tuples all have its names' width
    for (std::size_t j = from; j < domains.size(); ++j)
      for (const auto& v : domains[j][pick[j]]) {
        run.key[k] = v;
        changed |= k < 64 ? std::uint64_t{1} << k : ~std::uint64_t{0};
        ++k;
      }
  } else {
    key_of(domains, index, pick, run.key);
    changed = ~std::uint64_t{0};
  }
  run.last_index = index;
  return changed;
}

// One point through the compiled program, on its own.
void SweepPoints::point_fast(Evaluator& ev, const fast::SweepProgram& prog, const Domains& domains, std::size_t index,
                             fast::PointRun& run, PointScratch& scratch, const Dest& dest) {
  const std::uint64_t changed = advance(domains, index, run);
  prog.run(run.key, changed, run);
  point_out(ev, prog, domains, index, run, kNoLane, scratch, dest);
}

// advance to the next point of a block: only the innermost binding moves, without wrapping (a
// block lies within one cycle of it, block_size), so only its key positions are copied.
std::uint64_t SweepPoints::advance_inner(const Domains& domains, std::size_t index, fast::PointRun& run) const {
  const std::size_t b = domains.size() - 1;
  std::vector<std::size_t>& pick = run.last_pick;
  if (index != run.last_index + 1 || pick.size() != domains.size() || run.key.size() != key_width_ ||
      pick[b] + 1 >= domains[b].size())
    return advance(domains, index, run);
  std::size_t k = offset_[b];
  for (const Value& v : domains[b][++pick[b]]) run.key[k++] = v;
  run.last_index = index;
  return inner_mask(domains);
}

// Up to kLanes points [index, index + n) (n > 1) that differ only in the innermost binding, or
// only in the two innermost ones (whole cycles of the innermost, block_size): the work that
// depends on neither once, then every instruction that depends on them once for all n points
// (run_lanes). Returns whether that worked; if not, `run` is left so that the points run one by
// one (block_point: the first one re-runs everything that depends on the block's bindings).
bool SweepPoints::run_block(const fast::SweepProgram& prog, const Domains& domains, std::size_t index, std::size_t n,
                            fast::PointRun& run) const {
  const std::uint64_t changed = advance(domains, index, run);
  const std::size_t b = domains.size() - 1, s1 = domains[b].size();
  const std::size_t pick = run.last_pick.back();
  const bool two = pick + n > s1;  // the block spans cycles of the innermost binding
  const std::size_t w1 = domains[b][0].size(), w2 = two ? domains[b - 1][0].size() : 0, width = w1 + w2;
  const std::uint64_t mask = ((std::uint64_t{1} << width) - 1) << (key_width_ - width);
  run.block_dirty = mask;
  prog.run(run.key, changed & ~mask, run, mask);
  // Lane l's values, key position by key position: the second binding's (the block starts a
  // cycle of the innermost one), then the innermost's.
  std::vector<const Value*>& values = run.lane_keys;
  values.resize(n * width);
  for (std::size_t l = 0; l < n; ++l) {
    const Value** v = values.data() + l * width;
    if (two)
      for (const Value& x : domains[b - 1][run.last_pick[b - 1] + l / s1]) *v++ = &x;
    for (const Value& x : domains[b][two ? l % s1 : pick + l]) *v++ = &x;
  }
  return prog.run_lanes(values.data(), n, key_width_ - width, width, run);
}

// The key positions of the innermost binding.
std::uint64_t SweepPoints::inner_mask(const Domains& domains) const {
  const std::size_t inner = domains.back()[0].size();
  return ((std::uint64_t{1} << inner) - 1) << (key_width_ - inner);
}

// Points from `index` on (up to `end`) that can run as one block, up to kLanes of them where
// `wide`, else up to kNarrowLanes: they differ only in the innermost binding, whose key
// positions fit the 64-bit masks; or, where `wide` and the block starts a cycle of the
// innermost binding, in whole cycles of it within one cycle of the binding outside it (the two
// innermost bindings vary; their key positions fit too). 1 when there is no block.
std::size_t SweepPoints::block_size(const Domains& domains, std::size_t index, std::size_t end, bool wide) const {
  if (domains.empty() || key_width_ > 64) return 1;
  const std::size_t s1 = domains.back().size();
  const std::size_t one = std::min({wide ? fast::kLanes : kNarrowLanes, s1 - index % s1, end - index});
  if (!wide || domains.size() < 2 || index % s1 != 0 || 2 * s1 > fast::kLanes) return one;
  const std::size_t s2 = domains[domains.size() - 2].size();
  const std::size_t cycles = std::min({fast::kLanes / s1, s2 - (index / s1) % s2, (end - index) / s1});
  return cycles < 2 ? one : cycles * s1;
}

// Point index + l of a block run_block started at `index`: read from lane l if the lanes ran,
// otherwise run on its own (the block's first point with its innermost binding changed). A
// lane block of compact rows comes here for its first point only; lane_heads writes the rest.
void SweepPoints::block_point(Evaluator& ev, const fast::SweepProgram& prog, const Domains& domains, std::size_t index,
                              std::size_t l, bool lanes, fast::PointRun& run, PointScratch& scratch, const Dest& dest) {
  std::uint64_t changed = run.block_dirty;
  if (l > 0) changed = advance_inner(domains, index + l, run);
  if (!lanes) prog.run(run.key, changed, run);
  if (lanes && l == 0) lane_sources(prog, run, scratch);
  point_out(ev, prog, domains, index + l, run, lanes ? l : kNoLane, scratch, dest);
}

// The compact-row odometer of a lane block moved to its next point, `index` (lane_heads). A
// compact row reads no key: only the odometer moves (a block lies within one cycle of the
// innermost binding, or spans whole cycles of it within one of the binding outside). The key's
// values stay the block's first point's until the next advance, which rewrites them (the
// innermost binding always moves; a block over two bindings ends with a cycle of the
// innermost, so the next advance moves the binding outside it too).
void SweepPoints::lane_step(const Domains& domains, fast::PointRun& run, std::size_t index) {
  std::vector<std::size_t>& pick = run.last_pick;
  if (++pick.back() == domains.back().size()) {
    pick.back() = 0;
    ++pick[pick.size() - 2];
  }
  run.last_index = index;
}

std::size_t SweepPoints::compact_width(const fast::SweepProgram& prog) const {
  return prog.cells().size() + (has_subject_ && s_.kind == SK::sweep ? 1 : 0);
}

CompactCells SweepPoints::compact_cells(const fast::SweepProgram& prog) const {
  CompactCells cc;
  cc.prog = &prog;
  for (const auto& sl : prog.cells()) cc.kinds.push_back(sl.kind);
  if (compact_width(prog) > prog.cells().size()) cc.kinds.push_back(fast::Slot::K::boolean);
  return cc;
}

// As point_out writes a PointOut's cells: numbers in place, booleans and strings as new Values.
void CompactCells::materialize(const double* x, const std::vector<DepSet>& deps, std::vector<Value>& cells) const {
  const std::size_t n = kinds.size();
  if (cells.size() != n) cells.resize(n);
  for (std::size_t c = 0; c < n; ++c) {
    const DepSet d = c < deps.size() ? deps[c] : DepSet{0};
    Value& v = cells[c];
    switch (kinds[c]) {
      case fast::Slot::K::num: set_number(v, x[c], d); break;
      case fast::Slot::K::boolean: v = Value::boolean(x[c] != 0, d); break;
      case fast::Slot::K::str: v = Value::string(prog->string_of(x[c]), d); break;
    }
  }
}

void SweepPoints::next_key(const Domains& domains, std::size_t index, std::vector<std::size_t>& pick, std::size_t& last,
                           std::vector<Value>& key) const {
  if (pick.size() == domains.size() && !domains.empty() && index == last + 1 && key.size() == key_width_) {
    std::size_t from = domains.size() - 1;
    while (++pick[from] == domains[from].size() && from > 0) pick[from--] = 0;
    std::size_t k = 0;
    for (std::size_t b = 0; b < domains.size(); ++b)
      for (const auto& v : domains[b][pick[b]]) key[k++] = v;
  } else {
    key_of(domains, index, pick, key);
  }
  last = index;
}

}  // namespace mls
