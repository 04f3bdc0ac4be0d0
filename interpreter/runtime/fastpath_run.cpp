// fastpath_run.cpp — running compiled sweep code (fastpath.cpp compiles it): the schedules of
// instructions per pattern of changed sweep variables, the scalar machine, and lane blocks of up
// to 8 points that differ only in the innermost sweep variable. Every operation mirrors the
// evaluator's binary64 behaviour exactly (same IEEE operations in the same order, same error
// conditions), which the sweep runner verifies per signature.
#include <algorithm>
#include <array>
#include <bit>
#include <cfenv>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include "fastpath_compiled.hpp"
#include "native_eval.hpp"

// Lane blocks have an AVX2 version where the compiler can target it and the CPU has it.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define MLS_LANES_AVX2 1
#else
#define MLS_LANES_AVX2 0
#endif

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

// The evaluator's domain rules for the operations whose errors are not a floating-point flag,
// shared by the scalar machine and the lanes: outside them a point bails to report the error.
// pow as Evaluator::arith: integral exponents (|k| <= 1e5) and real ones share std::pow, but
// their error conditions differ.
inline bool pow_outside(double a, double b) {
  const bool integral = std::floor(b) == b && std::fabs(b) <= 100000;
  return integral ? (b < 0 && a == 0) : a < 0;
}
inline bool powf_outside(double a, double b) { return (a < 0 && std::floor(b) != b) || (a == 0 && b < 0); }
inline bool erlang_c_outside(double servers, double load) {
  return std::floor(servers) != servers || servers < 1 || servers > static_cast<double>(kErlangMaxServers) ||
         load < 0 || load >= servers;
}

// Runs a schedule. `Careful` checks every arithmetic result for a non-finite value as the
// evaluator does, and bails at the first; otherwise the caller reads the floating-point
// exception flags once at the end (with finite inputs, a non-finite result raises overflow,
// invalid or divide-by-zero) and re-runs the point carefully if any is set. The explicit
// domain checks (division by zero, sqrt of a negative, ...) bail in both modes.
template <bool Careful>
Status execute(const Schedule& sched, const Compiled& c, double* r, std::uint8_t* sig) {
  const Step* const code = sched.code.data();
  const Step* const end = code + sched.code.size();
  const double* const imm = sched.imm.data();
  // Stores an arithmetic result: false, and the point bails, where the evaluator would stop (a
  // non-finite result, checked only when Careful). The one bail-out for every arithmetic op.
  auto put = [r](const Step& i, double x) {
    r[i.d] = x;
    return !Careful || std::isfinite(x);
  };
  // Threaded dispatch (labels as values, a GNU extension GCC and Clang share): each operation
  // jumps to the next one's code itself, so the branch predictor sees one indirect jump per
  // operation, not one for the whole loop.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
  static constexpr void* labels[] = {
      &&movi, &&mov,      &&add,  &&sub,   &&mul,   &&div,   &&neg, &&pow,  &&lt,           &&le,   &&gt,   &&ge,
      &&eq,   &&ne,       &&not_, &&floor, &&ceil,  &&round, &&abs, &&sqrt, &&exp,          &&ln,   &&log2, &&log10,
      &&powf, &&erlang_c, &&max,  &&min,   &&clamp, &&jz,    &&jmp, &&mark, &&exit_if_zero, &&fail, &&clear};
  static_assert(std::size(labels) == static_cast<std::size_t>(Op::clear) + 1);
  const Step* ip = code;
  const Step* i = ip;
#define MLS_DISPATCH()                             \
  do {                                             \
    if (ip == end) return Status::ok;              \
    i = ip++;                                      \
    goto* labels[static_cast<std::size_t>(i->op)]; \
  } while (0)
#define MLS_PUT(x)                          \
  do {                                      \
    if (!put(*i, (x))) return Status::bail; \
    MLS_DISPATCH();                         \
  } while (0)
  MLS_DISPATCH();
movi:
  r[i->d] = imm[i->a];
  MLS_DISPATCH();
mov:
  r[i->d] = r[i->a];
  MLS_DISPATCH();
add:
  MLS_PUT(r[i->a] + r[i->b]);
sub:
  MLS_PUT(r[i->a] - r[i->b]);
mul:
  MLS_PUT(r[i->a] * r[i->b]);
div:
  if (r[i->b] == 0) return Status::bail;
  MLS_PUT(r[i->a] / r[i->b]);
neg:
  r[i->d] = -r[i->a];
  MLS_DISPATCH();
pow : {
  const double a = r[i->a], b = r[i->b];
  if (pow_outside(a, b)) return Status::bail;
  MLS_PUT(std::pow(a, b));
}
powf : {
  const double a = r[i->a], b = r[i->b];
  if (powf_outside(a, b)) return Status::bail;
  MLS_PUT(std::pow(a, b));
}
lt:
  r[i->d] = r[i->a] < r[i->b];
  MLS_DISPATCH();
le:
  r[i->d] = r[i->a] <= r[i->b];
  MLS_DISPATCH();
gt:
  r[i->d] = r[i->a] > r[i->b];
  MLS_DISPATCH();
ge:
  r[i->d] = r[i->a] >= r[i->b];
  MLS_DISPATCH();
eq:
  r[i->d] = r[i->a] == r[i->b];
  MLS_DISPATCH();
ne:
  r[i->d] = r[i->a] != r[i->b];
  MLS_DISPATCH();
not_:
  r[i->d] = r[i->a] == 0;
  MLS_DISPATCH();
floor:
  r[i->d] = std::floor(r[i->a]);
  MLS_DISPATCH();
ceil:
  r[i->d] = std::ceil(r[i->a]);
  MLS_DISPATCH();
round:
  r[i->d] = std::round(r[i->a]);
  MLS_DISPATCH();
abs:
  r[i->d] = r[i->a] < 0 ? -r[i->a] : r[i->a];
  MLS_DISPATCH();
sqrt:
  if (r[i->a] < 0) return Status::bail;
  r[i->d] = std::sqrt(r[i->a]);
  MLS_DISPATCH();
exp:
  MLS_PUT(std::exp(r[i->a]));
ln:
  if (r[i->a] <= 0) return Status::bail;
  MLS_PUT(std::log(r[i->a]));
log2:
  if (r[i->a] <= 0) return Status::bail;
  MLS_PUT(std::log2(r[i->a]));
log10:
  if (r[i->a] <= 0) return Status::bail;
  MLS_PUT(std::log10(r[i->a]));
max : {
  const bool take_b = r[i->b] > r[i->a];
  sig[i->s] = take_b ? 1 : 0;
  r[i->d] = take_b ? r[i->b] : r[i->a];
  MLS_DISPATCH();
}
min : {
  const bool take_b = r[i->b] < r[i->a];
  sig[i->s] = take_b ? 1 : 0;
  r[i->d] = take_b ? r[i->b] : r[i->a];
  MLS_DISPATCH();
}
clamp : {
  const double x = r[i->a], lo = r[i->b], hi = r[i->c];
  if (lo > hi) return Status::bail;
  const std::uint8_t take = x < lo ? 1 : (x > hi ? 2 : 0);
  sig[i->s] = take;
  r[i->d] = take == 1 ? lo : take == 2 ? hi : x;
  MLS_DISPATCH();
}
erlang_c : {
  const double servers = r[i->a], load = r[i->b];
  if (erlang_c_outside(servers, load)) return Status::bail;
  r[i->d] = erlang_c_probability(static_cast<std::int64_t>(servers), load);
  MLS_DISPATCH();
}
jz:
  if (r[i->a] == 0) ip = code + i->d;
  MLS_DISPATCH();
jmp:
  ip = code + i->d;
  MLS_DISPATCH();
mark:
  sig[i->s] = static_cast<std::uint8_t>(imm[i->a]);
  MLS_DISPATCH();
exit_if_zero:
  if (r[i->a] == 0) return Status::filtered;
  MLS_DISPATCH();
fail:
  return Status::bail;
clear:
  for (std::uint32_t slot : c.region_slots[i->a]) sig[slot] = 0xff;
  MLS_DISPATCH();
#undef MLS_PUT
#undef MLS_DISPATCH
#pragma GCC diagnostic pop
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
    for (const auto& [reg, v] : c.constants) out.regs[reg] = v;
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

// A lane step works on its rows as native vectors of doubles (Bytes: 16 for SSE2, 32 for AVX2),
// kLanes / (Bytes / 8) of them, each loaded from and stored to the row directly. A row's
// destination never overlaps an operand's other vectors (rows are whole), so vector k of a
// result depends only on vector k of the operands.
// (Spelled out per width: GCC drops vector_size on a type that depends on a template parameter.)
#define MLS_VEC(BYTES)                                                                                \
  template <>                                                                                         \
  struct Vec<BYTES> {                                                                                 \
    using D = double __attribute__((vector_size(BYTES)));                                             \
    using I = std::int64_t __attribute__((vector_size(BYTES)));                                       \
    /* As loaded and stored: 8-byte aligned, aliasing the doubles it overlays. */                     \
    using DU = double __attribute__((vector_size(BYTES), may_alias, aligned(alignof(double))));       \
    using IU = std::int64_t __attribute__((vector_size(BYTES), may_alias, aligned(alignof(double)))); \
    static constexpr std::size_t N = BYTES / sizeof(double); /* doubles per vector */                 \
    static constexpr std::size_t K = kLanes / N;             /* vectors per row */                    \
  };
template <std::size_t Bytes>
struct Vec;
MLS_VEC(16)
static_assert(sizeof(Vec<16>::D) == 16 && sizeof(Vec<16>::I) == 16);
#if MLS_LANES_AVX2
MLS_VEC(32)
static_assert(sizeof(Vec<32>::D) == 32 && sizeof(Vec<32>::I) == 32);
#endif
#undef MLS_VEC

// Whether a comparison (lanes -1 or 0) holds in any lane: the lanes' sign bits on x86.
template <std::size_t Bytes>
[[gnu::always_inline]] inline bool lanes_any_generic(const typename Vec<Bytes>::I& m) {
  const auto lanes = std::bit_cast<std::array<std::int64_t, Vec<Bytes>::N>>(m);
  std::int64_t x = 0;
  for (std::int64_t v : lanes) x |= v;
  return x != 0;
}
[[gnu::always_inline]] inline bool lanes_any(const Vec<16>::I& m) {
#if defined(__SSE2__)
  return __builtin_ia32_movmskpd(std::bit_cast<Vec<16>::D>(m)) != 0;
#else
  return lanes_any_generic<16>(m);
#endif
}
#if MLS_LANES_AVX2
[[gnu::always_inline]] inline bool lanes_any(const Vec<32>::I& m) {
  return lanes_any(Vec<16>::I(__builtin_shufflevector(m, m, 0, 1) | __builtin_shufflevector(m, m, 2, 3)));
}
#endif

// Runs a lane schedule over kLanes points: registers are rows of kLanes doubles, each step
// works on all lanes at once (no dependence between lanes). The non-careful mode only: the
// caller reads the exception flags after. Branches decide the same way in every lane (or the
// run stops), so the signature slots that marks and clears set are shared (`common`); the
// slots of max/min/clamp differ per lane: their values go to vals[slot * kLanes + lane], and
// ran[slot] says that one ran. False where the lanes cannot go on together (see
// SweepProgram::run_lanes).
// Defined by a macro, once per vector width: a function with computed gotos cannot be inlined
// into (or cloned for) another target, and the AVX2 version needs the same code compiled for AVX2.
// Operands and results address rows as V (the function's vector type); macros, not lambdas: a
// lambda passing a vector by value has the default target's ABI.
#define MLS_LD(row, k) (*reinterpret_cast<const typename V::DU*>(r + (row) + (k)*N))
#define MLS_ST(row, k, v) (*reinterpret_cast<typename V::DU*>(r + (row) + (k)*N) = (v))
#define MLS_ST_BITS(row, k, m) (*reinterpret_cast<typename V::IU*>(r + (row) + (k)*N) = (m)&one)
#define MLS_LD_BITS(row, k) (*reinterpret_cast<const typename V::IU*>(r + (row) + (k)*N))
/* Row `row` = m ? row x : row y, lane by lane (m a comparison's lanes, -1 or 0): the bits. */
#define MLS_ST_SEL(row, k, m, x, y)                                             \
  do {                                                                          \
    const I sel_m = (m);                                                        \
    const I sel_v = (MLS_LD_BITS(x, k) & sel_m) | (MLS_LD_BITS(y, k) & ~sel_m); \
    *reinterpret_cast<typename V::IU*>(r + (row) + (k)*N) = sel_v;              \
  } while (0)
#define MLS_EACH_K(stmt) \
  for (std::size_t k = 0; k < K; ++k) stmt
#define MLS_NEXT()                                \
  do {                                            \
    if (pc == n) return true;                     \
    i = code[pc++];                               \
    goto* labels[static_cast<std::size_t>(i.op)]; \
  } while (0)
#define MLS_LANES_FUNCTION(NAME, BYTES, LANES)                                                                 \
  bool NAME(const LaneSchedule& sched, const Compiled& c, double* r, std::uint8_t* common, std::uint8_t* vals, \
            std::uint8_t* ran) {                                                                               \
    using V = Vec<BYTES>;                                                                                      \
    using D = V::D;                                                                                            \
    using I = V::I;                                                                                            \
    /* W lanes of each row (kLanes doubles) run; vals keeps kLanes per slot. */                                \
    constexpr std::size_t W = LANES, N = V::N, K = W / N;                                                      \
    static_assert(W % N == 0 && W <= kLanes);                                                                  \
    const Step* code = sched.code.data();                                                                      \
    const double* imm = sched.imm.data();                                                                      \
    const std::size_t n = sched.code.size();                                                                   \
    /* A comparison's lanes (-1 or 0) stored as 1.0 or +0.0. */                                                \
    const I one = I{} + std::bit_cast<std::int64_t>(1.0);                                                      \
    /* The lane-wise loops for the operations with no vector form (library calls, rounding). */                \
    auto each = [r](const Step& i, auto f) {                                                                   \
      double t[W];                                                                                             \
      for (std::size_t l = 0; l < W; ++l) t[l] = f(r[i.a + l]);                                                \
      std::copy_n(t, W, r + i.d);                                                                              \
    };                                                                                                         \
    /* Threaded dispatch, as in execute: each operation jumps to the next one's code. */                       \
    static constexpr void* labels[] = {                                                                        \
        &&L_movi, &&L_mov,   &&L_add, &&L_sub, &&L_mul,  &&L_div,          &&L_neg,   &&L_pow,      &&L_lt,    \
        &&L_le,   &&L_gt,    &&L_ge,  &&L_eq,  &&L_ne,   &&L_not_,         &&L_floor, &&L_ceil,     &&L_round, \
        &&L_abs,  &&L_sqrt,  &&L_exp, &&L_ln,  &&L_log2, &&L_log10,        &&L_powf,  &&L_erlang_c, &&L_max,   \
        &&L_min,  &&L_clamp, &&L_jz,  &&L_jmp, &&L_mark, &&L_exit_if_zero, &&L_fail,  &&L_clear};              \
    static_assert(std::size(labels) == static_cast<std::size_t>(Op::clear) + 1);                               \
    std::size_t pc = 0;                                                                                        \
    Step i{}; /* a copy: the rows' stores may alias the code */                                                \
    MLS_NEXT();                                                                                                \
    { /* never entered: the first MLS_NEXT jumps; the switch checks that every Op has its code */              \
      switch (i.op) {                                                                                          \
        case Op::movi:                                                                                         \
        L_movi : {                                                                                             \
          const D x = imm[i.a] - D{}; /* x - +0 is x, -0 included */                                           \
          MLS_EACH_K(MLS_ST(i.d, k, x));                                                                       \
          MLS_NEXT();                                                                                          \
        }                                                                                                      \
        case Op::mov:                                                                                          \
        L_mov:                                                                                                 \
          MLS_EACH_K(MLS_ST(i.d, k, MLS_LD(i.a, k)));                                                          \
          MLS_NEXT();                                                                                          \
        case Op::add:                                                                                          \
        L_add:                                                                                                 \
          MLS_EACH_K(MLS_ST(i.d, k, MLS_LD(i.a, k) + MLS_LD(i.b, k)));                                         \
          MLS_NEXT();                                                                                          \
        case Op::sub:                                                                                          \
        L_sub:                                                                                                 \
          MLS_EACH_K(MLS_ST(i.d, k, MLS_LD(i.a, k) - MLS_LD(i.b, k)));                                         \
          MLS_NEXT();                                                                                          \
        case Op::mul:                                                                                          \
        L_mul:                                                                                                 \
          MLS_EACH_K(MLS_ST(i.d, k, MLS_LD(i.a, k) * MLS_LD(i.b, k)));                                         \
          MLS_NEXT();                                                                                          \
        case Op::div:                                                                                          \
        L_div : {                                                                                              \
          I z{};                                                                                               \
          MLS_EACH_K(z |= MLS_LD(i.b, k) == 0);                                                                \
          if (lanes_any(z)) return false;                                                                      \
          MLS_EACH_K(MLS_ST(i.d, k, MLS_LD(i.a, k) / MLS_LD(i.b, k)));                                         \
          MLS_NEXT();                                                                                          \
        }                                                                                                      \
        case Op::neg:                                                                                          \
        L_neg:                                                                                                 \
          MLS_EACH_K(MLS_ST(i.d, k, -MLS_LD(i.a, k)));                                                         \
          MLS_NEXT();                                                                                          \
        case Op::pow:                                                                                          \
        L_pow:                                                                                                 \
          for (std::size_t l = 0; l < W; ++l) {                                                                \
            if (pow_outside(r[i.a + l], r[i.b + l])) return false;                                             \
          }                                                                                                    \
          for (std::size_t l = 0; l < W; ++l) r[i.d + l] = std::pow(r[i.a + l], r[i.b + l]);                   \
          MLS_NEXT();                                                                                          \
        case Op::powf:                                                                                         \
        L_powf:                                                                                                \
          for (std::size_t l = 0; l < W; ++l) {                                                                \
            if (powf_outside(r[i.a + l], r[i.b + l])) return false;                                            \
          }                                                                                                    \
          for (std::size_t l = 0; l < W; ++l) r[i.d + l] = std::pow(r[i.a + l], r[i.b + l]);                   \
          MLS_NEXT();                                                                                          \
        case Op::lt:                                                                                           \
        L_lt:                                                                                                  \
          MLS_EACH_K(MLS_ST_BITS(i.d, k, MLS_LD(i.a, k) < MLS_LD(i.b, k)));                                    \
          MLS_NEXT();                                                                                          \
        case Op::le:                                                                                           \
        L_le:                                                                                                  \
          MLS_EACH_K(MLS_ST_BITS(i.d, k, MLS_LD(i.a, k) <= MLS_LD(i.b, k)));                                   \
          MLS_NEXT();                                                                                          \
        case Op::gt:                                                                                           \
        L_gt:                                                                                                  \
          MLS_EACH_K(MLS_ST_BITS(i.d, k, MLS_LD(i.a, k) > MLS_LD(i.b, k)));                                    \
          MLS_NEXT();                                                                                          \
        case Op::ge:                                                                                           \
        L_ge:                                                                                                  \
          MLS_EACH_K(MLS_ST_BITS(i.d, k, MLS_LD(i.a, k) >= MLS_LD(i.b, k)));                                   \
          MLS_NEXT();                                                                                          \
        case Op::eq:                                                                                           \
        L_eq:                                                                                                  \
          MLS_EACH_K(MLS_ST_BITS(i.d, k, MLS_LD(i.a, k) == MLS_LD(i.b, k)));                                   \
          MLS_NEXT();                                                                                          \
        case Op::ne:                                                                                           \
        L_ne:                                                                                                  \
          MLS_EACH_K(MLS_ST_BITS(i.d, k, MLS_LD(i.a, k) != MLS_LD(i.b, k)));                                   \
          MLS_NEXT();                                                                                          \
        case Op::not_:                                                                                         \
        L_not_:                                                                                                \
          MLS_EACH_K(MLS_ST_BITS(i.d, k, MLS_LD(i.a, k) == 0));                                                \
          MLS_NEXT();                                                                                          \
        case Op::floor:                                                                                        \
        L_floor:                                                                                               \
          each(i, [](double x) { return std::floor(x); });                                                     \
          MLS_NEXT();                                                                                          \
        case Op::ceil:                                                                                         \
        L_ceil:                                                                                                \
          each(i, [](double x) { return std::ceil(x); });                                                      \
          MLS_NEXT();                                                                                          \
        case Op::round:                                                                                        \
        L_round:                                                                                               \
          each(i, [](double x) { return std::round(x); });                                                     \
          MLS_NEXT();                                                                                          \
        case Op::abs:                                                                                          \
        L_abs:                                                                                                 \
          each(i, [](double x) { return x < 0 ? -x : x; });                                                    \
          MLS_NEXT();                                                                                          \
        case Op::sqrt:                                                                                         \
        L_sqrt : {                                                                                             \
          I neg{};                                                                                             \
          MLS_EACH_K(neg |= MLS_LD(i.a, k) < 0);                                                               \
          if (lanes_any(neg)) return false;                                                                    \
          each(i, [](double x) { return std::sqrt(x); });                                                      \
          MLS_NEXT();                                                                                          \
        }                                                                                                      \
        case Op::exp:                                                                                          \
        L_exp:                                                                                                 \
          each(i, [](double x) { return std::exp(x); });                                                       \
          MLS_NEXT();                                                                                          \
        case Op::ln:                                                                                           \
        L_ln:                                                                                                  \
        case Op::log2:                                                                                         \
        L_log2:                                                                                                \
        case Op::log10:                                                                                        \
        L_log10 : {                                                                                            \
          I bad{};                                                                                             \
          MLS_EACH_K(bad |= MLS_LD(i.a, k) <= 0);                                                              \
          if (lanes_any(bad)) return false;                                                                    \
          if (i.op == Op::ln)                                                                                  \
            each(i, [](double x) { return std::log(x); });                                                     \
          else if (i.op == Op::log2)                                                                           \
            each(i, [](double x) { return std::log2(x); });                                                    \
          else                                                                                                 \
            each(i, [](double x) { return std::log10(x); });                                                   \
          MLS_NEXT();                                                                                          \
        }                                                                                                      \
        case Op::max:                                                                                          \
        L_max:                                                                                                 \
        case Op::min:                                                                                          \
        L_min : {                                                                                              \
          /* Whole vectors: each lane takes b where it compares so (its bits, as a move copies them). */       \
          const bool is_max = i.op == Op::max;                                                                 \
          for (std::size_t k = 0; k < K; ++k) {                                                                \
            const D a = MLS_LD(i.a, k), b = MLS_LD(i.b, k);                                                    \
            const I take_b = is_max ? b > a : b < a;                                                           \
            MLS_ST_SEL(i.d, k, take_b, i.b, i.a);                                                              \
            for (std::size_t j = 0; j < N; ++j)                                                                \
              vals[i.s * kLanes + k * N + j] = static_cast<std::uint8_t>(take_b[j] & 1);                       \
          }                                                                                                    \
          ran[i.s] = 1;                                                                                        \
          MLS_NEXT();                                                                                          \
        }                                                                                                      \
        case Op::clamp:                                                                                        \
        L_clamp : {                                                                                            \
          I bad{};                                                                                             \
          MLS_EACH_K(bad |= MLS_LD(i.b, k) > MLS_LD(i.c, k));                                                  \
          if (lanes_any(bad)) return false;                                                                    \
          for (std::size_t k = 0; k < K; ++k) {                                                                \
            const D x = MLS_LD(i.a, k), lo = MLS_LD(i.b, k), hi = MLS_LD(i.c, k);                              \
            const I below = x < lo, above = ~below & (x > hi);                                                 \
            const I v = (MLS_LD_BITS(i.b, k) & below) | (MLS_LD_BITS(i.c, k) & above) |                        \
                        (MLS_LD_BITS(i.a, k) & ~(below | above));                                              \
            *reinterpret_cast<typename V::IU*>(r + i.d + k * N) = v;                                           \
            for (std::size_t j = 0; j < N; ++j)                                                                \
              vals[i.s * kLanes + k * N + j] = static_cast<std::uint8_t>((below[j] & 1) | (above[j] & 2));     \
          }                                                                                                    \
          ran[i.s] = 1;                                                                                        \
          MLS_NEXT();                                                                                          \
        }                                                                                                      \
        case Op::erlang_c:                                                                                     \
        L_erlang_c : {                                                                                         \
          double t[W];                                                                                         \
          for (std::size_t l = 0; l < W; ++l) {                                                                \
            const double servers = r[i.a + l], load = r[i.b + l];                                              \
            if (erlang_c_outside(servers, load)) return false;                                                 \
            t[l] = erlang_c_probability(static_cast<std::int64_t>(servers), load);                             \
          }                                                                                                    \
          std::copy_n(t, W, r + i.d);                                                                          \
          MLS_NEXT();                                                                                          \
        }                                                                                                      \
        case Op::jz:                                                                                           \
        L_jz : {                                                                                               \
          /* A branch the lanes decide differently: they cannot go on together. */                             \
          I all = I{} - 1, some{};                                                                             \
          MLS_EACH_K({                                                                                         \
            const I z = MLS_LD(i.a, k) == 0;                                                                   \
            all &= z;                                                                                          \
            some |= z;                                                                                         \
          });                                                                                                  \
          if (!lanes_any(some)) MLS_NEXT();                                                                    \
          if (lanes_any(~all)) return false;                                                                   \
          pc = i.d;                                                                                            \
          MLS_NEXT();                                                                                          \
        }                                                                                                      \
        case Op::jmp:                                                                                          \
        L_jmp:                                                                                                 \
          pc = i.d;                                                                                            \
          MLS_NEXT();                                                                                          \
        case Op::mark:                                                                                         \
        L_mark:                                                                                                \
          common[i.s] = static_cast<std::uint8_t>(imm[i.a]);                                                   \
          MLS_NEXT();                                                                                          \
        case Op::exit_if_zero:                                                                                 \
        L_exit_if_zero : {                                                                                     \
          /* Filtered points run one by one (a filtered point makes the next one start afresh). */             \
          I z{};                                                                                               \
          MLS_EACH_K(z |= MLS_LD(i.a, k) == 0);                                                                \
          if (lanes_any(z)) return false;                                                                      \
          MLS_NEXT();                                                                                          \
        }                                                                                                      \
        case Op::fail:                                                                                         \
        L_fail:                                                                                                \
          return false;                                                                                        \
        case Op::clear:                                                                                        \
        L_clear:                                                                                               \
          for (std::uint32_t slot : c.region_slots[i.a]) {                                                     \
            common[slot] = 0xff;                                                                               \
            ran[slot] = 0;                                                                                     \
          }                                                                                                    \
          MLS_NEXT();                                                                                          \
      }                                                                                                        \
    }                                                                                                          \
    return true;                                                                                               \
  }

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"  // labels as values, a GNU extension GCC and Clang share
MLS_LANES_FUNCTION(execute_lanes_base8, 16, 8)
MLS_LANES_FUNCTION(execute_lanes_base16, 16, 16)
MLS_LANES_FUNCTION(execute_lanes_base32, 16, 32)
#if MLS_LANES_AVX2
// The same code for AVX2 (4-double operations instead of 2-double ones).
// Bit-identical: IEEE add/sub/mul/div/sqrt round the same at any width, FMA is not enabled
// (no contraction), and the library calls are the same functions.
[[gnu::target("avx2")]] MLS_LANES_FUNCTION(execute_lanes_avx2_8, 32, 8)
    [[gnu::target("avx2")]] MLS_LANES_FUNCTION(execute_lanes_avx2_16, 32, 16)
        [[gnu::target("avx2")]] MLS_LANES_FUNCTION(execute_lanes_avx2_32, 32, 32)
#endif
#pragma GCC diagnostic pop
#undef MLS_LANES_FUNCTION
#undef MLS_NEXT
#undef MLS_EACH_K
#undef MLS_LD
#undef MLS_ST
#undef MLS_ST_BITS
#undef MLS_LD_BITS
#undef MLS_ST_SEL

    // The lanes run: 8, 16 or 32 (lanes_for).
    bool execute_lanes(std::size_t w, const LaneSchedule& sched, const Compiled& c, double* r, std::uint8_t* common,
                       std::uint8_t* vals, std::uint8_t* ran) {
#if MLS_LANES_AVX2
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2)
    return w == 8    ? execute_lanes_avx2_8(sched, c, r, common, vals, ran)
           : w == 16 ? execute_lanes_avx2_16(sched, c, r, common, vals, ran)
                     : execute_lanes_avx2_32(sched, c, r, common, vals, ran);
#endif
  return w == 8    ? execute_lanes_base8(sched, c, r, common, vals, ran)
         : w == 16 ? execute_lanes_base16(sched, c, r, common, vals, ran)
                   : execute_lanes_base32(sched, c, r, common, vals, ran);
}

// The lanes a block of n points runs: the fewest of 8, 16 or 32 that hold them.
constexpr std::size_t lanes_for(std::size_t n) { return n <= 8 ? 8 : n <= 16 ? 16 : 32; }
static_assert(kLanes == 32);

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
  for (Step& st : ls.code) {
    for_each_reg(st, row);
    if ((st.op == Op::max || st.op == Op::min || st.op == Op::clamp) &&
        std::find(ls.lane_slots.begin(), ls.lane_slots.end(), st.s) == ls.lane_slots.end())
      ls.lane_slots.push_back(st.s);
  }
  // The binding's registers have rows even when no step reads them: a cell may show them.
  for (std::size_t k = dirty_first(dirty); k < c_->binding_shapes.size() && k < 64 && (dirty >> k & 1); ++k)
    leaves(c_->binding_shapes[k], ls.leaves);
  for (std::uint32_t reg : ls.leaves) {
    std::uint32_t r = reg;
    row(r);
  }
  ls.number_leaves = true;
  std::size_t nkeys = 0;
  for (std::size_t k = dirty_first(dirty); k < c_->binding_shapes.size() && k < 64 && (dirty >> k & 1); ++k, ++nkeys) {
    const CVal& shape = c_->binding_shapes[k];
    ls.number_leaves &= shape.k == CVal::K::num && !shape.cst;
  }
  ls.number_leaves &= nkeys == ls.leaves.size();
  // The rows some path of the lanes reads before writing them (or leaves unwritten for a cell,
  // objective, condition or assert to read after the block): those start as the register. The
  // others (a temporary, a value both arms of a branch define before anything reads it) are
  // written first on every path the lanes can take, so whatever the rows held does not matter
  // and they are not filled. Forward data flow over the steps: jumps go forward (a branch's
  // arms), so one pass in order sees every predecessor of a step before it.
  const std::size_t nrows = ls.reg_of_row.size(), nsteps = ls.code.size();
  auto row_of = [](std::uint32_t off) { return off / static_cast<std::uint32_t>(kLanes); };
  std::vector<std::uint8_t> written(nrows, 0), read_first(nrows, 0), leaf(nrows, 0);
  for (std::uint32_t reg : ls.leaves) leaf[static_cast<std::size_t>(ls.row_of_reg[reg])] = 1;
  bool forward = true;
  for (std::size_t k = 0; k < nsteps; ++k) {
    const Step& st = ls.code[k];
    if (operands(st.op).writes) written[row_of(st.d)] = 1;
    if ((st.op == Op::jz || st.op == Op::jmp) && st.d <= k) forward = false;
  }
  if (forward) {
    // at[k]: the rows written on every path to step k (empty: no path reaches it yet).
    std::vector<std::vector<std::uint8_t>> at(nsteps + 1);
    auto merge = [&](std::size_t to, const std::vector<std::uint8_t>& w) {
      if (to > nsteps) to = nsteps;
      if (at[to].empty()) {
        at[to] = w;
        return;
      }
      for (std::size_t q = 0; q < nrows; ++q) at[to][q] &= w[q];
    };
    at[0] = leaf;
    at[0].push_back(1);  // a reached state is never empty (nrows may be 0)
    for (std::size_t k = 0; k < nsteps; ++k) {
      if (at[k].empty()) continue;
      std::vector<std::uint8_t> cur = std::move(at[k]);
      Step st = ls.code[k];
      const Operands o = operands(st.op);
      const std::uint32_t regs[3] = {st.a, st.b, st.c};
      for (std::size_t q = 0; q < o.reads; ++q)
        if (!cur[row_of(regs[q])]) read_first[row_of(regs[q])] = 1;
      if (o.writes) cur[row_of(st.d)] = 1;
      if (st.op == Op::fail) continue;
      if (st.op == Op::jmp) {
        merge(st.d, cur);
        continue;
      }
      if (st.op == Op::jz) merge(st.d, cur);
      merge(k + 1, cur);
    }
    // After the block: the program's outputs read the rows.
    auto out_read = [&](const Slot& sl) {
      if (sl.constant || ls.row_of_reg[sl.reg] < 0) return;
      const auto rw = static_cast<std::size_t>(ls.row_of_reg[sl.reg]);
      if (at[nsteps].empty() || !at[nsteps][rw]) read_first[rw] = 1;
    };
    for (const Slot& sl : c_->cells) out_read(sl);
    for (const Slot& sl : c_->objectives) out_read(sl);
    for (const Slot& sl : c_->feasibility) out_read(sl);
    for (const auto& [sl, item] : c_->asserts) out_read(sl);
  } else {
    std::fill(read_first.begin(), read_first.end(), std::uint8_t{1});
  }
  std::vector<std::uint8_t> constant(c_->nregs, 0);
  for (const auto& [reg, v] : c_->constants) constant[reg] = 1;
  std::size_t nwritten = 0;
  for (std::uint32_t rw = 0; rw < nrows; ++rw) {
    if (leaf[rw]) continue;
    if (!written[rw])
      (constant[ls.reg_of_row[rw]] ? ls.constants : ls.inputs).push_back(rw);
    else if (read_first[rw])
      ls.shared.push_back(rw);
    nwritten += written[rw];
  }
  if (std::getenv("MLS_DEBUG_FAST"))
    std::fprintf(stderr, "lanes %llx: %zu steps, %zu rows, %zu shared, %zu written\n",
                 static_cast<unsigned long long>(dirty), ls.code.size(), ls.reg_of_row.size(),
                 ls.shared.size() + ls.inputs.size() + ls.constants.size(), nwritten);
  out.lane_schedules.push_back(std::move(ls));
  return out.lane_schedules.size() - 1;
}

bool SweepProgram::run_lanes(const Value* const* values, std::size_t n, std::size_t first, std::size_t width,
                             PointRun& out) const {
  const Compiled& c = *c_;
  if (n == 0 || n > kLanes || width == 0 || out.status != Status::ok || out.regs.size() != c.nregs) return false;
  if (first + width > 64 || first + width > c.binding_shapes.size()) return false;
  const std::size_t w = lanes_for(n);  // the lanes that run
  const std::uint64_t dirty = (width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1) << first;
  out.lane_schedule = lane_schedule_for(dirty, out);
  const LaneSchedule& ls = out.lane_schedules[out.lane_schedule];
  // Every row starts as the register (what the points share), then the binding's leaves are
  // written per lane (a lane in [n, w) repeats point n - 1, so it raises nothing point n - 1
  // does not). The registers keep point n - 1's binding, as after running it.
  // Rows are laid out per lane schedule: another one's rows are refilled in full. The rows no
  // step writes are filled in all kLanes lanes (a later block may run more lanes than this
  // one), the shared ones in the w lanes that run.
  const bool same_rows = out.lanes_of == out.lane_schedule;
  out.lanes_of = out.lane_schedule;
  out.lanes.resize(ls.reg_of_row.size() * kLanes);
  double* const r = out.lanes.data();
  for (std::uint32_t k : ls.shared) std::fill_n(r + k * kLanes, w, out.regs[ls.reg_of_row[k]]);
  // A constant's row never changes.
  if (!same_rows)
    for (std::uint32_t k : ls.constants) std::fill_n(r + k * kLanes, kLanes, out.regs[ls.reg_of_row[k]]);
  // An input row holds one value in every lane (no step writes it) and mostly the same as for
  // the previous block (the outer work changes few of them): refilled only when it changed.
  for (std::uint32_t k : ls.inputs) {
    const double x = out.regs[ls.reg_of_row[k]];
    if (!same_rows || std::bit_cast<std::uint64_t>(r[k * kLanes]) != std::bit_cast<std::uint64_t>(x))
      std::fill_n(r + k * kLanes, kLanes, x);
  }
  out.lane_saved.clear();
  for (std::uint32_t reg : ls.leaves) out.lane_saved.push_back(out.regs[reg]);
  if (ls.number_leaves) {
    // Each key position a number in its own register (bind's num case), row by row.
    for (std::size_t k = 0; k < width; ++k) {
      const std::uint32_t reg = ls.leaves[k];
      double* const row = r + static_cast<std::size_t>(ls.row_of_reg[reg]) * kLanes;
      for (std::size_t l = 0; l < w; ++l) row[l] = values[std::min(l, n - 1) * width + k]->n.d;
      out.regs[reg] = row[n - 1];
    }
  } else {
    for (std::size_t l = 0; l < w; ++l) {
      if (l < n)
        for (std::size_t k = 0; k < width; ++k)
          bind(c.binding_shapes[first + k], *values[l * width + k], c, out.regs.data());
      for (std::uint32_t reg : ls.leaves) r[static_cast<std::size_t>(ls.row_of_reg[reg]) * kLanes + l] = out.regs[reg];
    }
  }
  // Signatures: the slots branches mark are shared by the lanes (they branch alike), the
  // max/min/clamp slots are per lane (see execute_lanes).
  const std::size_t nslots = out.sig.size();
  out.lane_common.assign(out.sig.begin(), out.sig.end());
  out.lane_vals.resize(nslots * kLanes);
  out.lane_ran.resize(nslots);
  for (std::uint32_t s : ls.lane_slots) out.lane_ran[s] = 0;
  if (fp_errors()) clear_fp_errors();
  const bool ok = execute_lanes(w, ls, c, r, out.lane_common.data(), out.lane_vals.data(), out.lane_ran.data());
  if (!ok || fp_errors()) {
    clear_fp_errors();
    for (std::size_t k = 0; k < ls.leaves.size(); ++k) out.regs[ls.leaves[k]] = out.lane_saved[k];
    return false;
  }
  // The registers the steps wrote are not copied back from lane n - 1: what reads them next
  // writes them first. A scalar schedule without the innermost binding's steps (the next
  // block's outer work) reads none of them (a step that reads a register written by a step
  // that depends on the innermost binding depends on it too, Compiler::masks); the lanes and
  // the schedule that re-runs the innermost binding's steps write each register they read on
  // the path they take before reading it, or read what the outer work wrote; and a full run
  // writes everything.
  out.lane_sig.resize(nslots * kLanes);
  // The max/min/clamp slots that ran, found once for all lanes.
  out.lane_ran_slots.clear();
  // Which lanes took the arms of the lane before them (bit l for lane l; the other slots are
  // common to the lanes).
  std::uint32_t differs = 0;
  for (std::uint32_t s : ls.lane_slots)
    if (out.lane_ran[s]) {
      out.lane_ran_slots.push_back(s);
      const std::uint8_t* const v = out.lane_vals.data() + s * kLanes;
      for (std::size_t l = 1; l < n; ++l) differs |= static_cast<std::uint32_t>(v[l] != v[l - 1]) << l;
    }
  static_assert(kLanes <= 32);
  out.lanes_same_prev = ~differs & ~std::uint32_t{1};
  for (std::size_t l = 0; l < n; ++l) {
    std::uint8_t* const sig = out.lane_sig.data() + l * nslots;
    std::copy_n(out.lane_common.data(), nslots, sig);
    for (std::uint32_t s : out.lane_ran_slots) sig[s] = out.lane_vals[s * kLanes + l];
  }
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
