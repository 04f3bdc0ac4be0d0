// fastpath_opt.cpp — see fastpath_opt.hpp.
#include "fastpath_opt.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "fastpath_compiled.hpp"

namespace mls::fast {

namespace {
const char* op_name(Op op) {
  static const char* const names[] = {
      "movi", "mov",      "add", "sub",   "mul",   "div",   "neg", "pow",  "lt",           "le",   "gt",   "ge",
      "eq",   "ne",       "not", "floor", "ceil",  "round", "abs", "sqrt", "exp",          "ln",   "log2", "log10",
      "powf", "erlang_c", "max", "min",   "clamp", "jz",    "jmp", "mark", "exit_if_zero", "fail", "clear"};
  return names[static_cast<std::size_t>(op)];
}
}  // namespace

namespace {

// Operations whose result depends only on their operands' values, and that write nothing but
// their destination: two with the same operands compute the same bits and raise the same
// floating-point flags and domain errors (the first one raises them first). Not max/min/clamp,
// which also record their arm in their own signature slot.
bool pure(Op op) {
  switch (op) {
    case Op::add:
    case Op::sub:
    case Op::mul:
    case Op::div:
    case Op::neg:
    case Op::pow:
    case Op::lt:
    case Op::le:
    case Op::gt:
    case Op::ge:
    case Op::eq:
    case Op::ne:
    case Op::not_:
    case Op::floor:
    case Op::ceil:
    case Op::round:
    case Op::abs:
    case Op::sqrt:
    case Op::exp:
    case Op::ln:
    case Op::log2:
    case Op::log10:
    case Op::powf:
    case Op::erlang_c: return true;
    default: return false;
  }
}

// Operations that can neither fail nor raise a floating-point flag on the finite numbers a
// point holds (an earlier non-finite result has raised its flag already): unread, they can go.
// The arithmetic ones can overflow or divide by zero, which makes the point bail as the
// evaluator stops there, so they stay even unread.
bool harmless(Op op) {
  switch (op) {
    case Op::movi:
    case Op::mov:
    case Op::lt:
    case Op::le:
    case Op::gt:
    case Op::ge:
    case Op::eq:
    case Op::ne:
    case Op::not_:
    case Op::neg:
    case Op::abs:
    case Op::floor:
    case Op::ceil:
    case Op::round: return true;
    default: return false;
  }
}

bool commutative(Op op) { return op == Op::add || op == Op::mul || op == Op::eq || op == Op::ne; }

struct Key {
  Op op;
  std::uint32_t a, b, c;
  bool operator==(const Key&) const = default;
};
struct KeyHash {
  std::size_t operator()(const Key& k) const {
    std::uint64_t h = static_cast<std::uint64_t>(k.op) * 0x9E3779B97F4A7C15ull;
    for (std::uint32_t x : {k.a, k.b, k.c}) h = (h ^ x) * 0x100000001B3ull + (h >> 29);
    return static_cast<std::size_t>(h);
  }
};

constexpr std::uint32_t kNone = ~std::uint32_t{0};

// Calls f on each register an instruction reads.
template <typename F>
void for_each_read(Ins& i, F f) {
  const Operands o = operands(i.op);
  if (o.reads > 0) f(i.a);
  if (o.reads > 1) f(i.b);
  if (o.reads > 2) f(i.c);
}

// What is known of a register's value on every path that reaches a reader (bounds with slack
// for rounding, sign of zero, exact zero), from the sweep variables' domains forward.
constexpr double kBig = 1e300;    // a bound on a result that did not overflow
constexpr double kTiny = 1e-300;  // slack at zero for a library function

struct Range {
  double lo = -std::numeric_limits<double>::infinity(), hi = std::numeric_limits<double>::infinity();
  bool nonneg = false;   // >= +0: never negative, never -0
  bool zero = false;     // +0 or -0 for certain
  bool boolean = false;  // +0 or 1 (a comparison's result)
  [[nodiscard]] bool bounded() const { return lo >= -kBig && hi <= kBig; }
  [[nodiscard]] bool nonzero() const { return lo > 0 || hi < 0; }
  [[nodiscard]] bool plus_zero() const { return zero && nonneg; }
  [[nodiscard]] bool not_minus_zero() const { return nonneg || nonzero(); }
};

Range exact(double v) {
  Range r;
  r.lo = r.hi = v;
  r.nonneg = !std::signbit(v);
  r.zero = v == 0;
  r.boolean = std::bit_cast<std::uint64_t>(v) == 0 || v == 1;
  return r;
}

// Bounds from the bounds' results. Rounding to nearest is monotone, so for the correctly rounded
// operations (+, -, *, /, sqrt) and the exact ones (neg, abs, floor, ceil, round, max, min) the
// machine's result at any operands in the ranges lies between the results at the corners,
// computed the same way: no slack needed. A library function (exp) gets slack.
Range bounds(double lo, double hi) {
  Range r;
  if (std::isnan(lo) || std::isnan(hi)) return r;
  r.lo = lo;
  r.hi = hi;
  return r;
}
Range widened(double lo, double hi) {
  Range r;
  if (std::isnan(lo) || std::isnan(hi)) return r;
  r.lo = lo - std::fabs(lo) * 1e-9 - kTiny;
  r.hi = hi + std::fabs(hi) * 1e-9 + kTiny;
  return r;
}

Range join(const Range& x, const Range& y) {
  Range r;
  r.lo = std::min(x.lo, y.lo);
  r.hi = std::max(x.hi, y.hi);
  r.nonneg = x.nonneg && y.nonneg;
  r.zero = x.zero && y.zero;
  r.boolean = x.boolean && y.boolean;
  return r;
}

// The range of an operation's result from its operands' ranges.
Range range_of(Op op, const Range& a, const Range& b, const Range& c, double imm) {
  Range r;
  auto corners = [&](double (*f)(double, double)) {
    const double v[4] = {f(a.lo, b.lo), f(a.lo, b.hi), f(a.hi, b.lo), f(a.hi, b.hi)};
    return bounds(*std::min_element(v, v + 4), *std::max_element(v, v + 4));
  };
  switch (op) {
    case Op::movi: return exact(imm);
    case Op::mov: return a;
    case Op::add:
      if (!a.bounded() || !b.bounded()) return r;
      r = bounds(a.lo + b.lo, a.hi + b.hi);
      r.nonneg = a.nonneg && b.nonneg;
      r.zero = a.zero && b.zero;
      break;
    case Op::sub:
      if (!a.bounded() || !b.bounded()) return r;
      r = bounds(a.lo - b.hi, a.hi - b.lo);
      r.zero = a.zero && b.zero;
      r.nonneg = a.lo >= b.hi;  // x - y >= 0, and x - x is +0 when rounding to nearest
      break;
    case Op::mul:
      if (!a.bounded() || !b.bounded()) return r;
      r = corners([](double x, double y) { return x * y; });
      r.nonneg = a.nonneg && b.nonneg;
      r.zero = a.zero || b.zero;
      break;
    case Op::div:
      if (!a.bounded() || !b.bounded() || !b.nonzero()) return r;
      r = corners([](double x, double y) { return x / y; });
      r.nonneg = a.nonneg && b.nonneg;
      r.zero = a.zero;
      break;
    case Op::neg:
      r = a.bounded() ? bounds(-a.hi, -a.lo) : r;
      r.zero = a.zero;
      break;
    case Op::lt:
    case Op::le:
    case Op::gt:
    case Op::ge:
    case Op::eq:
    case Op::ne:
    case Op::not_:
      r.lo = 0;
      r.hi = 1;
      r.nonneg = true;
      r.boolean = true;
      return r;
    case Op::floor:
    case Op::ceil:
    case Op::round: {
      double (*f)(double) = op == Op::floor  ? static_cast<double (*)(double)>(std::floor)
                            : op == Op::ceil ? static_cast<double (*)(double)>(std::ceil)
                                             : static_cast<double (*)(double)>(std::round);
      if (a.bounded()) r = bounds(f(a.lo), f(a.hi));
      r.nonneg = a.nonneg;
      r.zero = a.zero;
      break;
    }
    case Op::abs:
      if (a.bounded()) r = bounds(a.lo > 0 ? a.lo : a.hi < 0 ? -a.hi : 0, std::max(-a.lo, a.hi));
      r.zero = a.zero;
      break;
    case Op::sqrt:
      if (a.bounded() && a.lo >= 0) r = bounds(std::sqrt(a.lo), std::sqrt(a.hi));
      r.nonneg = a.nonneg;
      r.zero = a.zero;
      break;
    case Op::exp:
      if (a.bounded() && a.hi < 690) r = widened(std::exp(a.lo), std::exp(a.hi));
      r.nonneg = true;
      break;
    case Op::max:
      r = bounds(std::max(a.lo, b.lo), std::max(a.hi, b.hi));
      r.nonneg = a.nonneg && b.nonneg;
      r.zero = a.zero && b.zero;
      break;
    case Op::min:
      r = bounds(std::min(a.lo, b.lo), std::min(a.hi, b.hi));
      r.nonneg = a.nonneg && b.nonneg;
      r.zero = a.zero && b.zero;
      break;
    case Op::clamp:  // one of its operands, at least lo and at most hi (lo > hi fails)
      r = join(join(a, b), c);
      r.lo = std::max(r.lo, b.lo);
      r.hi = std::min(r.hi, c.hi);
      break;
    default: return r;  // ln, logs, pow, powf, erlang_c: unknown
  }
  if (r.lo > 0) r.nonneg = true;
  return r;
}

// Whether an operation with these operand ranges can fail, bail or raise a floating-point
// flag: the arithmetic whose result is bounded (and whose divisor is not zero) cannot.
bool cannot_fail(Op op, const Range& a, const Range& b, const Range& result) {
  switch (op) {
    case Op::add:
    case Op::sub:
    case Op::mul: return a.bounded() && b.bounded() && result.bounded();
    case Op::div: return a.bounded() && b.bounded() && b.nonzero() && result.bounded();
    case Op::sqrt: return a.nonneg || a.lo >= 0;
    case Op::exp: return a.bounded() && a.hi < 690;
    case Op::ln:
    case Op::log2:
    case Op::log10: return a.bounded() && a.lo > 0;
    default: return harmless(op);
  }
}

constexpr double kMinNormal = std::numeric_limits<double>::min();

bool power_of_two(double p) {
  int e = 0;
  return std::isfinite(p) && p > 0 && std::frexp(p, &e) == 0.5;
}

// Every number in the range is a normal binary64 number (no overflow, no subnormal, no zero).
bool normal(const Range& r) { return r.bounded() && (r.lo >= kMinNormal || r.hi <= -kMinNormal); }

// A pure operation on constants, computed as the machine computes it (nothing when it fails).
std::optional<double> fold(Op op, double a, double b) {
  switch (op) {
    case Op::add: return a + b;
    case Op::sub: return a - b;
    case Op::mul: return a * b;
    case Op::div: return b == 0 ? std::nullopt : std::optional<double>(a / b);
    case Op::neg: return -a;
    case Op::lt: return a < b;
    case Op::le: return a <= b;
    case Op::gt: return a > b;
    case Op::ge: return a >= b;
    case Op::eq: return a == b;
    case Op::ne: return a != b;
    case Op::not_: return a == 0;
    case Op::floor: return std::floor(a);
    case Op::ceil: return std::ceil(a);
    case Op::round: return std::round(a);
    case Op::abs: return a < 0 ? -a : a;
    case Op::sqrt: return a < 0 ? std::nullopt : std::optional<double>(std::sqrt(a));
    case Op::pow: {  // the machine's domain (fastpath_run.cpp's pow_outside), then std::pow
      const bool integral = std::floor(b) == b && std::fabs(b) <= 100000;
      if (integral ? (b < 0 && a == 0) : a < 0) return std::nullopt;
      return std::pow(a, b);
    }
    case Op::powf:
      if ((a < 0 && std::floor(b) != b) || (a == 0 && b < 0)) return std::nullopt;
      return std::pow(a, b);
    default: return std::nullopt;
  }
}

// The bounds of each number a binding's leaf register takes over its domain.
void leaf_ranges(const CVal& shape, const Value& v, std::unordered_map<std::uint32_t, InputRange>& out,
                 std::unordered_map<std::uint32_t, bool>& unknown) {
  if (shape.scalar()) {
    if (shape.cst) return;
    double x = 0;
    if (shape.k == CVal::K::num && v.k == Value::K::num)
      x = v.n.d;
    else if (shape.k == CVal::K::boolean && v.k == Value::K::boolean)
      x = v.b ? 1 : 0;
    else {
      unknown[shape.reg] = true;
      return;
    }
    if (!std::isfinite(x)) unknown[shape.reg] = true;
    const auto [it, fresh] = out.try_emplace(shape.reg, InputRange{shape.reg, x, x, !std::signbit(x)});
    if (!fresh) {
      it->second.lo = std::min(it->second.lo, x);
      it->second.hi = std::max(it->second.hi, x);
      it->second.nonneg &= !std::signbit(x);
    }
    return;
  }
  if (shape.k != CVal::K::record || v.k != Value::K::record) return;
  for (const auto& [name, f] : shape.fields)
    if (const Value* fv = v.rec().get(name)) leaf_ranges(f, *fv, out, unknown);
}

}  // namespace

std::vector<InputRange> input_ranges(const Compiled& c, const std::vector<std::vector<std::vector<Value>>>& domains) {
  std::unordered_map<std::uint32_t, InputRange> found;
  std::unordered_map<std::uint32_t, bool> unknown;
  std::size_t k0 = 0;
  for (const auto& d : domains) {
    const std::size_t width = d.empty() ? 0 : d.front().size();
    for (const auto& tuple : d)
      for (std::size_t i = 0; i < tuple.size() && k0 + i < c.binding_shapes.size(); ++i)
        leaf_ranges(c.binding_shapes[k0 + i], tuple[i], found, unknown);
    k0 += width;
  }
  std::vector<InputRange> out;
  for (const auto& [reg, r] : found)
    if (!unknown.count(reg)) out.push_back(r);
  std::sort(out.begin(), out.end(), [](const InputRange& x, const InputRange& y) { return x.reg < y.reg; });
  return out;
}

namespace {

// One round of the passes; false when it changed nothing.
bool optimise_round(Compiled& c, const std::vector<InputRange>& inputs, OptStats& st) {
  const std::size_t n = c.code.size();
  if (n == 0) return false;
  // Where each register is written: most once (SSA); a branch's result once per arm.
  std::vector<std::uint32_t> ndefs(c.nregs, 0);
  for (const Ins& i : c.code)
    if (operands(i.op).writes) ++ndefs[i.d];
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> defs_at;  // registers written more than once
  for (std::uint32_t pc = 0; pc < n; ++pc)
    if (operands(c.code[pc].op).writes && ndefs[c.code[pc].d] > 1) defs_at[c.code[pc].d].push_back(pc);
  // Whether register r is written in (from, to): every jump goes forward, so every path from
  // instruction `from` to instruction `to` runs only instructions in between.
  auto written_between = [&](std::uint32_t r, std::uint32_t from, std::uint32_t to) {
    if (ndefs[r] <= 1) return false;
    const auto& at = defs_at[r];
    const auto it = std::upper_bound(at.begin(), at.end(), from);
    return it != at.end() && *it < to;
  };

  // Immediate dominators. The code is a DAG in instruction order (jumps go forward), so one
  // pass in that order sees every predecessor of an instruction before the instruction.
  std::vector<std::uint32_t> idom(n, kNone);
  idom[0] = 0;
  auto intersect = [&](std::uint32_t x, std::uint32_t y) {
    while (x != y) {
      if (x > y)
        x = idom[x];
      else
        y = idom[y];
    }
    return x;
  };
  auto edge = [&](std::uint32_t from, std::uint32_t to) {
    if (to >= n) return;
    idom[to] = idom[to] == kNone ? from : intersect(from, idom[to]);
  };
  for (std::uint32_t pc = 0; pc < n; ++pc) {
    if (idom[pc] == kNone) continue;  // unreachable (after a `fail`)
    const Ins& i = c.code[pc];
    if (i.op == Op::jmp) {
      edge(pc, i.d);
    } else if (i.op == Op::jz) {
      edge(pc, pc + 1);
      edge(pc, i.d);
    } else if (i.op != Op::fail) {
      edge(pc, pc + 1);
    }
  }
  // The dominator tree, walked depth first: at each instruction the table holds the
  // computations of the instructions that dominate it (run on every path to it).
  std::vector<std::uint32_t> first_child(n, kNone), next_sibling(n, kNone);
  for (std::uint32_t pc = n; pc-- > 1;)
    if (idom[pc] != kNone) {
      next_sibling[pc] = first_child[idom[pc]];
      first_child[idom[pc]] = pc;
    }
  std::vector<std::uint32_t> rep(c.nregs);
  for (std::uint32_t r = 0; r < c.nregs; ++r) rep[r] = r;
  std::vector<std::uint8_t> removed(n, 0);
  std::unordered_map<Key, std::uint32_t, KeyHash> table;
  std::vector<std::pair<Key, std::uint32_t>> undo;  // (key, its previous instruction or kNone)
  struct Frame {
    std::uint32_t pc;
    std::size_t undo_size;
    std::uint32_t child;
  };
  std::vector<Frame> stack;
  auto visit = [&](std::uint32_t pc) {
    stack.push_back({pc, undo.size(), first_child[pc]});
    Ins& i = c.code[pc];
    for_each_read(i, [&](std::uint32_t& r) { r = rep[r]; });
    if (!operands(i.op).writes || ndefs[i.d] != 1) return;
    if (i.op == Op::mov) {
      // A copy: its readers read the original, unless the original is written again later.
      const auto& at = ndefs[i.a] > 1 ? defs_at[i.a] : std::vector<std::uint32_t>{};
      if (at.empty() || at.back() < pc) {
        rep[i.d] = i.a;
        removed[pc] = 1;
        ++st.copies;
      }
      return;
    }
    if (!pure(i.op)) return;
    Key k{i.op, i.a, operands(i.op).reads > 1 ? i.b : 0, operands(i.op).reads > 2 ? i.c : 0};
    if (commutative(i.op) && k.b < k.a) std::swap(k.a, k.b);
    const auto it = table.find(k);
    if (it != table.end()) {
      const Ins& prev = c.code[it->second];
      bool same = true;
      for_each_read(i, [&](std::uint32_t& r) { same &= !written_between(r, it->second, pc); });
      if (same) {
        rep[i.d] = prev.d;
        removed[pc] = 1;
        ++st.cse;
        return;
      }
      undo.emplace_back(k, it->second);
      it->second = pc;
      return;
    }
    undo.emplace_back(k, kNone);
    table.emplace(k, pc);
  };
  visit(0);
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.child != kNone) {
      const std::uint32_t ch = f.child;
      f.child = next_sibling[ch];
      visit(ch);
      continue;
    }
    while (undo.size() > f.undo_size) {
      const auto& [k, prev] = undo.back();
      if (prev == kNone)
        table.erase(k);
      else
        table[k] = prev;
      undo.pop_back();
    }
    stack.pop_back();
  }
  // Ranges, forward in instruction order (a register's writers come before its readers; a
  // branch's result is known once every arm wrote it). With them: a result that is +0 for
  // certain, or a function of constants, becomes a constant; x + (+0) and x - (+0) are x (when
  // x is not -0, for the sum); (x * 2^k) * 2^-k is x when x * 2^k cannot overflow; and an
  // unread operation that provably cannot fail can go (below).
  std::vector<Range> range(c.nregs);
  std::unordered_map<std::uint64_t, std::uint32_t> const_reg;
  for (const auto& [r, v] : c.constants) {
    range[r] = exact(v);
    const_reg.try_emplace(std::bit_cast<std::uint64_t>(v), r);
  }
  for (const auto& [r, lo, hi, nonneg] : inputs) {
    range[r].lo = lo;
    range[r].hi = hi;
    range[r].nonneg = nonneg;
    range[r].zero = lo == 0 && hi == 0;
  }
  std::vector<std::uint32_t> pending(c.nregs, 0);  // reachable writers of a register not yet seen
  for (std::uint32_t pc = 0; pc < n; ++pc)
    if (!removed[pc] && idom[pc] != kNone && operands(c.code[pc].op).writes) ++pending[c.code[pc].d];
  std::vector<std::uint8_t> seen(c.nregs, 0);
  std::vector<std::uint8_t> is_const(c.nregs, 0);
  for (const auto& [r, v] : c.constants) is_const[r] = 1;
  std::vector<std::uint32_t> def_of(c.nregs, kNone);  // the one writer of a register written once
  // A product's non-constant operand and constant factor (kNone: not such a product).
  auto scaled = [&](const Ins& m) -> std::pair<std::uint32_t, double> {
    if (is_const[m.b] && !is_const[m.a]) return {m.a, range[m.b].lo};
    if (is_const[m.a] && !is_const[m.b]) return {m.b, range[m.a].lo};
    return {kNone, 0};
  };
  constexpr std::uint32_t kUnset = kNone - 1;
  std::vector<std::uint32_t> phi_src(c.nregs, kUnset);
  auto constant_reg = [&](double v) {
    const auto [it, fresh] = const_reg.try_emplace(std::bit_cast<std::uint64_t>(v), 0);
    if (fresh) {
      it->second = c.nregs++;
      c.constants.emplace_back(it->second, v);
      range.push_back(exact(v));
      rep.push_back(it->second);
      ndefs.push_back(0);
      pending.push_back(0);
      phi_src.push_back(kUnset);
      seen.push_back(0);
      is_const.push_back(1);
      def_of.push_back(kNone);
    }
    return it->second;
  };
  // What a branch's arm knows: an instruction reached only from a jz (falling through, or as
  // its only way in) knows the condition was not zero (or zero); a comparison's result is then
  // 1 (or +0), and the operand of a `not` that made it +0 (or 1).
  std::vector<std::uint32_t> npred(n, 0), pred(n, kNone);
  for (std::uint32_t pc = 0; pc < n; ++pc) {
    if (idom[pc] == kNone) continue;
    const Ins& i = c.code[pc];
    auto to = [&](std::uint32_t t) {
      if (t >= n) return;
      ++npred[t];
      pred[t] = pc;
    };
    if (i.op == Op::jmp) {
      to(i.d);
    } else if (i.op == Op::jz) {
      to(pc + 1);
      to(i.d);
    } else if (i.op != Op::fail) {
      to(pc + 1);
    }
  }
  // A register known to hold exactly v (+0 or 1) at instruction pc, from the arms around it.
  auto known_as = [&](std::uint32_t pc, double v) -> std::uint32_t {
    if (std::bit_cast<std::uint64_t>(v) != 0 && v != 1) return kNone;
    std::uint32_t w = pc;
    for (int steps = 0; steps < 64 && w != 0; ++steps, w = idom[w]) {
      if (npred[w] != 1 || c.code[pred[w]].op != Op::jz) continue;
      const std::uint32_t jz = pred[w];
      const bool nonzero = w == jz + 1;  // fell through: the condition was not zero
      const std::uint32_t cond = rep[c.code[jz].a];
      auto holds = [&](std::uint32_t r, double x) {
        return range[r].boolean && pending[r] == 0 && !written_between(r, jz, pc) && x == v;
      };
      if (holds(cond, nonzero ? 1 : 0)) return cond;
      if (def_of[cond] != kNone && c.code[def_of[cond]].op == Op::not_) {
        const std::uint32_t x = rep[c.code[def_of[cond]].a];
        if (holds(x, nonzero ? 0 : 1)) return x;
      }
    }
    return kNone;
  };
  for (std::uint32_t pc = 0; pc < n; ++pc) {
    Ins& i = c.code[pc];
    if (removed[pc] || idom[pc] == kNone) continue;
    for_each_read(i, [&](std::uint32_t& r) { r = rep[r]; });
    const Operands o = operands(i.op);
    if (!o.writes) continue;
    auto read = [&](std::uint32_t r) { return pending[r] == 0 ? range[r] : Range{}; };
    const Range a = o.reads > 0 ? read(i.a) : Range{}, b = o.reads > 1 ? read(i.b) : Range{},
                cr = o.reads > 2 ? read(i.c) : Range{};
    Range res = range_of(i.op, a, b, cr, i.imm);
    if (ndefs[i.d] == 1) {
      std::uint32_t to = kNone;
      const bool all_const = o.reads > 0 && (o.reads < 1 || is_const[i.a]) && (o.reads < 2 || is_const[i.b]) &&
                             (o.reads < 3 || is_const[i.c]);
      // Constants: a finite result raised no flag (an overflow, an invalid operation or a
      // division by zero gives inf or NaN), and fold refuses a domain error.
      if (pure(i.op) && ((all_const && o.reads <= 2) || (cannot_fail(i.op, a, b, res) && res.plus_zero()))) {
        // Computed here exactly as the machine does: the same operation on the same bits.
        const std::optional<double> v =
            res.plus_zero() ? std::optional<double>(0.0) : fold(i.op, a.lo, o.reads > 1 ? b.lo : 0);
        if (v && std::isfinite(*v)) to = constant_reg(*v);
      } else if (i.op == Op::add && b.plus_zero() && a.not_minus_zero()) {
        to = i.a;
      } else if (i.op == Op::add && a.plus_zero() && b.not_minus_zero()) {
        to = i.b;
      } else if (i.op == Op::sub && b.plus_zero()) {
        to = i.a;
      } else if (i.op == Op::mul) {
        // (x * c) * p, p a power of two: x * (c * p). A power of two scales a normal number
        // exactly, and scaling commutes with rounding to nearest between normal numbers, so
        // when x * c and the result are normal (and c * p is exact) the bits are the same, and
        // neither overflows. c * p = 1 leaves x itself.
        const auto [y, p] = scaled(i);
        if (y != kNone && def_of[y] != kNone && c.code[def_of[y]].op == Op::mul && power_of_two(p)) {
          const auto [x, k] = scaled(c.code[def_of[y]]);
          const double q = k * p;
          if (x != kNone && normal(range[y]) && normal(res) && q / p == k && std::fabs(q) >= kMinNormal &&
              std::fabs(q) <= kBig && !written_between(x, def_of[y], pc)) {
            if (q == 1) {
              to = x;
            } else {
              i.a = x;
              i.b = constant_reg(q);
              ++st.folded;
            }
          }
        }
      }
      if (to != kNone) {
        rep[i.d] = to;
        removed[pc] = 1;
        ++st.folded;
        continue;
      }
      def_of[i.d] = pc;
    }
    range[i.d] = seen[i.d] ? join(range[i.d], res) : res;
    seen[i.d] = 1;
    if (pending[i.d] > 0) --pending[i.d];
    if (ndefs[i.d] > 1) {
      // A branch's result that every arm writes from the same register is that register.
      const std::uint32_t src = i.op == Op::mov ? i.a : i.op == Op::movi ? known_as(pc, i.imm) : kNone;
      std::uint32_t& same = phi_src[i.d];
      same = same == kUnset ? src : same == src ? same : kNone;
      // (Its readers come after its writers, which come after the source's.)
      if (pending[i.d] == 0 && same != kNone && same != kUnset &&
          (ndefs[same] <= 1 || defs_at[same].back() < defs_at[i.d].front())) {
        bool copies = true;
        for (std::uint32_t at : defs_at[i.d]) copies &= c.code[at].op == Op::mov || c.code[at].op == Op::movi;
        if (copies) {
          rep[i.d] = same;
          for (std::uint32_t at : defs_at[i.d]) removed[at] = 1;
          ++st.copies;
        }
      }
    }
  }

  // Every reader reads the representative (unreachable instructions too, so their masks stay
  // those of registers that are still written).
  for (std::uint32_t pc = 0; pc < n; ++pc)
    if (!removed[pc]) for_each_read(c.code[pc], [&](std::uint32_t& r) { r = rep[r]; });
  auto rep_slot = [&](Slot& s) {
    if (!s.constant) s.reg = rep[s.reg];
  };
  for (Slot& s : c.cells) rep_slot(s);
  for (Slot& s : c.objectives) rep_slot(s);
  for (Slot& s : c.feasibility) rep_slot(s);
  for (auto& [s, idx] : c.asserts) rep_slot(s);
  for (Region& r : c.regions) r.cond = rep[r.cond];

  // Dead code: what nothing reads (no instruction, no output, no branch's condition) and that
  // cannot fail or raise a flag. Backwards, so a chain goes at once.
  std::vector<std::uint32_t> uses(c.nregs, 0);
  for (std::uint32_t pc = 0; pc < n; ++pc)
    if (!removed[pc]) for_each_read(c.code[pc], [&](std::uint32_t& r) { ++uses[r]; });
  auto use_slot = [&](const Slot& s) {
    if (!s.constant) ++uses[s.reg];
  };
  for (const Slot& s : c.cells) use_slot(s);
  for (const Slot& s : c.objectives) use_slot(s);
  for (const Slot& s : c.feasibility) use_slot(s);
  for (const auto& [s, idx] : c.asserts) use_slot(s);
  for (const Region& r : c.regions) ++uses[r.cond];
  for (std::uint32_t pc = n; pc-- > 0;) {
    Ins& i = c.code[pc];
    if (removed[pc] || !operands(i.op).writes || uses[i.d] != 0) continue;
    const Operands o = operands(i.op);
    if (!harmless(i.op) &&
        !cannot_fail(i.op, o.reads > 0 ? range[i.a] : Range{}, o.reads > 1 ? range[i.b] : Range{}, range[i.d]))
      continue;
    removed[pc] = 1;
    ++st.dead;
    for_each_read(i, [&](std::uint32_t& r) { --uses[r]; });
  }

  // Compact: jumps and branch extents move to the next instruction kept.
  std::vector<std::uint32_t> at(n + 1, 0);
  std::vector<Ins> kept;
  kept.reserve(n);
  for (std::uint32_t pc = 0; pc < n; ++pc) {
    at[pc] = static_cast<std::uint32_t>(kept.size());
    if (!removed[pc]) kept.push_back(c.code[pc]);
  }
  at[n] = static_cast<std::uint32_t>(kept.size());
  for (Ins& i : kept)
    if (i.op == Op::jz || i.op == Op::jmp) i.d = at[i.d];
  for (Region& r : c.regions) {
    r.begin = at[r.begin];
    r.end = at[r.end];
  }
  c.code = std::move(kept);
  return c.code.size() != n;
}

}  // namespace

OptStats optimise(Compiled& c, const std::vector<InputRange>& inputs) {
  OptStats st;
  st.before = c.code.size();
  // A round's copies and folds make operations the same that were not (a branch's result
  // that is one of its operands, read by a `not` beside another): a few rounds reach them.
  for (int round = 0; round < 4 && optimise_round(c, inputs, st); ++round) {
  }
  st.after = c.code.size();
  return st;
}

void dump(const Compiled& c, std::FILE* out) {
  std::vector<int> konst(c.nregs, 0);
  std::vector<double> kval(c.nregs, 0);
  for (const auto& [r, v] : c.constants) {
    konst[r] = 1;
    kval[r] = v;
  }
  auto reg = [&](std::uint32_t r) {
    static char buf[64];
    if (konst[r])
      std::snprintf(buf, sizeof buf, "#%.17g", kval[r]);
    else
      std::snprintf(buf, sizeof buf, "r%u", r);
    return std::string(buf);
  };
  for (std::size_t pc = 0; pc < c.code.size(); ++pc) {
    const Ins& i = c.code[pc];
    const Operands o = operands(i.op);
    std::fprintf(out, "%4zu %-8s", pc, op_name(i.op));
    if (o.writes) std::fprintf(out, " r%u =", i.d);
    if (o.reads > 0) std::fprintf(out, " %s", reg(i.a).c_str());
    if (o.reads > 1) std::fprintf(out, " %s", reg(i.b).c_str());
    if (o.reads > 2) std::fprintf(out, " %s", reg(i.c).c_str());
    if (i.op == Op::jz || i.op == Op::jmp) std::fprintf(out, " -> %u", i.d);
    if (i.op == Op::movi) std::fprintf(out, " %.17g", i.imm);
    if (i.op == Op::mark) std::fprintf(out, " s%u=%g", i.s, i.imm);
    if (i.op == Op::max || i.op == Op::min || i.op == Op::clamp) std::fprintf(out, " s%u", i.s);
    std::fprintf(out, "   mask %llx\n", static_cast<unsigned long long>(i.mask));
  }
  for (const auto& r : c.regions)
    std::fprintf(out, "region [%zu,%zu) cond r%u slot %u mask %llx\n", r.begin, r.end, r.cond, r.slot,
                 static_cast<unsigned long long>(r.mask));
  auto slots = [&](const char* what, const std::vector<Slot>& v) {
    for (const auto& s : v)
      if (s.constant)
        std::fprintf(out, "%s #%.17g\n", what, s.value);
      else
        std::fprintf(out, "%s %s\n", what, reg(s.reg).c_str());
  };
  slots("cell", c.cells);
  slots("objective", c.objectives);
  slots("feasibility", c.feasibility);
}

}  // namespace mls::fast
