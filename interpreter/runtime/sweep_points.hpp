// sweep_points.hpp — one point of a sweep or search body, the unit sweep.cpp's runner hands to
// its worker threads: evaluated from scratch or incrementally by the tree-walking evaluator, or
// through the compiled program (fastpath.hpp), alone or as a lane of a block of points that
// differ only in the innermost binding. Internal to runtime/.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "eval.hpp"
#include "fastpath.hpp"
#include "interpreter/results/run_result.hpp"
#include "notes.hpp"

namespace mls {

struct PointOut {
  bool filtered = false;
  bool feasible = true;
  std::vector<Value> key, cells;
  std::vector<Value> objectives;
  std::vector<AssertOutcome> failed;
  std::vector<std::size_t> failed_items;  // the body item of each failed assert (shard parts)
  std::string error;                      // searches: the runtime error that made this point infeasible
  // The row as the sink writes it, formatted on the worker thread once the sink could say how
  // (row_text.hpp); has_text is false for the rows computed before that, which the sink formats.
  std::string text;
  bool has_text = false;
  // Set with the text, on the worker (format_rows): this row against the chunk's row before it,
  // and whether every cell is a finite binary64 number of a number column (nothing for
  // check_displayable to refuse). The writer's thread then need not read the cells.
  RowDelta delta;
  bool displayable = false;
  // delta and displayable were set by point_out as the cells were written (the compiled path);
  // format_rows then need not read the cells again.
  bool described = false;
};

// A number written into a Value in place (its storage kept; no exact part, no history).
inline void set_number(Value& v, double x, DepSet d) {
  v.k = Value::K::num;
  v.n.d = x;
  v.n.sn = v.n.sd = 0;
  if (v.n.ex) v.n.ex.reset();
  if (v.h) v.h.reset();
  v.deps = d;
}

// The first thing a compiled point and the tree-walker's evaluation of the same point disagree
// on, to the bit: "its where conditions", "column N" (of the compiled point's shown cells),
// "objective N", "its subject-to conditions", "the asserts that fail"; "" when they agree.
// Provenance is not compared (the compiled point has none; the evaluator's is what the
// signature cache keeps).
std::string disagreement(const PointOut& evaluated, const PointOut& compiled);

// A chunk of a compiled sweep's rows, compact: each row's cells as binary64 numbers in one flat
// array (a boolean as 0 or 1, a string as its id in the program's string table), and per row a
// few bytes: its provenance (the cells' deps, one vector per branch signature, shared by every
// row with that signature), its flags and its RowDelta. A row of a dozen cells is then about
// two cache lines rather than the fifteen its Values take; Values are built (materialize) only
// where a consumer takes them. The key is not stored: it is a function of the point's index.
struct CompactRows {
  enum Flag : std::uint8_t {
    filtered = 1,
    infeasible = 2,
    described = 4,     // delta and displayable were set by point_out (else both unknown)
    displayable = 8,   // every cell a finite binary64 number of a number column (CellCheck)
    known = 16,        // RowDelta::known
    same_deps = 32,    // RowDelta::same_deps
    numbers_only = 64  // RowDelta::numbers_only
  };
  struct Meta {
    const std::vector<DepSet>* deps = nullptr;  // per shown cell (the feasibility cell's are none)
    std::uint64_t changed = 0;                  // RowDelta::changed
    std::uint32_t text_end = 0;                 // the row's text ends there in `text` (has_text)
    std::uint8_t flags = 0;
  };
  std::size_t width = 0;                                      // cells per row
  std::vector<double> cells;                                  // row r at [r * width, (r + 1) * width)
  std::vector<Meta> meta;                                     // per row
  std::vector<std::pair<std::size_t, AssertOutcome>> failed;  // (row, the assert), in row order
  std::string text;                                           // the rows' texts, one after another
  bool has_text = false;                                      // the non-filtered rows have theirs in `text`

  // Ready for n rows of `w` cells (storage kept from chunk to chunk).
  void reset(std::size_t n, std::size_t w) {
    width = w;
    cells.resize(n * w);
    meta.assign(n, Meta{});
    failed.clear();
    text.clear();
    has_text = false;
  }
  void truncate(std::size_t n) {
    meta.resize(n);
    cells.resize(n * width);
  }
  [[nodiscard]] std::size_t size() const { return meta.size(); }
  [[nodiscard]] const double* row(std::size_t r) const { return cells.data() + r * width; }
  [[nodiscard]] RowDelta delta(std::size_t r) const {
    RowDelta d;
    const Meta& m = meta[r];
    d.known = (m.flags & known) != 0;
    d.same_deps = (m.flags & same_deps) != 0;
    d.numbers_only = (m.flags & numbers_only) != 0;
    d.changed = m.changed;
    return d;
  }
};

// How a compact row's numbers become Values: each cell's kind (the feasibility cell, last, is a
// boolean without deps).
struct CompactCells {
  std::vector<fast::Slot::K> kinds;
  const fast::SweepProgram* prog = nullptr;  // strings
  // Row r of `rows` into `cells` (resized; numbers assigned in place, keeping the storage).
  void materialize(const CompactRows& rows, std::size_t r, std::vector<Value>& cells) const {
    materialize(rows.row(r), *rows.meta[r].deps, cells);
  }
  // The same from a row's numbers and its cells' deps.
  void materialize(const double* x, const std::vector<DepSet>& deps, std::vector<Value>& cells) const;
};

// What check_displayable accepts without a look, per column: a finite binary64 number in a
// number column, finite in its display unit too. Fixed once the table's units are chosen.
struct CellCheck {
  std::vector<std::uint8_t> num_col;      // its type is a number
  std::vector<std::uint8_t> no_overflow;  // |factor| >= 1, so x / factor is finite when x is
  std::vector<double> factor;
  bool simple = true;  // every column is a number column without overflow: plain <=> finite

  explicit CellCheck(const Table& t) {
    for (const auto& col : t.cols) {
      num_col.push_back(col.type && col.type->k == Type::K::num);
      factor.push_back(col.display.factor.d);
      no_overflow.push_back(std::fabs(col.display.factor.d) >= 1);
      simple = simple && num_col.back() && no_overflow.back();
    }
  }
  // Column c holding the binary64 number x. The division only where it could overflow (x /
  // factor with |factor| < 1).
  [[nodiscard]] bool plain_number(std::size_t c, double x) const {
    return num_col[c] && (no_overflow[c] ? std::isfinite(x) : std::isfinite(x / factor[c]));
  }
  [[nodiscard]] bool plain(std::size_t c, const Value& v) const {
    return v.k == Value::K::num && !v.n.exact() && plain_number(c, v.n.d);
  }
  [[nodiscard]] bool plain(const std::vector<Value>& cells) const {
    if (cells.size() != num_col.size()) return false;
    for (std::size_t c = 0; c < cells.size(); ++c)
      if (!plain(c, cells[c])) return false;
    return true;
  }
};

// One worker's state for the tree-walking path (exact sweeps, and binary64 ones the compiler
// does not support): the frame of its previous point and each body item's values as last
// evaluated. An item whose sweep variables (read directly or through earlier `let`s) have not
// changed since then is not evaluated again: its values are the same, because evaluation is a
// pure function of the frame (globals and settings are fixed for the whole sweep).
struct EvalRun {
  std::vector<Value> slots;
  std::vector<std::size_t> pick, last_pick;  // per binding: the element chosen (this and the previous point)
  std::vector<std::uint64_t> stale;          // per body item: the bindings changed since it was evaluated
  std::vector<std::uint64_t> cost;           // per body item: the evaluation steps it took
  std::vector<std::uint8_t> valid;           // per body item: `values` hold its results
  std::vector<std::vector<Value>> values;    // per body item: what it evaluated to
};

// A worker's branch signatures (bytes, one per branch site, then the sweep variables' provenance
// classes where they differ: SweepProgram::class_bytes) -> their cells' provenance, looked
// up by a view of the signature's bytes: a point whose branches differ from its predecessor's
// (about one in eight on bench/e2_bench.mls) then costs a hash, not a string and a map node
// allocated and freed.
struct SigHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
using LocalSigs = std::unordered_map<std::string, const std::vector<DepSet>*, SigHash, std::equal_to<>>;

// Branch signatures -> their cells' provenance, shared by the workers: each looks here only
// when its own view (LocalSigs) misses, about once per signature. A signature found nowhere is
// checked against the evaluator, then inserted.
class SignatureCache {
 public:
  const std::vector<DepSet>* find(const std::string& sig) {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = sigs_.find(sig);
    return it == sigs_.end() ? nullptr : &it->second;
  }
  // Where the signature's provenance is kept: `deps`, or what another worker inserted first.
  const std::vector<DepSet>* insert(const std::string& sig, std::vector<DepSet> deps) {
    std::lock_guard<std::mutex> lock(mu_);
    return &sigs_.emplace(sig, std::move(deps)).first->second;
  }

 private:
  std::mutex mu_;
  std::unordered_map<std::string, std::vector<DepSet>> sigs_;
};

// One worker's memory for the compiled path: its view of the signature cache, and the previous
// row of the chunk being computed, as numbers (booleans 0 or 1) and provenance, against which
// point_out describes each row (PointOut::described) while its cells are in registers.
struct PointScratch {
  LocalSigs sigs;
  bool describe = false;                           // describe the rows (a sweep's; set per chunk)
  const CellCheck* check = nullptr;                // the table's, once it has begun (else not displayable)
  bool has_prev = false;                           // `prev` holds the chunk's previous row (reset per chunk)
  std::vector<double> prev;                        // its cells
  const std::vector<DepSet>* prev_deps = nullptr;  // and their provenance
  // The signatures this worker met most recently but one (the last one is PointRun's): points
  // alternate between a few (a tensor-parallel degree's branches, then another's), which are
  // then found by a comparison of their bytes rather than a hash.
  struct RecentSig {
    std::vector<std::uint8_t> sig;
    const std::vector<DepSet>* deps = nullptr;
  };
  std::array<RecentSig, 4> recent;
  std::size_t recent_next = 0;         // the entry replaced next
  std::vector<std::uint8_t> full_sig;  // a signature with its provenance classes (provenance_sig)
  // Whether the program whose rows this worker last wrote (heads_of) has no subject-to
  // condition and no assert: a lane's head is then its provenance alone (point_out).
  const void* heads_of = nullptr;
  bool plain_heads = false;
  // Where each shown value of the current lane block is read, lane l at at[l * stride] (a row
  // of lanes, or a register or constant shared by all): found once per block (block_point)
  // rather than per cell of every point.
  struct CellSource {
    const double* at = nullptr;
    std::size_t stride = 0;
  };
  std::vector<CellSource> lane_cells;
  // Starts a chunk: its first row has no previous row to be compared with.
  void chunk(bool describe_rows, const CellCheck* cell_check) {
    describe = describe_rows;
    check = cell_check;
    has_prev = false;
  }
};

// Evaluates points of one sweep statement. Shared by the worker threads: the signature cache is
// guarded by its own mutex; every other member is fixed before the first point.
class SweepPoints {
 public:
  using Domains = std::vector<std::vector<std::vector<Value>>>;
  static constexpr std::size_t kNoLane = ~std::size_t{0};

  SweepPoints(Program& p, const Stmt& s);

  [[nodiscard]] std::size_t key_width() const { return key_width_; }  // values per point
  [[nodiscard]] bool has_subject() const { return has_subject_; }     // a `subject to` item

  // Which bindings each body item depends on (point_reusing needs it; call once before).
  void body_masks();

  // The tree-walking path: one point from scratch, or incrementally from this worker's previous
  // point (`st`); `o` is refilled in place.
  PointOut point(Evaluator& ev, const Domains& domains, std::size_t index, bool fast);
  void point_reusing(Evaluator& ev, const Domains& domains, std::size_t index, bool fast, EvalRun& st, PointOut& o);

  // The compiled path: one point on its own; or a block of up to fast::kLanes points from
  // `index` (block_size of them) run once (run_block), then each read back (block_point).
  // A row goes to `dest`: a PointOut, or row `row` of a chunk of compact rows (sweeps only).
  struct Dest {
    PointOut* out = nullptr;
    CompactRows* rows = nullptr;
    std::size_t row = 0;
    // A compact row of a lane block: only its head (provenance, feasibility, asserts), its
    // cells left to lane_rows, for all the block's lanes at once.
    bool head_only = false;
  };
  void point_fast(Evaluator& ev, const fast::SweepProgram& prog, const Domains& domains, std::size_t index,
                  fast::PointRun& run, PointScratch& scratch, const Dest& dest);
  // A block of more than kNarrowLanes points that cannot run as lanes is tried again with
  // block_size(..., false): a branch that its points decide differently may split it, not the
  // narrow blocks inside it.
  static constexpr std::size_t kNarrowLanes = 8;
  [[nodiscard]] std::size_t block_size(const Domains& domains, std::size_t index, std::size_t end,
                                       bool wide = true) const;
  bool run_block(const fast::SweepProgram& prog, const Domains& domains, std::size_t index, std::size_t n,
                 fast::PointRun& run) const;
  void block_point(Evaluator& ev, const fast::SweepProgram& prog, const Domains& domains, std::size_t index,
                   std::size_t l, bool lanes, fast::PointRun& run, PointScratch& scratch, const Dest& dest);
  void lane_heads(Evaluator& ev, const fast::SweepProgram& prog, const Domains& domains, std::size_t index,
                  std::size_t n, fast::PointRun& run, PointScratch& scratch, CompactRows& rows, std::size_t r0,
                  std::size_t& at);
  void lane_rows(const fast::SweepProgram& prog, PointScratch& scratch, CompactRows& rows, std::size_t r0,
                 std::size_t n) const;
  // Compact rows' width for this program (its shown cells and the feasibility cell), and how
  // their cells become Values.
  [[nodiscard]] std::size_t compact_width(const fast::SweepProgram& prog) const;
  [[nodiscard]] CompactCells compact_cells(const fast::SweepProgram& prog) const;

  // Point `index`'s key (Cartesian product, first binding outermost), as text, and an assert
  // of the body that failed there.
  [[nodiscard]] std::vector<Value> key_of(const Domains& domains, std::size_t index) const;
  void key_of(const Domains& domains, std::size_t index, std::vector<std::size_t>& pick, std::vector<Value>& key) const;
  // The same, from the point before (`pick` holding its choice, `last` its index): one odometer
  // step when `index` is last + 1, key_of otherwise. Every key value is assigned.
  void next_key(const Domains& domains, std::size_t index, std::vector<std::size_t>& pick, std::size_t& last,
                std::vector<Value>& key) const;
  [[nodiscard]] std::string point_text(const Domains& domains, std::size_t index) const;
  [[nodiscard]] AssertOutcome failed_assert(const BodyItem& item, const Domains& domains, std::size_t index) const;

 private:
  static std::uint64_t binding_bit(std::size_t b);
  std::uint64_t advance(const Domains& domains, std::size_t index, fast::PointRun& run) const;
  std::uint64_t advance_inner(const Domains& domains, std::size_t index, fast::PointRun& run) const;
  [[nodiscard]] std::uint64_t inner_mask(const Domains& domains) const;
  static void lane_step(const Domains& domains, fast::PointRun& run, std::size_t index);
  static void lane_sources(const fast::SweepProgram& prog, const fast::PointRun& run, PointScratch& scratch);
  void point_out(Evaluator& ev, const fast::SweepProgram& prog, const Domains& domains, std::size_t index,
                 fast::PointRun& run, std::size_t lane, PointScratch& scratch, const Dest& dest);
  // point_out's general path, in three parts: the signature cache (signature_deps), which checks
  // a signature's first point against the evaluator (verify), and the row's destination, a
  // PointOut or a compact row (write_row into a ValueRow or a NumberRow).
  [[gnu::noinline]] void point_out_full(Evaluator& ev, const fast::SweepProgram& prog, const Domains& domains,
                                        std::size_t index, fast::PointRun& run, std::size_t lane, PointScratch& scratch,
                                        const Dest& dest);
  struct CompiledRead;
  struct ValueRow;
  struct NumberRow;
  static void start_row(const fast::PointRun& run, const Dest& dest);
  const std::vector<DepSet>* signature_deps(Evaluator& ev, const fast::SweepProgram& prog, const Domains& domains,
                                            std::size_t index, fast::PointRun& run, std::size_t lane,
                                            PointScratch& scratch);
  std::vector<DepSet> verify(Evaluator& ev, const fast::SweepProgram& prog, const Domains& domains, std::size_t index,
                             const CompiledRead& read);
  template <typename Row>
  void write_row(Row& row, const fast::SweepProgram& prog, const fast::PointRun& run, std::size_t lane,
                 PointScratch& scratch, const std::vector<DepSet>& deps, bool feasible) const;
  static const std::uint8_t* provenance_sig(const fast::SweepProgram& prog, const fast::PointRun& run, std::size_t lane,
                                            PointScratch& scratch, std::size_t& n);
  static void remember_last(fast::PointRun& run, PointScratch& scratch, const std::uint8_t* sig, std::size_t nsig,
                            const std::vector<DepSet>* deps);

  Program& p_;
  const Stmt& s_;
  bool has_subject_ = false;
  // The body item of a `top K per EXPR` whose EXPR is evaluated (not a sweep variable read from
  // the key, search_group.hpp): its value follows the objectives. -1: none.
  std::ptrdiff_t group_item_ = -1;
  std::size_t key_width_ = 0;             // values per sweep point (zip bindings contribute several)
  std::vector<std::size_t> offset_;       // per binding: its first key position
  std::vector<std::uint64_t> item_mask_;  // per body item: the bindings it depends on (point_reusing)
  SignatureCache sigs_;
};

}  // namespace mls
