// sweep_rows.cpp — a compiled point's row (sweep_points.hpp): its provenance from the branch
// signature cache (a signature's first point checked against the tree-walking evaluator), its
// cells to a PointOut or a compact row, described as they are written; a lane block's rows.
#include <algorithm>
#include <array>
#include <cstring>

#include "sweep_points.hpp"

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

// The heads of a lane block's compact rows r0 + 1 .. r0 + n - 1, lanes 1 .. n - 1 of the last
// run_lanes (block_point wrote lane 0's), in one loop: what block_point writes for each of them
// (Dest::head_only), without a call per lane. `at` is the point being written (the one an
// error is reported at). A head whose point has the signature of the lane before it (no
// max/min/clamp arm differs between them), in a body without asserts, takes that lane's
// provenance, which the head before found or took (it left it as run.last_deps, as point_out
// would find it again) — unless the sweep variables' provenance classes may differ between
// the lanes (point_out compares those too).
void SweepPoints::lane_heads(Evaluator& ev, const fast::SweepProgram& prog, const Domains& domains, std::size_t index,
                             std::size_t n, fast::PointRun& run, PointScratch& scratch, CompactRows& rows,
                             std::size_t r0, std::size_t& at) {
  const std::vector<fast::Slot>& feasibility = prog.feasibility();
  const bool as_prev = prog.asserts().empty() && prog.class_bytes() == 0;
  for (std::size_t l = 1; l < n; ++l) {
    at = index + l;
    lane_step(domains, run, index + l);
    const Dest dest{nullptr, &rows, r0 + l, true};
    if ((run.lanes_same_prev >> l & 1) && run.last_deps && as_prev) {
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
    std::size_t nsig = 0;
    const std::uint8_t* const sig_at = provenance_sig(prog, run, lane, scratch, nsig);
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

// The bytes a point's provenance is cached under: its branch signature (run's, or lane `lane`'s
// of the last run_lanes) and, where the values of a sweep variable carry different provenance
// (records, numbers from different parameters), their classes, from run.last_pick (the point's
// picks: every path to point_out leaves them there). `n` receives their length.
const std::uint8_t* SweepPoints::provenance_sig(const fast::SweepProgram& prog, const fast::PointRun& run,
                                                std::size_t lane, PointScratch& scratch, std::size_t& n) {
  const std::uint8_t* const sig = lane == kNoLane ? run.sig.data() : fast::SweepProgram::signature(run, lane);
  n = run.sig.size();
  const std::size_t extra = prog.class_bytes();
  if (extra == 0) return sig;
  scratch.full_sig.resize(n + extra);
  std::copy_n(sig, n, scratch.full_sig.data());
  prog.write_classes(run.last_pick, scratch.full_sig.data() + n);
  n += extra;
  return scratch.full_sig.data();
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

// The row destinations of point_out_full: what write_row puts in cell c, as a PointOut's Value
// (numbers in place: the cells are cleared only to be refilled) or a compact row's number (a
// boolean as 0 or 1, a string as its id), and what it found of the row as a whole.
struct SweepPoints::ValueRow {
  PointOut& o;
  const fast::SweepProgram& prog;
  void width(std::size_t n) { o.cells.resize(n); }
  void number(std::size_t c, double x, DepSet d) { set_number(o.cells[c], x, d); }
  void boolean(std::size_t c, bool b, DepSet d) { o.cells[c] = Value::boolean(b, d); }
  void string(std::size_t c, double id, DepSet d) { o.cells[c] = Value::string(prog.string_of(id), d); }
  void described(bool plain, const RowDelta& delta) {
    o.described = true;
    o.displayable = plain;
    o.delta = delta;
  }
};
struct SweepPoints::NumberRow {
  double* flat;
  CompactRows::Meta& meta;
  static void width(std::size_t) {}
  void number(std::size_t c, double x, DepSet) { flat[c] = x; }
  void boolean(std::size_t c, bool b, DepSet) { flat[c] = b ? 1 : 0; }
  void string(std::size_t c, double id, DepSet) { flat[c] = id; }
  void described(bool plain, const RowDelta& delta) {
    meta.flags |= CompactRows::described | (plain ? CompactRows::displayable : 0) |
                  (delta.known ? CompactRows::known : 0) | (delta.same_deps ? CompactRows::same_deps : 0) |
                  (delta.numbers_only ? CompactRows::numbers_only : 0);
    meta.changed = delta.changed;
  }
};

// A compiled point's cells (and the feasibility cell of a sweep with subject-to conditions) to
// `row`, described against the chunk's previous row as they are written, as format_rows would
// (RowDelta::compare, CellCheck::plain): cell c changed where its number differs (==, as
// same_cell), a boolean where its truth does; a string cell leaves that to format_rows.
template <typename Row>
void SweepPoints::write_row(Row& row, const fast::SweepProgram& prog, const fast::PointRun& run, std::size_t lane,
                            PointScratch& scratch, const std::vector<DepSet>& deps, bool feasible) const {
  const std::vector<fast::Slot>& cells = prog.cells();
  const std::size_t ncells = cells.size();
  const bool feasible_cell = has_subject_ && s_.kind == SK::sweep;
  const std::size_t width = ncells + (feasible_cell ? 1 : 0);
  const double* const regs = run.regs.data();
  // The lane's rows, looked up once rather than per cell.
  const PointScratch::CellSource* const from = lane == kNoLane ? nullptr : scratch.lane_cells.data();
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
  row.width(width);
  for (std::size_t c = 0; c < ncells; ++c) {
    const fast::Slot& sl = cells[c];
    if (sl.kind != fast::Slot::K::num) {
      plain = false;
      const double r = lane == kNoLane ? prog.read(sl, run) : prog.read(sl, run, lane);
      if (sl.kind == fast::Slot::K::str) {
        row.string(c, r, deps[c]);
        describe = false;
        continue;
      }
      const double b = r != 0 ? 1 : 0;
      row.boolean(c, r != 0, deps[c]);
      if (describe) {
        changed |= std::uint64_t{b != prev[c]} << c;
        booleans |= std::uint64_t{1} << c;
        prev[c] = b;
      }
      continue;
    }
    const double x = from ? from[c].at[lane * from[c].stride] : sl.constant ? sl.value : regs[sl.reg];
    row.number(c, x, deps[c]);
    if (describe) {
      changed |= std::uint64_t{!(x == prev[c])} << c;
      prev[c] = x;
    }
    finite &= std::isfinite(x);
    if (plain && !simple) plain = check->plain_number(c, x);
  }
  plain &= finite;
  if (feasible_cell) {
    row.boolean(ncells, feasible, 0);
    plain = false;
    const double b = feasible ? 1 : 0;
    if (describe) {
      changed |= std::uint64_t{b != prev[ncells]} << ncells;
      booleans |= std::uint64_t{1} << ncells;
      prev[ncells] = b;
    }
  }
  if (!describe) return;
  RowDelta delta;
  if (scratch.has_prev) {
    // The feasibility cell's deps are none on every row.
    delta.known = true;
    delta.same_deps = &deps == scratch.prev_deps || deps == *scratch.prev_deps;
    delta.numbers_only = (changed & booleans) == 0;
    delta.changed = changed;
  }
  scratch.has_prev = true;
  scratch.prev_deps = &deps;
  row.described(plain, delta);
}

// A compiled point's values, from its registers (kNoLane) or from lane `lane` of the last
// run_lanes, as Values where asked.
struct SweepPoints::CompiledRead {
  const fast::SweepProgram& prog;
  const fast::PointRun& run;
  std::size_t lane;
  double operator()(const fast::Slot& sl) const {
    return lane == kNoLane ? prog.read(sl, run) : prog.read(sl, run, lane);
  }
  [[nodiscard]] Value value(const fast::Slot& sl, DepSet d) const {
    const double x = (*this)(sl);
    if (sl.kind == fast::Slot::K::boolean) return Value::boolean(x != 0, d);
    if (sl.kind == fast::Slot::K::str) return Value::string(prog.string_of(x), d);
    return Value::number(Num::of_double(x), d);
  }
  // Every subject-to condition holds.
  [[nodiscard]] bool feasible() const {
    bool all = true;
    for (const auto& f : prog.feasibility())
      if ((*this)(f) == 0) all = false;
    return all;
  }
};

void SweepPoints::point_out_full(Evaluator& ev, const fast::SweepProgram& prog, const Domains& domains,
                                 std::size_t index, fast::PointRun& run, std::size_t lane, PointScratch& scratch,
                                 const Dest& dest) {
  start_row(run, dest);
  if (run.status == fast::Status::bail) {
    (void)point(ev, domains, index, true);  // raises the evaluator's own diagnostic
    throw DiagnosticError{
        make_diagnostic(ErrorKind::internal, s_.span, "compiled sweep failed where the evaluator did not")};
  }
  if (run.status == fast::Status::filtered) {
    if (dest.out)
      dest.out->filtered = true;
    else
      dest.rows->meta[dest.row].flags = CompactRows::filtered;
    return;
  }
  const CompiledRead read{prog, run, lane};
  const bool feasible = read.feasible();
  if (dest.out) {
    dest.out->feasible = feasible;
    for (const auto& ob : prog.objectives()) dest.out->objectives.push_back(read.value(ob, 0));
  }
  for (const auto& [cond, item] : prog.asserts())
    if (read(cond) == 0) {
      if (dest.out) {
        dest.out->failed.push_back(failed_assert(s_.body[item], domains, index));
        dest.out->failed_items.push_back(item);
      } else {
        dest.rows->failed.emplace_back(dest.row, failed_assert(s_.body[item], domains, index));
      }
    }
  const std::vector<DepSet>* const deps = signature_deps(ev, prog, domains, index, run, lane, scratch);
  if (dest.out) {
    ValueRow row{*dest.out, prog};
    write_row(row, prog, run, lane, scratch, *deps, feasible);
    return;
  }
  CompactRows::Meta& meta = dest.rows->meta[dest.row];
  meta.deps = deps;
  if (!feasible) meta.flags |= CompactRows::infeasible;
  if (dest.head_only) return;
  NumberRow row{dest.rows->cells.data() + dest.row * dest.rows->width, meta};
  write_row(row, prog, run, lane, scratch, *deps, feasible);
}

// A row's destination made ready: a PointOut's flags and lists cleared and its key set, or a
// compact row's head cleared.
void SweepPoints::start_row(const fast::PointRun& run, const Dest& dest) {
  PointOut* const o = dest.out;
  if (!o) {
    dest.rows->meta[dest.row] = CompactRows::Meta{};
    return;
  }
  o->filtered = false;
  o->feasible = true;
  o->described = false;
  o->objectives.clear();
  o->failed.clear();
  o->failed_items.clear();
  // Element by element, inline: a key is a few plain numbers.
  if (o->key.size() != run.key.size()) o->key.resize(run.key.size());
  for (std::size_t k = 0; k < run.key.size(); ++k) o->key[k] = run.key[k];
}

// The provenance of the cells of a point with the branches of `run` (lane `lane`): this worker's
// last signature, a recent one, its own view of the cache, then the shared cache. A signature
// met nowhere is checked (verify) and added to both; it becomes this worker's last.
const std::vector<DepSet>* SweepPoints::signature_deps(Evaluator& ev, const fast::SweepProgram& prog,
                                                       const Domains& domains, std::size_t index, fast::PointRun& run,
                                                       std::size_t lane, PointScratch& scratch) {
  std::size_t nsig = 0;
  const std::uint8_t* const sig_at = provenance_sig(prog, run, lane, scratch, nsig);
  // The previous point of this worker usually took the same branches.
  const std::vector<DepSet>* deps = nullptr;
  if (run.last_deps && run.last_sig.size() == nsig && same_bytes(sig_at, run.last_sig.data(), nsig))
    deps = static_cast<const std::vector<DepSet>*>(run.last_deps);
  for (std::size_t e = 0; !deps && e < scratch.recent.size(); ++e) {
    const PointScratch::RecentSig& r = scratch.recent[e];
    if (r.deps && r.sig.size() == nsig && same_bytes(sig_at, r.sig.data(), nsig)) deps = r.deps;
  }
  const std::string_view sig_bytes(reinterpret_cast<const char*>(sig_at), nsig);
  if (!deps)
    if (auto it = scratch.sigs.find(sig_bytes); it != scratch.sigs.end()) deps = it->second;
  if (!deps) {
    std::string sig(sig_bytes);
    deps = sigs_.find(sig);
    if (!deps) deps = sigs_.insert(sig, verify(ev, prog, domains, index, CompiledRead{prog, run, lane}));
    scratch.sigs.emplace(std::move(sig), deps);
  }
  remember_last(run, scratch, sig_at, nsig, deps);
  return deps;
}

// A signature's first point, evaluated again by the tree-walker: the two must agree bit for bit
// on every shown cell, objective, subject-to condition and failing assert, or the compiled code
// is wrong (an internal error, at the point). The evaluator's cells give the provenance.
std::vector<DepSet> SweepPoints::verify(Evaluator& ev, const fast::SweepProgram& prog, const Domains& domains,
                                        std::size_t index, const CompiledRead& read) {
  const PointOut slow = point(ev, domains, index, true);
  PointOut fast;
  for (const auto& c : prog.cells()) fast.cells.push_back(read.value(c, 0));
  for (const auto& ob : prog.objectives()) fast.objectives.push_back(read.value(ob, 0));
  fast.feasible = read.feasible();
  for (const auto& [cond, item] : prog.asserts())
    if (read(cond) == 0) fast.failed_items.push_back(item);
  const std::string what = disagreement(slow, fast);
  if (!what.empty())
    throw DiagnosticError{make_diagnostic(
        ErrorKind::internal, s_.span,
        "compiled sweep disagrees with the evaluator in " + what + " at " + point_text(domains, index))};
  std::vector<DepSet> d;
  for (std::size_t c = 0; c < fast.cells.size(); ++c) d.push_back(slow.cells[c].deps);
  return d;
}

namespace {

// The same value to the bit (provenance aside).
bool same_value(const Value& a, const Value& b) {
  return a.k == b.k && (a.k != Value::K::num || std::memcmp(&a.n.d, &b.n.d, sizeof(double)) == 0) &&
         (a.k != Value::K::boolean || a.b == b.b) && (a.k != Value::K::str || a.str() == b.str());
}

}  // namespace

std::string disagreement(const PointOut& evaluated, const PointOut& compiled) {
  if (evaluated.filtered != compiled.filtered) return "its where conditions";
  if (evaluated.filtered) return "";
  for (std::size_t c = 0; c < compiled.cells.size(); ++c)
    if (c >= evaluated.cells.size() || !same_value(evaluated.cells[c], compiled.cells[c]))
      return "column " + std::to_string(c + 1);
  if (evaluated.objectives.size() != compiled.objectives.size()) return "its objectives";
  for (std::size_t j = 0; j < compiled.objectives.size(); ++j)
    if (!same_value(evaluated.objectives[j], compiled.objectives[j])) return "objective " + std::to_string(j + 1);
  if (evaluated.feasible != compiled.feasible) return "its subject-to conditions";
  if (evaluated.failed_items != compiled.failed_items) return "the asserts that fail";
  return "";
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

}  // namespace mls
