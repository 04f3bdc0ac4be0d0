// fastpath_run.cpp — running compiled sweep code (fastpath.cpp compiles it): the schedules of
// instructions per pattern of changed sweep variables, the scalar machine, and lane blocks of up
// to 8 points that differ only in the innermost sweep variable. Every operation mirrors the
// evaluator's binary64 behaviour exactly (same IEEE operations in the same order, same error
// conditions), which the sweep runner verifies per signature.
#include <algorithm>
#include <bit>
#include <cfenv>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "fastpath_compiled.hpp"
#include "native_eval.hpp"

namespace mls::fast {

namespace {

// The instructions to run when the sweep variables in `dirty` changed: the others still hold
// the previous point's results. Jumps stay (their conditions are unchanged when clean, so they
// skip the same arms); a branch that re-decides first clears its signature slots (`clear`).
// Instructions that depend on a variable in `skip` are left out too (run's `skip`).
std::vector<Ins> schedule(const Compiled& c, std::uint64_t dirty, std::uint64_t skip) {
  const bool all = dirty == ~std::uint64_t{0};
  std::vector<Ins> out;
  std::vector<std::uint32_t> at(c.code.size() + 1, 0);  // old pc -> new index
  for (std::size_t pc = 0; pc < c.code.size(); ++pc) {
    at[pc] = static_cast<std::uint32_t>(out.size());
    if (!c.region_slots[pc].empty() && (all || (c.region_mask[pc] & dirty)))
      out.push_back(Ins{Op::clear, 0, static_cast<std::uint32_t>(pc)});
    const Ins& i = c.code[pc];
    if (all || ((i.mask & dirty) && !(i.mask & skip)) || i.op == Op::jz || i.op == Op::jmp) out.push_back(i);
  }
  at[c.code.size()] = static_cast<std::uint32_t>(out.size());
  for (Ins& i : out)
    if (i.op == Op::jz || i.op == Op::jmp) i.d = at[i.d];
  // A jump to the very next instruction (a branch whose arms are both clean here) does
  // nothing: drop it, and again, since that can turn the jump before it into such a jump.
  for (bool again = true; again;) {
    again = false;
    std::vector<std::uint32_t> to(out.size() + 1, 0);
    std::vector<Ins> kept;
    kept.reserve(out.size());
    for (std::size_t k = 0; k < out.size(); ++k) {
      to[k] = static_cast<std::uint32_t>(kept.size());
      const bool jump = out[k].op == Op::jz || out[k].op == Op::jmp;
      if (jump && out[k].d == k + 1) {
        again = true;
        continue;
      }
      kept.push_back(out[k]);
    }
    to[out.size()] = static_cast<std::uint32_t>(kept.size());
    for (Ins& i : kept)
      if (i.op == Op::jz || i.op == Op::jmp) i.d = to[i.d];
    out = std::move(kept);
  }
  return out;
}

}  // namespace

namespace {

// The schedule in its compact form.
Schedule compact(std::uint64_t dirty, std::uint64_t skip, const std::vector<Ins>& code) {
  Schedule out;
  out.dirty = dirty;
  out.skip = skip;
  out.code.reserve(code.size());
  for (const Ins& i : code) {
    Step st{i.d, i.a, i.b, i.c, i.s, i.op};
    if (i.op == Op::movi || i.op == Op::mark) {
      st.a = static_cast<std::uint32_t>(out.imm.size());
      out.imm.push_back(i.imm);
    }
    out.code.push_back(st);
  }
  return out;
}

// Runs a schedule. `Careful` checks every arithmetic result for a non-finite value as the
// evaluator does, and bails at the first; otherwise the caller reads the floating-point
// exception flags once at the end (with finite inputs, a non-finite result raises overflow,
// invalid or divide-by-zero) and re-runs the point carefully if any is set. The explicit
// domain checks (division by zero, sqrt of a negative, ...) bail in both modes.
template <bool Careful>
Status execute(const Schedule& sched, const Compiled& c, double* r, std::uint8_t* sig) {
  const Step* code = sched.code.data();
  const double* imm = sched.imm.data();
  const std::size_t n = sched.code.size();
  std::size_t pc = 0;
  // Stores an arithmetic result: false, and the point bails, where the evaluator would stop (a
  // non-finite result, checked only when Careful). The one bail-out for every arithmetic op.
  auto put = [r](const Step& i, double x) {
    r[i.d] = x;
    return !Careful || std::isfinite(x);
  };
  while (pc < n) {
    const Step& i = code[pc++];
    switch (i.op) {
      case Op::movi: r[i.d] = imm[i.a]; break;
      case Op::mov: r[i.d] = r[i.a]; break;
      case Op::add:
        if (!put(i, r[i.a] + r[i.b])) return Status::bail;
        break;
      case Op::sub:
        if (!put(i, r[i.a] - r[i.b])) return Status::bail;
        break;
      case Op::mul:
        if (!put(i, r[i.a] * r[i.b])) return Status::bail;
        break;
      case Op::div:
        if (r[i.b] == 0) return Status::bail;
        if (!put(i, r[i.a] / r[i.b])) return Status::bail;
        break;
      case Op::neg: r[i.d] = -r[i.a]; break;
      case Op::pow: {
        // As Evaluator::arith: integral exponents (|k| <= 1e5) and real ones share std::pow,
        // but their error conditions differ.
        const double a = r[i.a], b = r[i.b];
        const bool integral = std::floor(b) == b && std::fabs(b) <= 100000;
        if (integral ? (b < 0 && a == 0) : a < 0) return Status::bail;
        if (!put(i, std::pow(a, b))) return Status::bail;
        break;
      }
      case Op::powf: {
        const double a = r[i.a], b = r[i.b];
        if ((a < 0 && std::floor(b) != b) || (a == 0 && b < 0)) return Status::bail;
        if (!put(i, std::pow(a, b))) return Status::bail;
        break;
      }
      case Op::lt: r[i.d] = r[i.a] < r[i.b]; break;
      case Op::le: r[i.d] = r[i.a] <= r[i.b]; break;
      case Op::gt: r[i.d] = r[i.a] > r[i.b]; break;
      case Op::ge: r[i.d] = r[i.a] >= r[i.b]; break;
      case Op::eq: r[i.d] = r[i.a] == r[i.b]; break;
      case Op::ne: r[i.d] = r[i.a] != r[i.b]; break;
      case Op::not_: r[i.d] = r[i.a] == 0; break;
      case Op::floor: r[i.d] = std::floor(r[i.a]); break;
      case Op::ceil: r[i.d] = std::ceil(r[i.a]); break;
      case Op::round: r[i.d] = std::round(r[i.a]); break;
      case Op::abs: r[i.d] = r[i.a] < 0 ? -r[i.a] : r[i.a]; break;
      case Op::sqrt:
        if (r[i.a] < 0) return Status::bail;
        r[i.d] = std::sqrt(r[i.a]);
        break;
      case Op::exp:
        if (!put(i, std::exp(r[i.a]))) return Status::bail;
        break;
      case Op::ln:
      case Op::log2:
      case Op::log10:
        if (r[i.a] <= 0) return Status::bail;
        if (!put(i, i.op == Op::ln ? std::log(r[i.a]) : i.op == Op::log2 ? std::log2(r[i.a]) : std::log10(r[i.a])))
          return Status::bail;
        break;
      case Op::max: {
        const bool take_b = r[i.b] > r[i.a];
        sig[i.s] = take_b ? 1 : 0;
        r[i.d] = take_b ? r[i.b] : r[i.a];
        break;
      }
      case Op::min: {
        const bool take_b = r[i.b] < r[i.a];
        sig[i.s] = take_b ? 1 : 0;
        r[i.d] = take_b ? r[i.b] : r[i.a];
        break;
      }
      case Op::clamp: {
        const double x = r[i.a], lo = r[i.b], hi = r[i.c];
        if (lo > hi) return Status::bail;
        const std::uint8_t take = x < lo ? 1 : (x > hi ? 2 : 0);
        sig[i.s] = take;
        r[i.d] = take == 1 ? lo : take == 2 ? hi : x;
        break;
      }
      case Op::erlang_c: {
        // The evaluator's domain checks; outside them the point bails to report the error.
        const double servers = r[i.a], load = r[i.b];
        if (std::floor(servers) != servers || servers < 1 || servers > static_cast<double>(kErlangMaxServers) ||
            load < 0 || load >= servers)
          return Status::bail;
        r[i.d] = erlang_c_probability(static_cast<std::int64_t>(servers), load);
        break;
      }
      case Op::jz:
        if (r[i.a] == 0) pc = i.d;
        break;
      case Op::jmp: pc = i.d; break;
      case Op::mark: sig[i.s] = static_cast<std::uint8_t>(imm[i.a]); break;
      case Op::exit_if_zero:
        if (r[i.a] == 0) return Status::filtered;
        break;
      case Op::fail: return Status::bail;
      case Op::clear:
        for (std::uint32_t slot : c.region_slots[i.a]) sig[slot] = 0xff;
        break;
    }
  }
  return Status::ok;
}

// The sticky floating-point error flags. On x86-64 binary64 arithmetic (ours and libm's) runs
// on SSE, whose flags are one register read away (glibc's fetestexcept/feclearexcept also touch
// the x87 environment and cost more than a short schedule); elsewhere <cfenv>.
#if defined(__SSE2__)
constexpr unsigned kFpErrors = 0x1 | 0x4 | 0x8;  // MXCSR: invalid, divide-by-zero, overflow
inline unsigned fp_errors() { return _mm_getcsr() & kFpErrors; }
inline void clear_fp_errors() { _mm_setcsr(_mm_getcsr() & ~kFpErrors); }
#else
constexpr int kFpErrors = FE_OVERFLOW | FE_INVALID | FE_DIVBYZERO;
inline int fp_errors() { return std::fetestexcept(kFpErrors); }
inline void clear_fp_errors() { std::feclearexcept(kFpErrors); }
#endif

}  // namespace

const Schedule& SweepProgram::schedule_for(std::uint64_t dirty, PointRun& out, std::uint64_t skip) const {
  // Schedules are few (one per pattern of changed variables) and cached per worker.
  for (const auto& s : out.schedules)
    if (s.dirty == dirty && s.skip == skip) return s;
  out.schedules.push_back(compact(dirty, skip, schedule(*c_, dirty, skip)));
  if (std::getenv("MLS_DEBUG_FAST"))
    std::fprintf(stderr, "schedule %llx: %zu steps\n", static_cast<unsigned long long>(dirty),
                 out.schedules.back().code.size());
  if (std::getenv("MLS_DEBUG_FAST_OPS"))
    for (const Step& st : out.schedules.back().code)
      std::fprintf(stderr, "  op %d d%u a%u b%u\n", static_cast<int>(st.op), st.d, st.a, st.b);
  return out.schedules.back();
}

void SweepProgram::bind_key(const std::vector<Value>& key, std::uint64_t dirty, PointRun& out) const {
  const Compiled& c = *c_;
  for (std::size_t k = 0; k < key.size() && k < c.binding_shapes.size(); ++k)
    if (dirty & (k >= 64 ? ~std::uint64_t{0} : std::uint64_t{1} << k))
      bind(c.binding_shapes[k], key[k], c, out.regs.data());
}

void SweepProgram::run(const std::vector<Value>& key, std::uint64_t changed, PointRun& out, std::uint64_t skip) const {
  const Compiled& c = *c_;
  // Everything runs the first time and after a point that stopped early; otherwise only what
  // depends on the key positions that changed since this worker's previous point.
  std::uint64_t dirty = changed;
  if (out.regs.size() != c.nregs || out.sig.size() != c.nslots || out.status != Status::ok) {
    dirty = ~std::uint64_t{0};
    skip = 0;
    out.regs.assign(c.nregs, 0);
    out.sig.assign(c.nslots, 0xff);
  }
  if (dirty == 0) return;  // a block's outer work when only the innermost binding moved
  bind_key(key, dirty, out);
  const Schedule& sched = schedule_for(dirty, out, skip);
  // The flags are sticky: cleared only when something (rarely) left one set, then read once.
  if (fp_errors()) clear_fp_errors();
  out.status = execute<false>(sched, c, out.regs.data(), out.sig.data());
  if (!fp_errors()) return;
  // Some operation overflowed or was invalid (or a library function raised a flag on its way):
  // the point runs again from scratch, checking every result, and stops where the evaluator would.
  std::fill(out.sig.begin(), out.sig.end(), std::uint8_t{0xff});
  bind_key(key, ~std::uint64_t{0}, out);
  out.status = execute<true>(schedule_for(~std::uint64_t{0}, out), c, out.regs.data(), out.sig.data());
  clear_fp_errors();
}

namespace {

// Calls f on each register field of a step (its destination and operands), by op.
template <typename F>
void for_each_reg(Step& st, F f) {
  const Operands o = operands(st.op);
  if (o.writes) f(st.d);
  if (o.reads > 0) f(st.a);
  if (o.reads > 1) f(st.b);
  if (o.reads > 2) f(st.c);
}

// The leaf registers of a binding's shape.
void leaves(const CVal& shape, std::vector<std::uint32_t>& out) {
  if (shape.scalar()) {
    if (!shape.cst) out.push_back(shape.reg);
    return;
  }
  for (const auto& [n, f] : shape.fields) leaves(f, out);
  for (const auto& it : shape.items) leaves(it, out);
}

// Runs a lane schedule over kLanes points: registers are rows of kLanes doubles, each step
// loops over the lanes (no dependence between lanes, so the loop vectorizes and the points'
// latencies overlap). The non-careful mode only: the caller reads the exception flags after.
// False where the lanes cannot go on together (see SweepProgram::run_lanes).
bool execute_lanes(const LaneSchedule& sched, const Compiled& c, double* r, std::uint8_t* sig, std::size_t nslots) {
  constexpr std::size_t W = kLanes;
  const Step* code = sched.code.data();
  const double* imm = sched.imm.data();
  const std::size_t n = sched.code.size();
  std::size_t pc = 0;
  // The lane loops: one result per lane (through a local array, which no operand aliases, so
  // the loop vectorizes), and whether any lane's operand is outside the operation's domain.
#define MLS_LANES(expr)                                 \
  do {                                                  \
    double t_[W];                                       \
    for (std::size_t l = 0; l < W; ++l) t_[l] = (expr); \
    std::copy_n(t_, W, r + i.d);                        \
  } while (0)
#define MLS_ANY(cond)                                   \
  [&] {                                                 \
    bool any_ = false;                                  \
    for (std::size_t l = 0; l < W; ++l) any_ |= (cond); \
    return any_;                                        \
  }()
#define A r[i.a + l]
#define B r[i.b + l]
#define C r[i.c + l]
  while (pc < n) {
    const Step& i = code[pc++];
    switch (i.op) {
      case Op::movi: MLS_LANES(imm[i.a]); break;
      case Op::mov: MLS_LANES(A); break;
      case Op::add: MLS_LANES(A + B); break;
      case Op::sub: MLS_LANES(A - B); break;
      case Op::mul: MLS_LANES(A * B); break;
      case Op::div:
        if (MLS_ANY(B == 0)) return false;
        MLS_LANES(A / B);
        break;
      case Op::neg: MLS_LANES(-A); break;
      case Op::pow:
        for (std::size_t l = 0; l < W; ++l) {
          const double a = A, b = B;
          const bool integral = std::floor(b) == b && std::fabs(b) <= 100000;
          if (integral ? (b < 0 && a == 0) : a < 0) return false;
        }
        MLS_LANES(std::pow(A, B));
        break;
      case Op::powf:
        if (MLS_ANY((A < 0 && std::floor(B) != B) || (A == 0 && B < 0))) return false;
        MLS_LANES(std::pow(A, B));
        break;
      case Op::lt: MLS_LANES(A < B); break;
      case Op::le: MLS_LANES(A <= B); break;
      case Op::gt: MLS_LANES(A > B); break;
      case Op::ge: MLS_LANES(A >= B); break;
      case Op::eq: MLS_LANES(A == B); break;
      case Op::ne: MLS_LANES(A != B); break;
      case Op::not_: MLS_LANES(A == 0); break;
      case Op::floor: MLS_LANES(std::floor(A)); break;
      case Op::ceil: MLS_LANES(std::ceil(A)); break;
      case Op::round: MLS_LANES(std::round(A)); break;
      case Op::abs: MLS_LANES(A < 0 ? -A : A); break;
      case Op::sqrt:
        if (MLS_ANY(A < 0)) return false;
        MLS_LANES(std::sqrt(A));
        break;
      case Op::exp: MLS_LANES(std::exp(A)); break;
      case Op::ln:
      case Op::log2:
      case Op::log10:
        if (MLS_ANY(A <= 0)) return false;
        if (i.op == Op::ln)
          MLS_LANES(std::log(A));
        else if (i.op == Op::log2)
          MLS_LANES(std::log2(A));
        else
          MLS_LANES(std::log10(A));
        break;
      case Op::max:
      case Op::min:
        for (std::size_t l = 0; l < W; ++l) {
          const bool take_b = i.op == Op::max ? B > A : B < A;
          sig[l * nslots + i.s] = take_b ? 1 : 0;
          r[i.d + l] = take_b ? B : A;
        }
        break;
      case Op::clamp: {
        if (MLS_ANY(B > C)) return false;
        for (std::size_t l = 0; l < W; ++l) {
          const double x = A, lo = B, hi = C;
          const std::uint8_t take = x < lo ? 1 : (x > hi ? 2 : 0);
          sig[l * nslots + i.s] = take;
          r[i.d + l] = take == 1 ? lo : take == 2 ? hi : x;
        }
        break;
      }
      case Op::erlang_c:
        for (std::size_t l = 0; l < W; ++l) {
          const double servers = A, load = B;
          if (std::floor(servers) != servers || servers < 1 || servers > static_cast<double>(kErlangMaxServers) ||
              load < 0 || load >= servers)
            return false;
          r[i.d + l] = erlang_c_probability(static_cast<std::int64_t>(servers), load);
        }
        break;
      case Op::jz: {
        // A branch the lanes decide differently: they cannot go on together.
        std::size_t zeros = 0;
        for (std::size_t l = 0; l < W; ++l) zeros += A == 0;
        if (zeros == W)
          pc = i.d;
        else if (zeros != 0)
          return false;
        break;
      }
      case Op::jmp: pc = i.d; break;
      case Op::mark:
        for (std::size_t l = 0; l < W; ++l) sig[l * nslots + i.s] = static_cast<std::uint8_t>(imm[i.a]);
        break;
      case Op::exit_if_zero:
        // Filtered points run one by one (a filtered point makes the next one start afresh).
        if (MLS_ANY(A == 0)) return false;
        break;
      case Op::fail: return false;
      case Op::clear:
        for (std::uint32_t slot : c.region_slots[i.a])
          for (std::size_t l = 0; l < W; ++l) sig[l * nslots + slot] = 0xff;
        break;
    }
  }
#undef MLS_LANES
#undef MLS_ANY
#undef A
#undef B
#undef C
  return true;
}

}  // namespace

// The lowest key position in a mask.
static std::size_t dirty_first(std::uint64_t dirty) {
  std::size_t k = 0;
  while (k < 64 && !(dirty >> k & 1)) ++k;
  return k;
}

std::size_t SweepProgram::lane_schedule_for(std::uint64_t dirty, PointRun& out) const {
  for (std::size_t k = 0; k < out.lane_schedules.size(); ++k)
    if (out.lane_schedules[k].dirty == dirty) return k;
  // The scalar schedule, its registers renumbered to rows: every register it reads or writes,
  // and the binding's own (written per lane).
  const Schedule& s = schedule_for(dirty, out);
  LaneSchedule ls;
  ls.dirty = dirty;
  ls.imm = s.imm;
  ls.code = s.code;
  ls.row_of_reg.assign(c_->nregs, -1);
  auto row = [&](std::uint32_t& reg) {
    std::int32_t& rw = ls.row_of_reg[reg];
    if (rw < 0) {
      rw = static_cast<std::int32_t>(ls.reg_of_row.size());
      ls.reg_of_row.push_back(reg);
    }
    reg = static_cast<std::uint32_t>(rw) * static_cast<std::uint32_t>(kLanes);
  };
  for (Step& st : ls.code) for_each_reg(st, row);
  // The binding's registers have rows even when no step reads them: a cell may show them.
  for (std::size_t k = dirty_first(dirty); k < c_->binding_shapes.size() && k < 64 && (dirty >> k & 1); ++k)
    leaves(c_->binding_shapes[k], ls.leaves);
  for (std::uint32_t reg : ls.leaves) {
    std::uint32_t r = reg;
    row(r);
  }
  // A step is on every path unless a jump before it lands after it.
  std::vector<std::uint8_t> always(ls.code.size(), 1);
  for (std::size_t j = 0; j < ls.code.size(); ++j)
    if (ls.code[j].op == Op::jz || ls.code[j].op == Op::jmp)
      for (std::size_t k = j + 1; k < ls.code.size() && k < ls.code[j].d; ++k) always[k] = 0;
  std::vector<std::uint8_t> defined(ls.reg_of_row.size(), 0), written(ls.reg_of_row.size(), 0);
  for (std::size_t k = 0; k < ls.code.size(); ++k) {
    Step st = ls.code[k];
    bool first_reg = true;
    for_each_reg(st, [&](std::uint32_t& off) {
      // The destination comes first, for the ops that have one.
      if (first_reg && st.op != Op::jz && st.op != Op::exit_if_zero) {
        const std::uint32_t rw = off / static_cast<std::uint32_t>(kLanes);
        written[rw] = 1;
        if (always[k]) defined[rw] = 1;
      }
      first_reg = false;
    });
  }
  for (std::uint32_t reg : ls.leaves) defined[static_cast<std::size_t>(ls.row_of_reg[reg])] = 1;
  for (std::uint32_t rw = 0; rw < ls.reg_of_row.size(); ++rw) {
    if (!defined[rw]) (written[rw] ? ls.shared : ls.inputs).push_back(rw);
    if (written[rw] || defined[rw]) ls.written.push_back(rw);
  }
  if (std::getenv("MLS_DEBUG_FAST"))
    std::fprintf(stderr, "lanes %llx: %zu steps, %zu rows, %zu shared, %zu written\n",
                 static_cast<unsigned long long>(dirty), ls.code.size(), ls.reg_of_row.size(),
                 ls.shared.size() + ls.inputs.size(), ls.written.size());
  out.lane_schedules.push_back(std::move(ls));
  return out.lane_schedules.size() - 1;
}

bool SweepProgram::run_lanes(const std::vector<Value>* const* values, std::size_t n, std::size_t first,
                             PointRun& out) const {
  const Compiled& c = *c_;
  if (n == 0 || n > kLanes || out.status != Status::ok || out.regs.size() != c.nregs) return false;
  const std::size_t width = values[0]->size();
  if (first + width > 64 || first + width > c.binding_shapes.size()) return false;
  const std::uint64_t dirty = (width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1) << first;
  out.lane_schedule = lane_schedule_for(dirty, out);
  const LaneSchedule& ls = out.lane_schedules[out.lane_schedule];
  // Every row starts as the register (what the points share), then the binding's leaves are
  // written per lane (a lane past n repeats point n - 1, so it raises nothing point n - 1 does
  // not). The registers keep point n - 1's binding, as after running it.
  // Rows are laid out per lane schedule: another one's rows are refilled in full.
  const bool same_rows = out.lanes_of == out.lane_schedule;
  out.lanes_of = out.lane_schedule;
  out.lanes.resize(ls.reg_of_row.size() * kLanes);
  double* const r = out.lanes.data();
  for (std::uint32_t k : ls.shared) std::fill_n(r + k * kLanes, kLanes, out.regs[ls.reg_of_row[k]]);
  // An input row holds one value in every lane (no step writes it) and mostly the same as for
  // the previous block (the outer work changes few of them): refilled only when it changed.
  for (std::uint32_t k : ls.inputs) {
    const double x = out.regs[ls.reg_of_row[k]];
    if (!same_rows || std::bit_cast<std::uint64_t>(r[k * kLanes]) != std::bit_cast<std::uint64_t>(x))
      std::fill_n(r + k * kLanes, kLanes, x);
  }
  out.lane_saved.clear();
  for (std::uint32_t reg : ls.leaves) out.lane_saved.push_back(out.regs[reg]);
  for (std::size_t l = 0; l < kLanes; ++l) {
    if (l < n)
      for (std::size_t k = 0; k < width; ++k) bind(c.binding_shapes[first + k], (*values[l])[k], c, out.regs.data());
    for (std::uint32_t reg : ls.leaves) r[static_cast<std::size_t>(ls.row_of_reg[reg]) * kLanes + l] = out.regs[reg];
  }
  const std::size_t nslots = out.sig.size();
  out.lane_sig.resize(nslots * kLanes);
  for (std::size_t l = 0; l < kLanes; ++l) std::copy(out.sig.begin(), out.sig.end(), out.lane_sig.begin() + l * nslots);
  if (fp_errors()) clear_fp_errors();
  const bool ok = execute_lanes(ls, c, r, out.lane_sig.data(), nslots);
  if (!ok || fp_errors()) {
    clear_fp_errors();
    for (std::size_t k = 0; k < ls.leaves.size(); ++k) out.regs[ls.leaves[k]] = out.lane_saved[k];
    return false;
  }
  for (std::uint32_t k : ls.written) out.regs[ls.reg_of_row[k]] = r[k * kLanes + n - 1];
  std::copy_n(out.lane_sig.begin() + (n - 1) * nslots, nslots, out.sig.begin());
  return true;
}

const std::vector<Slot>& SweepProgram::cells() const { return c_->cells; }
const std::vector<Slot>& SweepProgram::objectives() const { return c_->objectives; }
const std::vector<Slot>& SweepProgram::feasibility() const { return c_->feasibility; }
const std::vector<std::pair<Slot, std::size_t>>& SweepProgram::asserts() const { return c_->asserts; }
const std::string& SweepProgram::string_of(double id) const { return c_->strings.at(static_cast<std::size_t>(id)); }
std::size_t SweepProgram::instructions() const { return c_->code.size(); }

}  // namespace mls::fast
