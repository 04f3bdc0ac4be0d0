// fastpath.hpp — large sweeps compiled to straight-line binary64 register code.
// After checking, a sweep body's types and the configuration are fixed, so records flatten
// into registers, calls inline, conventions fold and only numbers remain. Provenance is not
// tracked per point: it depends only on which branches were taken (the point's signature),
// so it is computed once per signature by the tree-walking evaluator, which also re-checks
// the compiled values bit for bit.
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
  std::uint64_t dirty = 0;
  std::vector<Step> code;
  std::vector<double> imm;
};

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
  // (bit k = key[k]) that differ from the previous point this PointRun ran.
  void run(const std::vector<Value>& key, std::uint64_t changed, PointRun& out) const;

  [[nodiscard]] const std::vector<Slot>& cells() const;                            // one per shown column
  [[nodiscard]] const std::vector<Slot>& objectives() const;                       // maximize/minimize/pareto
  [[nodiscard]] const std::vector<Slot>& feasibility() const;                      // subject-to conditions
  [[nodiscard]] const std::vector<std::pair<Slot, std::size_t>>& asserts() const;  // (cond, body item)
  [[nodiscard]] const std::string& string_of(double id) const;
  [[nodiscard]] double read(const Slot& s, const PointRun& r) const { return s.constant ? s.value : r.regs[s.reg]; }
  [[nodiscard]] std::size_t instructions() const;

 private:
  const Schedule& schedule_for(std::uint64_t dirty, PointRun& out) const;
  void bind_key(const std::vector<Value>& key, std::uint64_t dirty, PointRun& out) const;
  SweepProgram();
  std::unique_ptr<Compiled> c_;
};

}  // namespace mls::fast
