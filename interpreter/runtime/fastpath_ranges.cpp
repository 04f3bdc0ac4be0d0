// fastpath_ranges.cpp — the optimiser's value ranges (fastpath_passes.hpp): what each register
// can hold, forward from the sweep variables' domains; the folds they allow; and the dead code
// they let go (an unread operation that provably cannot fail).
#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>

#include "fastpath_passes.hpp"

namespace mls::fast::passes {

namespace {

constexpr double kTiny = 1e-300;  // slack at zero for a library function
constexpr double kMinNormal = std::numeric_limits<double>::min();

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

// range_of for the arithmetic of two operands (+, -, *, /), whose bounds are the corners'.
Range arithmetic_range(Op op, const Range& a, const Range& b) {
  Range r;
  if (!a.bounded() || !b.bounded()) return r;
  auto corners = [&](double (*f)(double, double)) {
    const double v[4] = {f(a.lo, b.lo), f(a.lo, b.hi), f(a.hi, b.lo), f(a.hi, b.hi)};
    return bounds(*std::min_element(v, v + 4), *std::max_element(v, v + 4));
  };
  switch (op) {
    case Op::add:
      r = bounds(a.lo + b.lo, a.hi + b.hi);
      r.nonneg = a.nonneg && b.nonneg;
      r.zero = a.zero && b.zero;
      break;
    case Op::sub:
      r = bounds(a.lo - b.hi, a.hi - b.lo);
      r.zero = a.zero && b.zero;
      r.nonneg = a.lo >= b.hi;  // x - y >= 0, and x - x is +0 when rounding to nearest
      break;
    case Op::mul:
      r = corners([](double x, double y) { return x * y; });
      r.nonneg = a.nonneg && b.nonneg;
      r.zero = a.zero || b.zero;
      break;
    default:  // div
      if (!b.nonzero()) return r;
      r = corners([](double x, double y) { return x / y; });
      r.nonneg = a.nonneg && b.nonneg;
      r.zero = a.zero;
      break;
  }
  return r;
}

// range_of for the operations of one operand that keep its bounds' order (floor, ceil, round,
// sqrt), neg and abs.
Range unary_range(Op op, const Range& a) {
  Range r;
  switch (op) {
    case Op::neg:
      r = a.bounded() ? bounds(-a.hi, -a.lo) : r;
      r.zero = a.zero;
      break;
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
    default:  // sqrt
      if (a.bounded() && a.lo >= 0) r = bounds(std::sqrt(a.lo), std::sqrt(a.hi));
      r.nonneg = a.nonneg;
      r.zero = a.zero;
      break;
  }
  return r;
}

}  // namespace

Range range_of(Op op, const Range& a, const Range& b, const Range& c, double imm) {
  Range r;
  switch (op) {
    case Op::movi: return exact(imm);
    case Op::mov: return a;
    case Op::add:
    case Op::sub:
    case Op::mul:
    case Op::div:
      if (!a.bounded() || !b.bounded()) return r;
      if (op == Op::div && !b.nonzero()) return r;
      r = arithmetic_range(op, a, b);
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
    case Op::neg:
    case Op::floor:
    case Op::ceil:
    case Op::round:
    case Op::abs:
    case Op::sqrt: r = unary_range(op, a); break;
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

// The arithmetic whose result is bounded (and whose divisor is not zero) cannot.
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

namespace {

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

constexpr std::uint32_t kUnset = kNone - 1;

// The forward walk of fold_ranges: per register its range, whether it is a constant, the writers
// not yet met and, for one written once, its writer.
class Folding {
 public:
  Folding(Compiled& c, const Facts& f, Rewrite& rw, OptStats& st)
      : c_(c),
        f_(f),
        rw_(rw),
        st_(st),
        range_(c.nregs),
        pending_(c.nregs, 0),
        seen_(c.nregs, 0),
        is_const_(c.nregs, 0),
        def_of_(c.nregs, kNone),
        phi_src_(c.nregs, kUnset) {}

  std::vector<Range> run(const std::vector<InputRange>& inputs) {
    for (const auto& [r, v] : c_.constants) {
      range_[r] = exact(v);
      const_reg_.try_emplace(std::bit_cast<std::uint64_t>(v), r);
    }
    for (const auto& [r, lo, hi, nonneg] : inputs) {
      range_[r].lo = lo;
      range_[r].hi = hi;
      range_[r].nonneg = nonneg;
      range_[r].zero = lo == 0 && hi == 0;
    }
    for (std::uint32_t pc = 0; pc < f_.n; ++pc)
      if (!rw_.removed[pc] && f_.reachable(pc) && operands(c_.code[pc].op).writes) ++pending_[c_.code[pc].d];
    for (const auto& [r, v] : c_.constants) is_const_[r] = 1;
    for (std::uint32_t pc = 0; pc < f_.n; ++pc)
      if (!rw_.removed[pc] && f_.reachable(pc)) step(pc, c_.code[pc]);
    return std::move(range_);
  }

 private:
  // One instruction: its reads redirected, its result folded away or its range recorded.
  void step(std::uint32_t pc, Ins& i) {
    for_each_read(i, [&](std::uint32_t& r) { r = rw_.rep[r]; });
    const Operands o = operands(i.op);
    if (!o.writes) return;
    auto read = [&](std::uint32_t r) { return pending_[r] == 0 ? range_[r] : Range{}; };
    const Range a = o.reads > 0 ? read(i.a) : Range{}, b = o.reads > 1 ? read(i.b) : Range{},
                cr = o.reads > 2 ? read(i.c) : Range{};
    const Range res = range_of(i.op, a, b, cr, i.imm);
    if (f_.ndefs[i.d] == 1) {
      const std::uint32_t to = folded(pc, i, a, b, res);
      if (to != kNone) {
        rw_.rep[i.d] = to;
        rw_.removed[pc] = 1;
        ++st_.folded;
        return;
      }
      def_of_[i.d] = pc;
    }
    range_[i.d] = seen_[i.d] ? join(range_[i.d], res) : res;
    seen_[i.d] = 1;
    if (pending_[i.d] > 0) --pending_[i.d];
    if (f_.ndefs[i.d] > 1) branch_result(pc, i);
  }

  // The register a result written once is (kNone: none): a constant where computing it cannot
  // fail, an operand where the operation is an identity on it. May rewrite a scaling in place.
  std::uint32_t folded(std::uint32_t pc, Ins& i, const Range& a, const Range& b, const Range& res) {
    const Operands o = operands(i.op);
    const bool all_const = o.reads > 0 && (o.reads < 1 || is_const_[i.a]) && (o.reads < 2 || is_const_[i.b]) &&
                           (o.reads < 3 || is_const_[i.c]);
    // Constants: a finite result raised no flag (an overflow, an invalid operation or a
    // division by zero gives inf or NaN), and fold refuses a domain error.
    if (pure(i.op) && ((all_const && o.reads <= 2) || (cannot_fail(i.op, a, b, res) && res.plus_zero()))) {
      // Computed here exactly as the machine does: the same operation on the same bits.
      const std::optional<double> v =
          res.plus_zero() ? std::optional<double>(0.0) : fold(i.op, a.lo, o.reads > 1 ? b.lo : 0);
      return v && std::isfinite(*v) ? constant_reg(*v) : kNone;
    }
    if (i.op == Op::add && b.plus_zero() && a.not_minus_zero()) return i.a;
    if (i.op == Op::add && a.plus_zero() && b.not_minus_zero()) return i.b;
    if (i.op == Op::sub && b.plus_zero()) return i.a;
    if (i.op == Op::mul) return rescaled(pc, i, res);
    return kNone;
  }

  // A product's non-constant operand and constant factor (kNone: not such a product).
  std::pair<std::uint32_t, double> scaled(const Ins& m) const {
    if (is_const_[m.b] && !is_const_[m.a]) return {m.a, range_[m.b].lo};
    if (is_const_[m.a] && !is_const_[m.b]) return {m.b, range_[m.a].lo};
    return {kNone, 0};
  }

  // (x * c) * p, p a power of two: x * (c * p). A power of two scales a normal number exactly,
  // and scaling commutes with rounding to nearest between normal numbers, so when x * c and the
  // result are normal (and c * p is exact) the bits are the same, and neither overflows.
  // c * p = 1 leaves x itself (returned); otherwise `i` is rewritten.
  std::uint32_t rescaled(std::uint32_t pc, Ins& i, const Range& res) {
    const auto [y, p] = scaled(i);
    if (y == kNone || def_of_[y] == kNone || c_.code[def_of_[y]].op != Op::mul || !power_of_two(p)) return kNone;
    const auto [x, k] = scaled(c_.code[def_of_[y]]);
    const double q = k * p;
    if (x == kNone || !normal(range_[y]) || !normal(res) || q / p != k || std::fabs(q) < kMinNormal ||
        std::fabs(q) > kBig || f_.written_between(x, def_of_[y], pc))
      return kNone;
    if (q == 1) return x;
    i.a = x;
    i.b = constant_reg(q);
    ++st_.folded;
    return kNone;
  }

  // A branch's result that every arm writes from the same register is that register. (Its
  // readers come after its writers, which come after the source's.)
  void branch_result(std::uint32_t pc, const Ins& i) {
    const std::uint32_t src = i.op == Op::mov ? i.a : i.op == Op::movi ? known_as(pc, i.imm) : kNone;
    std::uint32_t& same = phi_src_[i.d];
    same = same == kUnset ? src : same == src ? same : kNone;
    if (pending_[i.d] != 0 || same == kNone || same == kUnset) return;
    if (f_.writers(same) > 1 && f_.sites(same).back() >= f_.sites(i.d).front()) return;
    for (std::uint32_t at : f_.sites(i.d))
      if (c_.code[at].op != Op::mov && c_.code[at].op != Op::movi) return;
    rw_.rep[i.d] = same;
    for (std::uint32_t at : f_.sites(i.d)) rw_.removed[at] = 1;
    ++st_.copies;
  }

  // A register known to hold exactly v (+0 or 1) at instruction pc, from the arms around it: an
  // instruction reached only from a jz (falling through, or as its only way in) knows the
  // condition was not zero (or zero); a comparison's result is then 1 (or +0), and the operand
  // of a `not` that made it +0 (or 1).
  std::uint32_t known_as(std::uint32_t pc, double v) const {
    if (std::bit_cast<std::uint64_t>(v) != 0 && v != 1) return kNone;
    std::uint32_t w = pc;
    for (int steps = 0; steps < 64 && w != 0; ++steps, w = f_.idom[w]) {
      if (f_.npred[w] != 1 || c_.code[f_.pred[w]].op != Op::jz) continue;
      const std::uint32_t jz = f_.pred[w];
      const bool nonzero = w == jz + 1;  // fell through: the condition was not zero
      const std::uint32_t cond = rw_.rep[c_.code[jz].a];
      auto holds = [&](std::uint32_t r, double x) {
        return range_[r].boolean && pending_[r] == 0 && !f_.written_between(r, jz, pc) && x == v;
      };
      if (holds(cond, nonzero ? 1 : 0)) return cond;
      if (def_of_[cond] != kNone && c_.code[def_of_[cond]].op == Op::not_) {
        const std::uint32_t x = rw_.rep[c_.code[def_of_[cond]].a];
        if (holds(x, nonzero ? 0 : 1)) return x;
      }
    }
    return kNone;
  }

  // The register holding constant v, made (with its range) if there is none.
  std::uint32_t constant_reg(double v) {
    const auto [it, fresh] = const_reg_.try_emplace(std::bit_cast<std::uint64_t>(v), 0);
    if (fresh) {
      it->second = c_.nregs++;
      c_.constants.emplace_back(it->second, v);
      range_.push_back(exact(v));
      rw_.rep.push_back(it->second);
      pending_.push_back(0);
      phi_src_.push_back(kUnset);
      seen_.push_back(0);
      is_const_.push_back(1);
      def_of_.push_back(kNone);
    }
    return it->second;
  }

  Compiled& c_;
  const Facts& f_;
  Rewrite& rw_;
  OptStats& st_;
  std::vector<Range> range_;
  std::unordered_map<std::uint64_t, std::uint32_t> const_reg_;  // a constant's bits -> its register
  std::vector<std::uint32_t> pending_;                          // reachable writers of a register not yet met
  std::vector<std::uint8_t> seen_, is_const_;
  std::vector<std::uint32_t> def_of_;   // the one writer of a register written once, once met
  std::vector<std::uint32_t> phi_src_;  // a branch result's source so far (kUnset, kNone: none)
};

}  // namespace

std::vector<Range> fold_ranges(Compiled& c, const Facts& f, Rewrite& rw, const std::vector<InputRange>& inputs,
                               OptStats& st) {
  return Folding(c, f, rw, st).run(inputs);
}

void drop_dead(Compiled& c, const std::vector<Range>& range, Rewrite& rw, OptStats& st) {
  const std::size_t n = c.code.size();
  std::vector<std::uint32_t> uses(c.nregs, 0);
  for (std::size_t pc = 0; pc < n; ++pc)
    if (!rw.removed[pc]) for_each_read(c.code[pc], [&](std::uint32_t& r) { ++uses[r]; });
  auto use_slot = [&](const Slot& s) {
    if (!s.constant) ++uses[s.reg];
  };
  for (const Slot& s : c.cells) use_slot(s);
  for (const Slot& s : c.objectives) use_slot(s);
  for (const Slot& s : c.feasibility) use_slot(s);
  for (const auto& [s, idx] : c.asserts) use_slot(s);
  for (const Region& r : c.regions) ++uses[r.cond];
  auto at = [&](std::uint32_t r) { return r < range.size() ? range[r] : Range{}; };
  for (std::size_t pc = n; pc-- > 0;) {
    Ins& i = c.code[pc];
    if (rw.removed[pc] || !operands(i.op).writes || uses[i.d] != 0) continue;
    const Operands o = operands(i.op);
    if (!harmless(i.op) &&
        !cannot_fail(i.op, o.reads > 0 ? at(i.a) : Range{}, o.reads > 1 ? at(i.b) : Range{}, at(i.d)))
      continue;
    rw.removed[pc] = 1;
    ++st.dead;
    for_each_read(i, [&](std::uint32_t& r) { --uses[r]; });
  }
}

}  // namespace mls::fast::passes
