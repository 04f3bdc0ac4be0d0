// sweep_points.cpp — one point of a sweep body (sweep_points.hpp): from scratch or incrementally
// on the tree-walking evaluator, or through the compiled program, alone or as a lane of a block,
// with each branch signature's provenance computed once and checked against the evaluator.
#include "sweep_points.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "grammar/symbols.hpp"
#include "interpreter/results/format.hpp"

namespace mls {

namespace {

// Two branch signatures (a few dozen bytes) compared inline, eight bytes at a time: this runs
// for every compiled point, where std::equal is a call to memcmp.
// A signature of 8 bytes or more ends with one 8-byte comparison that overlaps the last one.
bool same_bytes(const std::uint8_t* a, const std::uint8_t* b, std::size_t n) {
  auto word = [](const std::uint8_t* p) {
    std::uint64_t x = 0;
    std::memcpy(&x, p, 8);
    return x;
  };
  if (n >= 8) {
    for (std::size_t i = 0; i + 8 < n; i += 8)
      if (word(a + i) != word(b + i)) return false;
    return word(a + n - 8) == word(b + n - 8);
  }
  for (std::size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return false;
  return true;
}

// A compact row's head with the provenance of this worker's last point (run.last_deps, the
// deps vector of the last signature point_out found), flags and delta cleared.
CompactRows::Meta& last_point_head(const SweepPoints::Dest& dest, const fast::PointRun& run) {
  CompactRows::Meta& m = dest.rows->meta[dest.row];
  m = CompactRows::Meta{};
  m.deps = static_cast<const std::vector<DepSet>*>(run.last_deps);
  return m;
}

}  // namespace

SweepPoints::SweepPoints(Program& p, const Stmt& s) : p_(p), s_(s) {
  for (const auto& b : s_.bindings) {
    offset_.push_back(key_width_);
    key_width_ += b.names.size();
  }
  for (const auto& item : s_.body)
    if (item.kind == BK::subject) has_subject_ = true;
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
    if (item.kind == BK::top) continue;
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

// The heads of a lane block's compact rows r0 + 1 .. r0 + n - 1, lanes 1 .. n - 1 of the last
// run_lanes (block_point wrote lane 0's), in one loop: what block_point writes for each of them
// (Dest::head_only), without a call per lane. `at` is the point being written (the one an
// error is reported at). A head whose point has the signature of the lane before it (no
// max/min/clamp arm differs between them), in a body without asserts, takes that lane's
// provenance, which the head before found or took (it left it as run.last_deps, as point_out
// would find it again).
void SweepPoints::lane_heads(Evaluator& ev, const fast::SweepProgram& prog, const Domains& domains, std::size_t index,
                             std::size_t n, fast::PointRun& run, PointScratch& scratch, CompactRows& rows,
                             std::size_t r0, std::size_t& at) {
  const std::vector<fast::Slot>& feasibility = prog.feasibility();
  const bool no_asserts = prog.asserts().empty();
  for (std::size_t l = 1; l < n; ++l) {
    at = index + l;
    lane_step(domains, run, index + l);
    const Dest dest{nullptr, &rows, r0 + l, true};
    if ((run.lanes_same_prev >> l & 1) && run.last_deps && no_asserts) {
      CompactRows::Meta& m = last_point_head(dest, run);
      for (const auto& f : feasibility)
        if (prog.read(f, run, l) == 0) m.flags |= CompactRows::infeasible;
      continue;
    }
    point_out(ev, prog, domains, index + l, run, l, scratch, dest);
  }
}

// Where the last run_lanes left each shown value (SweepProgram::read(slot, run, lane), resolved
// once for the block's lanes).
void SweepPoints::lane_sources(const fast::SweepProgram& prog, const fast::PointRun& run, PointScratch& scratch) {
  const std::vector<fast::Slot>& cells = prog.cells();
  const std::int32_t* const row_of = run.lane_schedules[run.lane_schedule].row_of_reg.data();
  scratch.lane_cells.resize(cells.size());
  for (std::size_t c = 0; c < cells.size(); ++c) {
    const fast::Slot& sl = cells[c];
    PointScratch::CellSource& src = scratch.lane_cells[c];
    if (sl.constant)
      src = {&sl.value, 0};
    else if (row_of[sl.reg] < 0)
      src = {run.regs.data() + sl.reg, 0};
    else
      src = {run.lanes.data() + static_cast<std::size_t>(row_of[sl.reg]) * fast::kLanes, 1};
  }
}

// A compiled point's row, from `run` (kNoLane) or from lane `lane` of the last run_lanes, to a
// PointOut or a compact row. Provenance comes from the signature cache; a new signature is
// evaluated once by the tree-walker, which must agree bit for bit.
void SweepPoints::point_out(Evaluator& ev, const fast::SweepProgram& prog, const Domains& domains, std::size_t index,
                            fast::PointRun& run, std::size_t lane, PointScratch& scratch, const Dest& dest) {
  // A lane's head (Dest::head_only) in a sweep without subject-to conditions or asserts, whose
  // branches are those of this worker's last point or of a recent one: its provenance is that
  // point's and there is nothing else to read. The general path (point_out_full) finds the
  // same, after its set-up.
  if (scratch.heads_of != &prog) {
    scratch.heads_of = &prog;
    scratch.plain_heads = prog.feasibility().empty() && prog.asserts().empty();
  }
  if (dest.head_only && lane != kNoLane && scratch.plain_heads && run.status != fast::Status::bail &&
      run.status != fast::Status::filtered && run.last_deps) {
    const std::size_t nsig = run.sig.size();
    const std::uint8_t* const sig_at = fast::SweepProgram::signature(run, lane);
    const std::vector<DepSet>* deps = nullptr;
    if (run.last_sig.size() == nsig && same_bytes(sig_at, run.last_sig.data(), nsig)) {
      deps = static_cast<const std::vector<DepSet>*>(run.last_deps);
    } else {
      for (std::size_t e = 0; !deps && e < scratch.recent.size(); ++e) {
        const PointScratch::RecentSig& r = scratch.recent[e];
        if (r.deps && r.sig.size() == nsig && same_bytes(sig_at, r.sig.data(), nsig)) deps = r.deps;
      }
      if (deps) remember_last(run, scratch, sig_at, nsig, deps);
    }
    if (deps) {
      last_point_head(dest, run);
      return;
    }
  }
  point_out_full(ev, prog, domains, index, run, lane, scratch, dest);
}

// This worker's last signature becomes `sig` (nsig bytes) with provenance `deps`; the one it
// replaces becomes a recent one, unless it is one already.
void SweepPoints::remember_last(fast::PointRun& run, PointScratch& scratch, const std::uint8_t* sig, std::size_t nsig,
                                const std::vector<DepSet>* deps) {
  if (run.last_deps == deps) return;
  bool listed = run.last_deps == nullptr;
  for (const auto& r : scratch.recent) listed |= r.deps == run.last_deps;
  if (!listed) {
    PointScratch::RecentSig& r = scratch.recent[scratch.recent_next];
    scratch.recent_next = (scratch.recent_next + 1) % scratch.recent.size();
    r.sig.swap(run.last_sig);
    r.deps = static_cast<const std::vector<DepSet>*>(run.last_deps);
  }
  run.last_sig.assign(sig, sig + nsig);
  run.last_deps = deps;
}

void SweepPoints::point_out_full(Evaluator& ev, const fast::SweepProgram& prog, const Domains& domains,
                                 std::size_t index, fast::PointRun& run, std::size_t lane, PointScratch& scratch,
                                 const Dest& dest) {
  PointOut* const o = dest.out;
  CompactRows::Meta* const meta = dest.rows ? &dest.rows->meta[dest.row] : nullptr;
  if (o) {
    o->filtered = false;
    o->feasible = true;
    o->described = false;
    o->objectives.clear();
    o->failed.clear();
    o->failed_items.clear();
    // Element by element, inline: a key is a few plain numbers.
    if (o->key.size() != run.key.size()) o->key.resize(run.key.size());
    for (std::size_t k = 0; k < run.key.size(); ++k) o->key[k] = run.key[k];
  } else {
    *meta = CompactRows::Meta{};
  }
  if (run.status == fast::Status::bail) {
    (void)point(ev, domains, index, true);  // raises the evaluator's own diagnostic
    throw DiagnosticError{
        make_diagnostic(ErrorKind::internal, s_.span, "compiled sweep failed where the evaluator did not")};
  }
  if (run.status == fast::Status::filtered) {
    if (o)
      o->filtered = true;
    else
      meta->flags = CompactRows::filtered;
    return;
  }
  auto read = [&](const fast::Slot& sl) { return lane == kNoLane ? prog.read(sl, run) : prog.read(sl, run, lane); };
  const std::uint8_t* const sig_at = lane == kNoLane ? run.sig.data() : fast::SweepProgram::signature(run, lane);
  const std::size_t nsig = run.sig.size();
  auto value_of = [&](const fast::Slot& sl, DepSet d) {
    const double x = read(sl);
    if (sl.kind == fast::Slot::K::boolean) return Value::boolean(x != 0, d);
    if (sl.kind == fast::Slot::K::str) return Value::string(prog.string_of(x), d);
    return Value::number(Num::of_double(x), d);
  };
  bool feasible = true;
  for (const auto& f : prog.feasibility())
    if (read(f) == 0) feasible = false;
  if (o) {
    o->feasible = feasible;
    for (const auto& ob : prog.objectives()) o->objectives.push_back(value_of(ob, 0));
  }
  for (const auto& [cond, item] : prog.asserts())
    if (read(cond) == 0) {
      if (o) {
        o->failed.push_back(failed_assert(s_.body[item], domains, index));
        o->failed_items.push_back(item);
      } else {
        dest.rows->failed.emplace_back(dest.row, failed_assert(s_.body[item], domains, index));
      }
    }
  // The previous point of this worker usually took the same branches.
  const std::vector<DepSet>* deps = nullptr;
  if (run.last_deps && run.last_sig.size() == nsig && same_bytes(sig_at, run.last_sig.data(), nsig))
    deps = static_cast<const std::vector<DepSet>*>(run.last_deps);
  const std::string_view sig_bytes(reinterpret_cast<const char*>(sig_at), nsig);
  bool known_here = deps != nullptr;  // in scratch.sigs already (or as good as: the last point's)
  for (std::size_t e = 0; !deps && e < scratch.recent.size(); ++e) {
    const PointScratch::RecentSig& r = scratch.recent[e];
    if (r.deps && r.sig.size() == nsig && same_bytes(sig_at, r.sig.data(), nsig)) {
      deps = r.deps;
      known_here = true;
    }
  }
  if (!deps)
    if (auto it = scratch.sigs.find(sig_bytes); it != scratch.sigs.end()) {
      deps = it->second;
      known_here = true;
    }
  const std::string sig = known_here ? std::string() : std::string(sig_bytes);
  if (!deps) {
    std::lock_guard<std::mutex> lock(sig_mu_);
    if (auto it = sigs_.find(sig); it != sigs_.end()) deps = &it->second;
  }
  if (!deps) {
    PointOut slow = point(ev, domains, index, true);
    std::vector<DepSet> d;
    for (std::size_t c = 0; c < prog.cells().size(); ++c) {
      const Value& sv = slow.cells[c];
      const Value fv = value_of(prog.cells()[c], 0);
      const bool same = sv.k == fv.k && (sv.k != Value::K::num || std::memcmp(&sv.n.d, &fv.n.d, sizeof(double)) == 0) &&
                        (sv.k != Value::K::boolean || sv.b == fv.b) && (sv.k != Value::K::str || sv.str() == fv.str());
      if (!same)
        throw DiagnosticError{make_diagnostic(ErrorKind::internal, s_.body.empty() ? s_.span : s_.span,
                                              "compiled sweep disagrees with the evaluator in column " +
                                                  std::to_string(c + 1) + " at " + point_text(domains, index))};
      d.push_back(sv.deps);
    }
    std::lock_guard<std::mutex> lock(sig_mu_);
    deps = &sigs_.emplace(sig, std::move(d)).first->second;
  }
  if (!known_here) scratch.sigs.emplace(sig, deps);
  remember_last(run, scratch, sig_at, nsig, deps);
  if (dest.head_only) {
    meta->deps = deps;
    if (!feasible) meta->flags |= CompactRows::infeasible;
    return;
  }
  // Numbers are written into the cells in place (they are cleared only to be refilled).
  // The lane's rows, looked up once rather than per cell.
  const std::vector<fast::Slot>& cells = prog.cells();
  const std::size_t ncells = cells.size();
  const bool feasible_cell = has_subject_ && s_.kind == SK::sweep;
  const std::size_t width = ncells + (feasible_cell ? 1 : 0);
  const double* const regs = run.regs.data();
  const PointScratch::CellSource* const from = lane == kNoLane ? nullptr : scratch.lane_cells.data();
  // The row described against the chunk's previous one as it is written, as format_rows would
  // (RowDelta::compare, CellCheck::plain): cell c changed where its number differs (==, as
  // same_cell), a boolean where its truth does; a string cell leaves that to format_rows.
  bool describe = scratch.describe && width <= 64;
  if (describe && scratch.prev.size() != width) {
    scratch.prev.assign(width, 0);
    scratch.has_prev = false;
  }
  double* const prev = scratch.prev.data();
  const CellCheck* const check = scratch.check;
  bool plain = check != nullptr && check->num_col.size() == width;
  const bool simple = plain && check->simple;  // plain: every number finite
  bool finite = true;
  std::uint64_t changed = 0, booleans = 0;
  // A compact row's numbers (a boolean as 0 or 1, a string as its id); a PointOut's Values.
  double* const flat = o ? nullptr : dest.rows->cells.data() + dest.row * dest.rows->width;
  if (o) o->cells.resize(width);
  for (std::size_t c = 0; c < ncells; ++c) {
    const fast::Slot& sl = cells[c];
    if (sl.kind != fast::Slot::K::num) {
      plain = false;
      const double r = read(sl);
      if (sl.kind == fast::Slot::K::str) {
        if (o)
          o->cells[c] = Value::string(prog.string_of(r), (*deps)[c]);
        else
          flat[c] = r;
        describe = false;
        continue;
      }
      const double b = r != 0 ? 1 : 0;
      if (o)
        o->cells[c] = Value::boolean(r != 0, (*deps)[c]);
      else
        flat[c] = b;
      if (describe) {
        changed |= std::uint64_t{b != prev[c]} << c;
        booleans |= std::uint64_t{1} << c;
        prev[c] = b;
      }
      continue;
    }
    const double x = from ? from[c].at[lane * from[c].stride] : sl.constant ? sl.value : regs[sl.reg];
    if (o) {
      Value& v = o->cells[c];
      v.k = Value::K::num;
      v.n.d = x;
      v.n.sn = v.n.sd = 0;
      if (v.n.ex) v.n.ex.reset();
      if (v.h) v.h.reset();
      v.deps = (*deps)[c];
    } else {
      flat[c] = x;
    }
    if (describe) {
      changed |= std::uint64_t{!(x == prev[c])} << c;
      prev[c] = x;
    }
    finite &= std::isfinite(x);
    if (plain && !simple) plain = check->plain_number(c, x);
  }
  plain &= finite;
  if (feasible_cell) {
    if (o)
      o->cells[ncells] = Value::boolean(feasible);
    else
      flat[ncells] = feasible ? 1 : 0;
    plain = false;
    const double b = feasible ? 1 : 0;
    if (describe) {
      changed |= std::uint64_t{b != prev[ncells]} << ncells;
      booleans |= std::uint64_t{1} << ncells;
      prev[ncells] = b;
    }
  }
  if (meta) {
    meta->deps = deps;
    if (!feasible) meta->flags |= CompactRows::infeasible;
  }
  if (!describe) return;
  RowDelta delta;
  if (scratch.has_prev) {
    // The feasibility cell's deps are none on every row.
    delta.known = true;
    delta.same_deps = deps == scratch.prev_deps || *deps == *scratch.prev_deps;
    delta.numbers_only = (changed & booleans) == 0;
    delta.changed = changed;
  }
  scratch.has_prev = true;
  scratch.prev_deps = deps;
  if (o) {
    o->described = true;
    o->displayable = plain;
    o->delta = delta;
    return;
  }
  meta->flags |= CompactRows::described | (plain ? CompactRows::displayable : 0) |
                 (delta.known ? CompactRows::known : 0) | (delta.same_deps ? CompactRows::same_deps : 0) |
                 (delta.numbers_only ? CompactRows::numbers_only : 0);
  meta->changed = delta.changed;
}

// The cells of rows [r0, r0 + n) of `rows`, lanes 0..n-1 of the last run_lanes, whose heads
// point_out wrote (Dest::head_only): column by column, each lane's value from where
// lane_sources found it, and each row described against the one before as point_out would.
void SweepPoints::lane_rows(const fast::SweepProgram& prog, PointScratch& scratch, CompactRows& rows, std::size_t r0,
                            std::size_t n) const {
  const std::vector<fast::Slot>& cells = prog.cells();
  const std::size_t ncells = cells.size();
  const std::size_t width = rows.width;
  const bool feasible_cell = width > ncells;
  bool describe = scratch.describe && width <= 64;
  for (const auto& sl : cells) describe &= sl.kind != fast::Slot::K::str;  // as point_out, for every row
  if (describe && scratch.prev.size() != width) {
    scratch.prev.assign(width, 0);
    scratch.has_prev = false;
  }
  double* const prev = scratch.prev.data();
  const CellCheck* const check = scratch.check;
  const bool checked = check != nullptr && check->num_col.size() == width;
  const bool simple = checked && check->simple;
  std::array<std::uint64_t, fast::kLanes> changed{};
  std::array<std::uint8_t, fast::kLanes> plain{};
  plain.fill(checked ? 1 : 0);
  std::uint64_t booleans = 0;
  double* const flat = rows.cells.data() + r0 * width;
  for (std::size_t c = 0; c < ncells; ++c) {
    const fast::Slot& sl = cells[c];
    const PointScratch::CellSource src = scratch.lane_cells[c];
    double p = describe ? prev[c] : 0;
    if (sl.kind == fast::Slot::K::num) {
      for (std::size_t l = 0; l < n; ++l) {
        const double x = src.at[l * src.stride];
        flat[l * width + c] = x;
        changed[l] |= std::uint64_t{!(x == p)} << c;
        p = x;
        plain[l] &= static_cast<std::uint8_t>(simple ? std::isfinite(x) : checked && check->plain_number(c, x));
      }
    } else {
      if (sl.kind == fast::Slot::K::boolean) booleans |= std::uint64_t{1} << c;
      for (std::size_t l = 0; l < n; ++l) {
        const double r = src.at[l * src.stride];
        const double x = sl.kind == fast::Slot::K::str ? r : r != 0 ? 1 : 0;
        flat[l * width + c] = x;
        changed[l] |= std::uint64_t{x != p} << c;
        p = x;
        plain[l] = 0;
      }
    }
    if (describe) prev[c] = p;
  }
  if (feasible_cell) {
    booleans |= std::uint64_t{1} << ncells;
    double p = describe ? prev[ncells] : 0;
    for (std::size_t l = 0; l < n; ++l) {
      const double b = (rows.meta[r0 + l].flags & CompactRows::infeasible) ? 0 : 1;
      flat[l * width + ncells] = b;
      changed[l] |= std::uint64_t{b != p} << ncells;
      p = b;
      plain[l] = 0;
    }
    if (describe) prev[ncells] = p;
  }
  if (!describe) return;
  for (std::size_t l = 0; l < n; ++l) {
    CompactRows::Meta& m = rows.meta[r0 + l];
    std::uint8_t flags = CompactRows::described | (plain[l] ? CompactRows::displayable : 0);
    m.changed = 0;
    if (scratch.has_prev) {
      // The feasibility cell's deps are none on every row.
      const bool same_deps = m.deps == scratch.prev_deps || *m.deps == *scratch.prev_deps;
      flags |= CompactRows::known | (same_deps ? CompactRows::same_deps : 0) |
               ((changed[l] & booleans) == 0 ? CompactRows::numbers_only : 0);
      m.changed = changed[l];
    }
    m.flags |= flags;
    scratch.has_prev = true;
    scratch.prev_deps = m.deps;
  }
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
      case fast::Slot::K::num:
        v.k = Value::K::num;
        v.n.d = x[c];
        v.n.sn = v.n.sd = 0;
        if (v.n.ex) v.n.ex.reset();
        if (v.h) v.h.reset();
        v.deps = d;
        break;
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
