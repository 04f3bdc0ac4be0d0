// fastpath.hpp — large sweeps compiled to straight-line binary64 register code.
// After checking, a sweep body's types and the configuration are fixed, so records flatten
// into registers, calls inline, conventions fold and only numbers remain. Provenance is not
// tracked per point: it depends only on which branches were taken (the point's signature) and
// on which assumption atoms the sweep variables' values carry (their provenance classes: two
// records, or two numbers from different parameters, read different atoms on the same
// branches), so it is computed once per signature and classes by the tree-walking evaluator,
// which also re-checks the compiled values bit for bit.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "eval.hpp"
#include "interpreter/semantics/config.hpp"
#include "interpreter/semantics/program.hpp"

namespace mls::fast {

// The register machine (fastpath.cpp compiles to it and runs it).
enum class Op : std::uint8_t {
  movi,
  mov,
  add,
  sub,
  mul,
  div,
  neg,
  pow,
  lt,
  le,
  gt,
  ge,
  eq,
  ne,
  not_,
  floor,
  ceil,
  round,
  abs,
  sqrt,
  exp,
  ln,
  log2,
  log10,
  powf,
  erlang_c,
  max,
  min,
  clamp,
  jz,
  jmp,
  mark,
  exit_if_zero,
  fail,
  clear
};

// The register fields an operation uses: whether it writes `d`, and how many of `a`, `b`, `c` it
// reads, in that order. The one table the dependency analysis and the lane renumbering read.
struct Operands {
  bool writes = false;
  std::uint8_t reads = 0;
};
constexpr Operands operands(Op op) {
  switch (op) {
    case Op::movi: return {true, 0};
    case Op::jz:
    case Op::exit_if_zero: return {false, 1};
    case Op::jmp:
    case Op::mark:
    case Op::fail:
    case Op::clear: return {false, 0};
    case Op::mov:
    case Op::neg:
    case Op::not_:
    case Op::floor:
    case Op::ceil:
    case Op::round:
    case Op::abs:
    case Op::sqrt:
    case Op::exp:
    case Op::ln:
    case Op::log2:
    case Op::log10: return {true, 1};
    case Op::clamp: return {true, 3};
    default: return {true, 2};  // the binary operations, max and min
  }
}

struct Ins {
  Op op;
  std::uint32_t d = 0, a = 0, b = 0, c = 0;
  std::uint32_t s = 0;  // signature slot (max/min/clamp/mark)
  double imm = 0;
  std::uint64_t mask = 0;  // sweep variables this instruction depends on (data and control)
};

// A scheduled instruction, as run: 24 bytes instead of Ins's 48 (immediates live in the
// schedule's constant pool, `a` indexes it for movi), so a schedule stays in the L1 cache.
struct Step {
  std::uint32_t d = 0, a = 0, b = 0, c = 0, s = 0;
  Op op = Op::mov;
};

// A schedule: the instructions to run for one pattern of changed sweep variables.
struct Schedule {
  std::uint64_t dirty = 0, skip = 0;
  std::vector<Step> code;
  std::vector<double> imm;
};

// A schedule run on lanes (SweepProgram::run_lanes): the registers it reads or writes are
// renumbered to rows of kLanes doubles, and its steps address those rows (row * kLanes).
struct LaneSchedule {
  std::uint64_t dirty = 0;
  std::vector<Step> code;
  std::vector<double> imm;
  std::vector<std::uint32_t> reg_of_row;  // row -> register
  std::vector<std::int32_t> row_of_reg;   // register -> row (-1: not touched, read from PointRun::regs)
  // Rows that start as the register: those no step writes (the block's inputs), and those
  // some path reads before writing them or leaves unwritten for an output to read (shared);
  // a row written before any read on every path (a temporary, a value each arm of a branch
  // defines) starts as anything.
  std::vector<std::uint32_t> inputs, shared;
  std::vector<std::uint32_t> constants;   // inputs that hold a constant (Compiled::constants)
  std::vector<std::uint32_t> leaves;      // the innermost binding's registers (bound per lane)
  bool number_leaves = false;             // ... one number per key position, in key order
  std::vector<std::uint32_t> lane_slots;  // signature slots of its max/min/clamp steps (per lane)
};

// Points per lane block, at most: a block's points share everything but the innermost sweep
// variable, or the two innermost ones (whole cycles of the innermost). A row holds kLanes
// doubles; a block of n points runs 8, 16 or 32 of them (the fewest that hold n).
inline constexpr std::size_t kLanes = 32;

// Status of one point.
enum class Status : std::uint8_t { ok, filtered, bail };

struct Compiled;  // the register program (fastpath.cpp)

// One worker's scratch state. It persists between points: registers that do not depend on
// the sweep variables that changed keep their values (see SweepProgram::run).
struct PointRun {
  Status status = Status::ok;
  std::vector<double> regs;
  std::vector<std::uint8_t> sig;       // arm taken at each runtime branch (0xff: not reached)
  std::vector<std::size_t> last_pick;  // the runner's domain indices of the previous point
  std::vector<Value> key;              // ... its key
  std::size_t last_index = 0;          // ... and its index
  // The runner's provenance cache for the last signature (opaque here; see run.cpp).
  std::vector<std::uint8_t> last_sig;
  const void* last_deps = nullptr;
  // Per pattern of changed sweep variables: the instructions that must run (fastpath.cpp).
  std::vector<Schedule> schedules;
  // The last run_lanes: its schedule (index into lane_schedules), rows [row][lane] and the
  // signatures [lane][slot] of its points.
  std::vector<LaneSchedule> lane_schedules;
  std::size_t lane_schedule = 0;
  std::vector<double> lanes;
  std::size_t lanes_of = ~std::size_t{0};  // the lane schedule whose rows `lanes` holds
  std::vector<std::uint8_t> lane_sig;
  // run_lanes' scratch: the slots the lanes share, the per-lane max/min/clamp slots [slot][lane]
  // and whether each of those ran.
  std::vector<std::uint8_t> lane_common, lane_vals, lane_ran;
  std::vector<std::uint32_t> lane_ran_slots;  // the max/min/clamp slots that ran (all lanes alike)
  std::uint32_t lanes_same_prev = 0;          // bit l: the last run_lanes' point l has point l - 1's signature
  std::uint64_t block_dirty = 0;              // the key positions the last lane block's points differ in
  std::vector<const Value*> lane_keys;        // the runner's scratch: a block's key values per lane
  std::vector<double> lane_saved;             // the binding's registers before run_lanes (restored if it fails)
};

// Column / objective / condition outputs of a compiled body, as registers or constants.
struct Slot {
  bool constant = false;
  double value = 0;
  std::uint32_t reg = 0;
  enum class K : std::uint8_t { num, boolean, str } kind = K::num;
};

class SweepProgram {
 public:
  ~SweepProgram();
  SweepProgram(const SweepProgram&) = delete;
  SweepProgram& operator=(const SweepProgram&) = delete;

  // Compiles a sweep/search body; returns null (with the reason) if it uses something the
  // fast path does not support (recursion, a list indexed at run time, ...).
  // `domains`: per binding, the tuples of values it takes (strings are interned up front).
  static std::unique_ptr<SweepProgram> compile(Program& p, const Config& cfg, Evaluator& ev, const Stmt& s,
                                               const std::vector<std::vector<std::vector<Value>>>& domains,
                                               std::string& why_not);

  // Runs one point. `key` holds the sweep variables' values; `changed` flags the key positions
  // (bit k = key[k]) that differ from the previous point this PointRun ran. Instructions that
  // depend on a key position in `skip` are not run (a lane block's outer work: run_lanes then
  // runs them), unless everything runs (the first point, after a point that stopped early, and
  // the careful re-run after a floating-point exception).
  void run(const std::vector<Value>& key, std::uint64_t changed, PointRun& out, std::uint64_t skip = 0) const;

  // Runs n <= kLanes points at once, each instruction over all of them: the points that differ
  // from the point `out` last ran (status ok) only in key positions [first, first + width) (the
  // innermost binding or two), where point l takes *values[l * width + k] at first + k. False,
  // with `out` as it was, when
  // they cannot run together: a branch or `where` that the points decide differently, an
  // operation outside its domain, or a floating-point exception; the caller then runs them one
  // by one. Otherwise read them with read(slot, out, l) and signature(out, l); `out` is left as
  // after running point n - 1 (its binding and signature), but for the registers the lanes
  // wrote, which hold older values that nothing reads before writing them again (run_lanes).
  bool run_lanes(const Value* const* values, std::size_t n, std::size_t first, std::size_t width, PointRun& out) const;
  [[nodiscard]] double read(const Slot& s, const PointRun& r, std::size_t lane) const {
    if (s.constant) return s.value;
    const std::int32_t row = r.lane_schedules[r.lane_schedule].row_of_reg[s.reg];
    return row < 0 ? r.regs[s.reg] : r.lanes[static_cast<std::size_t>(row) * kLanes + lane];
  }
  [[nodiscard]] static const std::uint8_t* signature(const PointRun& r, std::size_t lane) {
    return r.lane_sig.data() + lane * r.sig.size();
  }

  [[nodiscard]] const std::vector<Slot>& cells() const;                            // one per shown column
  [[nodiscard]] const std::vector<Slot>& objectives() const;                       // maximize/minimize/pareto
  [[nodiscard]] const std::vector<Slot>& feasibility() const;                      // subject-to conditions
  [[nodiscard]] const std::vector<std::pair<Slot, std::size_t>>& asserts() const;  // (cond, body item)
  [[nodiscard]] const std::string& string_of(double id) const;
  [[nodiscard]] double read(const Slot& s, const PointRun& r) const { return s.constant ? s.value : r.regs[s.reg]; }
  [[nodiscard]] std::size_t instructions() const;

  // The provenance classes of a point's sweep variables, as bytes the runner appends to its
  // branch signature (0 bytes when every value of each variable carries the same provenance,
  // as numbers from literals and ranges do): written from the point's picks, the element of
  // each binding's domain it takes.
  [[nodiscard]] std::size_t class_bytes() const;
  void write_classes(const std::vector<std::size_t>& pick, std::uint8_t* out) const;

 private:
  const Schedule& schedule_for(std::uint64_t dirty, PointRun& out, std::uint64_t skip = 0) const;
  std::size_t lane_schedule_for(std::uint64_t dirty, PointRun& out) const;
  void bind_key(const std::vector<Value>& key, std::uint64_t dirty, PointRun& out) const;
  SweepProgram();
  std::unique_ptr<Compiled> c_;
};

}  // namespace mls::fast
