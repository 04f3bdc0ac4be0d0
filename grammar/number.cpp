// number.cpp — exact rationals (Boost.Multiprecision) with a binary64 shadow, and number text.
// This is the only translation unit that includes Boost.Multiprecision.
#include "number.hpp"

#include <fmt/format.h>

#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>

#include "number_fast.hpp"
#include "number_small.hpp"

namespace mls {

namespace bmp = boost::multiprecision;
using Int = bmp::cpp_int;
using Rat = bmp::cpp_rational;

struct ExactRep {
  Rat r;
};

namespace {

std::shared_ptr<const ExactRep> wrap(Rat r) { return std::make_shared<const ExactRep>(ExactRep{std::move(r)}); }

unsigned bits(const Int& i) { return i == 0 ? 0 : static_cast<unsigned>(bmp::msb(bmp::abs(i))) + 1; }

bool too_big(const Rat& r) {
  return bits(bmp::numerator(r)) > kMaxExactBits || bits(bmp::denominator(r)) > kMaxExactBits;
}

double to_double(const Rat& r) { return r.convert_to<double>(); }

// Every exact result is stored small when it fits (Num's canonical form), else big.
Num store(double d, Rat r) {
  const Int& n = bmp::numerator(r);
  const Int& q = bmp::denominator(r);
  if (bits(n) <= 63 && bits(q) <= 63)
    return Num{d, n.convert_to<std::int64_t>(), q.convert_to<std::int64_t>(), nullptr};
  return Num{d, 0, 0, wrap(std::move(r))};
}

Num make(Rat r, bool& lost) {
  if (too_big(r)) {
    lost = true;
    return Num::of_double(to_double(r));
  }
  const double d = to_double(r);
  return store(d, std::move(r));
}

// Boost's conversion, for the small values whose terms exceed 2^53 (number_small.hpp).
double small_to_double_slow(std::int64_t n, std::int64_t q) { return to_double(Rat(Int(n), Int(q))); }

// A small result: the binary64 of n/q correctly rounded, as Boost would round it.
Num small_num(small::Q v) {
  const double d = small::exact_double(v.n, v.q) ? static_cast<double>(v.n) / static_cast<double>(v.q)
                                                 : small_to_double_slow(v.n, v.q);
  return Num{d, v.n, v.q, nullptr};
}

Int pow10(unsigned e) {
  Int p = 1;
  for (unsigned i = 0; i < e; ++i) p *= 10;
  return p;
}

// Exact value of a (finite) double.
Rat rat_of_double(double v) {
  int e = 0;
  const double m = std::frexp(v, &e);  // v = m * 2^e, 0.5 <= |m| < 1
  const auto mant = static_cast<std::int64_t>(std::ldexp(m, 53));
  Rat r = Rat(Int(mant));
  e -= 53;
  if (e > 0) r *= Rat(Int(1) << e);
  if (e < 0) r /= Rat(Int(1) << -e);
  return r;
}

Rat rat_of(const Num& n) {
  if (n.sd != 0) return Rat(Int(n.sn), Int(n.sd));
  return n.ex ? n.ex->r : rat_of_double(n.d);
}

// Both small: int64/__int128 arithmetic (no heap, no Boost) unless the result leaves int64.
template <typename SmallOp, typename ExactOp, typename DoubleOp>
Num binary(const Num& a, const Num& b, bool& lost, SmallOp sop, ExactOp eop, DoubleOp dop) {
  if (a.sd != 0 && b.sd != 0)
    if (const auto r = sop(small::Q{a.sn, a.sd}, small::Q{b.sn, b.sd})) return small_num(*r);
  if (a.exact() && b.exact()) return make(eop(rat_of(a), rat_of(b)), lost);
  return Num::of_double(dop(a.d, b.d));
}

// Half-up (away from zero) rounding of r to an integer.
Int round_half_up(const Rat& r) {
  const bool negative = r < 0;
  const Rat a = negative ? Rat(-r) : r;
  const Rat shifted = a + Rat(1, 2);
  Int q = bmp::numerator(shifted) / bmp::denominator(shifted);
  return negative ? Int(-q) : q;
}

std::string fixed_text(const Int& scaled, int decimals) {
  const bool negative = scaled < 0;
  std::string digits = (negative ? Int(-scaled) : scaled).str();
  if (decimals > 0) {
    if (digits.size() <= static_cast<std::size_t>(decimals))
      digits.insert(0, static_cast<std::size_t>(decimals) - digits.size() + 1, '0');
    digits.insert(digits.size() - static_cast<std::size_t>(decimals), ".");
  }
  // "-0.0" would be a lie about the sign of a value that rounds to zero.
  const bool all_zero = digits.find_first_not_of("0.") == std::string::npos;
  return (negative && !all_zero ? "-" : "") + digits;
}

}  // namespace

Num Num::of_int(std::int64_t v) {
  if (v != INT64_MIN) return Num{static_cast<double>(v), v, 1, nullptr};
  return Num{static_cast<double>(v), 0, 0, wrap(Rat(Int(v)))};
}

Num Num::exact_of_double(double v) {
  if (!std::isfinite(v)) return of_double(v);
  return store(v, rat_of_double(v));
}

std::optional<Num> Num::from_exact_text(std::string_view text, double d) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos || text.size() > 2 * (kMaxExactBits / 3 + 8)) return std::nullopt;
  auto digits = [](std::string_view s, bool sign) {
    if (sign && !s.empty() && s[0] == '-') s.remove_prefix(1);
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
  };
  const std::string_view num = text.substr(0, slash), den = text.substr(slash + 1);
  if (!digits(num, true) || !digits(den, false)) return std::nullopt;
  const Int q{std::string(den)};
  if (q == 0) return std::nullopt;
  Rat r(Int{std::string(num)}, q);
  if (too_big(r)) return std::nullopt;
  return store(d, std::move(r));
}

std::optional<Num> Num::parse(std::string_view text) {
  std::string mant;
  long frac_digits = 0;
  long exp = 0;
  bool in_frac = false;
  std::size_t i = 0;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '_') continue;
    if (c == '.') {
      in_frac = true;
      continue;
    }
    if (c == 'e' || c == 'E') break;
    if (c < '0' || c > '9') return std::nullopt;
    mant += c;
    if (in_frac) ++frac_digits;
  }
  if (mant.empty() || mant.size() > 4000) return std::nullopt;
  if (i < text.size()) {
    ++i;
    bool neg = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) neg = text[i++] == '-';
    std::string ed;
    for (; i < text.size(); ++i) {
      if (text[i] == '_') continue;
      if (text[i] < '0' || text[i] > '9') return std::nullopt;
      ed += text[i];
      if (ed.size() > 6) return std::nullopt;
    }
    if (ed.empty()) return std::nullopt;
    exp = std::stol(ed) * (neg ? -1 : 1);
  }
  // cpp_int reads a leading 0 as octal: strip leading zeros first.
  const auto nz = mant.find_first_not_of('0');
  mant = nz == std::string::npos ? "0" : mant.substr(nz);
  const long e10 = exp - frac_digits;
  if (e10 > 400 || e10 < -400) return std::nullopt;
  Rat r{Int(mant)};
  if (e10 > 0) r *= Rat(pow10(static_cast<unsigned>(e10)));
  if (e10 < 0) r /= Rat(pow10(static_cast<unsigned>(-e10)));
  // A literal is exact by promise: one beyond the exact range (1e-400, or 1e-320, whose
  // denominator needs more than kMaxExactBits) is rejected, not silently rounded to binary64.
  bool lost = false;
  Num n = make(std::move(r), lost);
  if (lost || !std::isfinite(n.d)) return std::nullopt;
  return n;
}

Num add(const Num& a, const Num& b, bool& lost) {
  return binary(
      a, b, lost, small::add, [](const Rat& x, const Rat& y) { return Rat(x + y); },
      [](double x, double y) { return x + y; });
}
Num sub(const Num& a, const Num& b, bool& lost) {
  return binary(
      a, b, lost, small::sub, [](const Rat& x, const Rat& y) { return Rat(x - y); },
      [](double x, double y) { return x - y; });
}
Num mul(const Num& a, const Num& b, bool& lost) {
  return binary(
      a, b, lost, small::mul, [](const Rat& x, const Rat& y) { return Rat(x * y); },
      [](double x, double y) { return x * y; });
}
Num div(const Num& a, const Num& b, bool& lost) {
  return binary(
      a, b, lost, small::div, [](const Rat& x, const Rat& y) { return Rat(x / y); },
      [](double x, double y) { return x / y; });
}

Num neg(const Num& a) {
  if (a.sd != 0) return Num{-a.d, -a.sn, a.sd, nullptr};  // |sn| <= INT64_MAX: no overflow
  if (a.ex) return store(-a.d, Rat(-a.ex->r));
  return Num::of_double(-a.d);
}

Num pow_int(const Num& a, std::int64_t e, bool& lost) {
  if (!a.exact()) return Num::of_double(std::pow(a.d, static_cast<double>(e)));
  if (a.sd != 0)
    if (const auto r = small::pow(small::Q{a.sn, a.sd}, e)) return small_num(*r);
  const Rat base = rat_of(a);
  // Bound the work: exponents beyond the bit budget cannot stay exact anyway.
  const std::int64_t mag = e < 0 ? -e : e;
  const unsigned base_bits = std::max(bits(bmp::numerator(base)), bits(bmp::denominator(base)));
  if (base_bits > 1 && static_cast<std::uint64_t>(mag) * (base_bits - 1) > kMaxExactBits) {
    lost = true;
    return Num::of_double(std::pow(a.d, static_cast<double>(e)));
  }
  Rat r = 1;
  for (std::int64_t i = 0; i < mag; ++i) {
    r *= base;
    if (too_big(r)) {
      lost = true;
      return Num::of_double(std::pow(a.d, static_cast<double>(e)));
    }
  }
  if (e < 0) r = Rat(1) / r;
  return make(std::move(r), lost);
}

Num floor_num(const Num& a) {
  if (a.sd != 0) return small_num(small::floor(small::Q{a.sn, a.sd}));
  if (!a.ex) return Num::of_double(std::floor(a.d));
  const Int& n = bmp::numerator(a.ex->r);
  const Int& d = bmp::denominator(a.ex->r);
  Int q = n / d;  // truncates toward zero
  if (n < 0 && q * d != n) q -= 1;
  bool lost = false;
  return make(Rat(q), lost);
}

Num ceil_num(const Num& a) { return neg(floor_num(neg(a))); }

int compare(const Num& a, const Num& b) {
  if (a.sd != 0 && b.sd != 0) return small::compare(small::Q{a.sn, a.sd}, small::Q{b.sn, b.sd});
  if (a.exact() && b.exact()) {
    const Rat x = rat_of(a), y = rat_of(b);
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  return a.d < b.d ? -1 : (a.d > b.d ? 1 : 0);
}

bool is_zero(const Num& a) {
  if (a.sd != 0) return a.sn == 0;
  return a.ex ? a.ex->r == 0 : a.d == 0.0;
}

bool is_integer(const Num& a) {
  if (a.sd != 0) return a.sd == 1;
  if (a.ex) return bmp::denominator(a.ex->r) == 1;
  return std::isfinite(a.d) && std::floor(a.d) == a.d;
}

std::optional<std::int64_t> to_int(const Num& a) {
  if (!is_integer(a)) return std::nullopt;
  if (std::fabs(a.d) > 9.0e15) return std::nullopt;
  return static_cast<std::int64_t>(a.d);
}

namespace {
// Binary64 values away from a decimal tie: the correctly rounded printf result equals
// half-up rounding of the exact value, and avoids rational arithmetic on hot output paths.
std::optional<std::string> fast_fixed(double v, int decimals) {
  if (std::fabs(v) >= 1e15 || decimals < 0 || decimals > 17) return std::nullopt;
  // An exact tie (v * 10^d = odd / 2) needs v * 2^(d+1) to be an odd integer (the factor 5^d
  // is odd); ldexp is exact. Ties are decided exactly; anything else formats correctly rounded.
  const double t = std::ldexp(std::fabs(v), decimals + 1);
  if (t == std::floor(t) && std::fmod(t, 2.0) == 1.0) return std::nullopt;
  std::string s = fmt::format("{:.{}f}", v, decimals);
  if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}
}  // namespace

std::string format_fixed(const Num& a, int decimals) {
  if (!a.exact() && !std::isfinite(a.d)) return std::isnan(a.d) ? "nan" : (a.d > 0 ? "inf" : "-inf");
  decimals = std::clamp(decimals, 0, 30);
  if (!a.exact())
    if (auto s = fast_fixed(a.d, decimals)) return *s;
  const Rat scaled = rat_of(a) * Rat(pow10(static_cast<unsigned>(decimals)));
  return fixed_text(round_half_up(scaled), decimals);
}

std::string format_sig(const Num& a, int sig) {
  if (!a.exact() && !std::isfinite(a.d)) return format_fixed(a, 0);
  if (is_zero(a)) return "0";
  if (!a.exact()) {
    // Plain binary64 arithmetic, exact whenever it answers (number_fast.cpp says why).
    std::string s;
    if (append_sig_binary64(s, a.d, sig)) return s;
  }
  if (!a.exact() && sig > 9 && std::fabs(a.d) >= 1e-6 && std::fabs(a.d) < 1e15) {
    // More digits than the binary64 path takes: the digit count from log10, then fixed formatting.
    long e = static_cast<long>(std::floor(std::log10(std::fabs(a.d))));
    if (std::fabs(a.d) >= std::pow(10.0, e + 1)) ++e;
    if (std::fabs(a.d) < std::pow(10.0, e)) --e;
    const long decimals = sig - 1 - e;
    if (decimals >= 0 && decimals <= 17) {
      auto s = fast_fixed(a.d, static_cast<int>(decimals));
      if (s) {
        const std::size_t dot = std::min(s->find('.'), s->size());
        if (dot - (a.d < 0 ? 1 : 0) > 15) s.reset();  // carried up to 1e15: scientific, exactly
      }
      if (s) {
        std::string t = *s;
        if (t.find('.') != std::string::npos) {
          while (t.back() == '0') t.pop_back();
          if (t.back() == '.') t.pop_back();
        }
        return t;
      }
    } else if (decimals < 0) {
      // Rounded to a power of ten above 1 (12345678.9 -> 12350000), in integers: with
      // |v| = i + f (f < 1) and unit = 10^k, half-up rounds up iff i mod unit >= unit / 2.
      long long unit = 1;
      for (long k = 0; k < -decimals; ++k) unit *= 10;
      const double mag = std::fabs(a.d);
      const auto i = static_cast<long long>(std::floor(mag));  // < 1e15: exact
      const long long q = i / unit + (i % unit >= unit / 2 ? 1 : 0);
      // A carry up to 1e15 prints in scientific notation: the exact path below does that.
      if (q < 1'000'000'000'000'000LL / unit)
        return (a.d < 0 ? "-" : "") + std::to_string(q) + std::string(static_cast<std::size_t>(-decimals), '0');
    }
  }
  const Rat r = rat_of(a);
  const Rat mag = r < 0 ? Rat(-r) : r;
  // Decimal exponent, first estimated in binary64 then corrected exactly.
  long e = static_cast<long>(std::floor(std::log10(std::fabs(a.d))));
  auto p10 = [](long k) {
    return k >= 0 ? Rat(pow10(static_cast<unsigned>(k))) : Rat(Int(1), pow10(static_cast<unsigned>(-k)));
  };
  e = std::clamp<long>(e, -390, 390);
  while (mag < p10(e)) --e;
  while (mag >= p10(e + 1)) ++e;
  // Rounding to `sig` digits can carry into a new digit (9.9996 -> 10.00): then the value
  // prints as the next power of ten.
  {
    const Rat scaled = mag / p10(e) * Rat(pow10(static_cast<unsigned>(sig - 1)));
    if (round_half_up(scaled) >= pow10(static_cast<unsigned>(sig))) ++e;
  }
  if (e >= 15 || e < -6) {
    // Scientific: d.ddd e±x, trimmed.
    const Rat scaled = r / p10(e) * Rat(pow10(static_cast<unsigned>(sig - 1)));
    std::string m = fixed_text(round_half_up(scaled), sig - 1);
    if (m.find('.') != std::string::npos) {
      while (m.back() == '0') m.pop_back();
      if (m.back() == '.') m.pop_back();
    }
    return m + "e" + std::to_string(e);
  }
  const long decimals = sig - 1 - e;
  std::string s;
  if (decimals >= 0) {
    s = format_fixed(a, static_cast<int>(decimals));
    if (s.find('.') != std::string::npos) {
      while (s.back() == '0') s.pop_back();
      if (s.back() == '.') s.pop_back();
    }
  } else {
    const Rat unit = p10(-decimals);
    s = (round_half_up(r / unit) * bmp::numerator(unit)).str();
  }
  return s;
}

std::string format_json(double v) { return fmt::format("{}", v); }

int decimals_of_resolution(const Num& r) {
  Rat x = rat_of(r);
  if (x <= 0) return 0;
  int d = 0;
  while (bmp::denominator(x) != 1 && d < 30) {
    x *= 10;
    ++d;
  }
  return d;
}

Num round_to(const Num& a, const Num& resolution) {
  const Rat res = rat_of(resolution);
  if (res <= 0) return a;
  const Int q = round_half_up(rat_of(a) / res);
  bool lost = false;
  return make(Rat(q) * res, lost);
}

std::string exact_text(const Num& a) {
  if (a.sd != 0) return fmt::format("{}/{}", a.sn, a.sd);
  if (!a.ex) return fmt::format("~{}", a.d);
  return bmp::numerator(a.ex->r).str() + "/" + bmp::denominator(a.ex->r).str();
}

}  // namespace mls
