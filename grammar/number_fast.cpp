// number_fast.cpp — see number_fast.hpp. Why the digits are right: with k chosen so that
// y = fl(|v| * 10^k) lies in [10^(sig-1), 10^sig), one correctly rounded multiplication or
// division by an exact power of ten (10^0..10^22 are exact doubles) leaves y within
// y * 2^-53 < 1.2e-7 of the exact product X. Half-up rounding of X to an integer then equals
// that of y unless the fraction of y is within that error of one half: those cases (and only
// those) go to the exact path. A k one too large (X just below 10^(sig-1) but y rounded up to
// it) gives the same digits as the exact path, which carries 9...9.5 up to the next power.
#include "number_fast.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace mls {
namespace {

constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                             1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
constexpr int kMaxPow = 22;
constexpr int kMaxSig = 9;  // y < 1e9: its rounding error stays far below the tie margin
// Fractions closer than this to one half are decided exactly (the error bound is 1.2e-7).
constexpr double kTieMargin = 1e-6;

// |v| * 10^k in one correctly rounded operation; k in [-kMaxPow, kMaxPow].
double scaled(double mag, int k) { return k >= 0 ? mag * kPow10[k] : mag / kPow10[-k]; }

}  // namespace

bool append_sig_binary64(std::string& out, double v, int sig) {
  if (sig < 1 || sig > kMaxSig) return false;
  std::uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof v);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  if (biased == 0 || biased == 0x7ff) return false;  // zero, subnormal, infinite, NaN
  const double mag = std::fabs(v);
  // |v| in [2^e2, 2^(e2+1)): floor(e2 * log10 2) is its decimal exponent or one less, and the
  // scaled value says which. 1233 / 4096 gives that floor for |e2| < 681, beyond any k we take.
  const int e2 = biased - 1023;
  int k = sig - 1 - ((e2 * 1233) >> 12);
  const double lo = kPow10[sig - 1], hi = kPow10[sig];
  if (k < -kMaxPow || k > kMaxPow) return false;
  double y = scaled(mag, k);
  if (y >= hi) {
    if (--k < -kMaxPow) return false;
    y = scaled(mag, k);
  }
  if (y < lo || y >= hi) return false;             // not expected; the exact path decides
  const auto q = static_cast<std::uint64_t>(y);    // y < 1e9: truncation is floor
  const double frac = y - static_cast<double>(q);  // exact: y and q are within a factor of two
  if (std::fabs(frac - 0.5) <= kTieMargin) return false;
  std::uint64_t digits = q + (frac > 0.5 ? 1 : 0);
  int e = sig - 1 - k;                             // decimal exponent of the first digit
  if (digits == static_cast<std::uint64_t>(hi)) {  // 9.99..95 carried into a new digit
    digits /= 10;
    ++e;
  }
  // The sig digits, last first, counting the trailing zeros that trimming drops.
  char d[32] = {};
  int used = 0;                                    // significant digits kept after trimming trailing zeros
  auto rest = static_cast<std::uint32_t>(digits);  // < 1e9: 32-bit division by 10 is cheaper
  for (int i = sig - 1; i >= 0; --i) {
    const std::uint32_t digit = rest % 10;
    d[i] = static_cast<char>('0' + digit);
    if (used == 0 && digit != 0) used = i + 1;
    rest /= 10;
  }
  const int n = sig;
  // Built in a local buffer (at most sign, 21 digits or zeros, point, exponent) and appended
  // once. Copies move a fixed 16 bytes (inlined, unlike a memcpy of a variable length) and
  // advance by the count: both buffers have room for the overrun.
  char buf[64];
  char* p = buf;
  auto put = [&p](const char* from, int count) {
    std::memcpy(p, from, 16);
    p += count;
  };
  if (v < 0) *p++ = '-';
  if (e >= 15 || e < -6) {  // d.ddde±x
    *p++ = d[0];
    if (used > 1) {
      *p++ = '.';
      put(d + 1, used - 1);
    }
    *p++ = 'e';
    p = std::to_chars(p, buf + sizeof buf, e).ptr;
  } else if (e < 0) {  // 0.000ddd
    *p++ = '0';
    *p++ = '.';
    std::memset(p, '0', 8);  // e >= -6: at most five zeros
    p += -e - 1;
    put(d, used);
  } else if (e + 1 >= n) {  // all digits before the point, padded with zeros
    put(d, n);
    std::memset(p, '0', 16);  // e < 15: at most 14 zeros
    p += e + 1 - n;
  } else {  // ddd.ddd, the fraction trimmed
    put(d, e + 1);
    if (used > e + 1) {
      *p++ = '.';
      put(d + e + 1, used - e - 1);
    }
  }
  out.append(buf, p);
  return true;
}

bool append_integer_binary64(std::string& out, double v) {
  // Casts instead of floor: a call into libm without SSE4.1, and this runs for every cell.
  if (!(std::fabs(v) < 1e15)) return false;
  const auto i = static_cast<std::int64_t>(v);
  if (static_cast<double>(i) != v) return false;
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, i).ptr);
  return true;
}

}  // namespace mls
