// number_small.hpp — exact rationals whose numerator and denominator fit in int64, computed
// in int64/__int128 without the heap or Boost (the common case of exact evaluation; issue #14).
// Every operation returns nullopt when its exact result leaves that range: the caller then
// redoes it in cpp_rational, so the value is the same either way, only the cost differs.
// Internal to number.cpp (and its tests): nothing else needs to know the representation.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

namespace mls::small {

// Canonical: q > 0, gcd(|n|, q) == 1, n != INT64_MIN (so that -n never overflows).
struct Q {
  std::int64_t n = 0;
  std::int64_t q = 1;
};

__extension__ using i128 = __int128;
__extension__ using u128 = unsigned __int128;

inline constexpr std::int64_t kMax = INT64_MAX;

// n / q in binary64 is correctly rounded when both convert exactly (|n|, q <= 2^53), which is
// what Boost's rational-to-double conversion returns too (tested in number_test.cpp).
inline bool exact_double(std::int64_t n, std::int64_t q) {
  constexpr std::int64_t k = std::int64_t{1} << 53;
  return n <= k && n >= -k && q <= k;
}

inline int ctz(std::uint64_t v) { return __builtin_ctzll(v); }
inline int ctz(u128 v) {
  const auto lo = static_cast<std::uint64_t>(v);
  return lo != 0 ? __builtin_ctzll(lo) : 64 + __builtin_ctzll(static_cast<std::uint64_t>(v >> 64));
}

// Binary gcd (shifts and subtractions: no division), for U = std::uint64_t or u128.
template <typename U>
U binary_gcd(U a, U b) {
  if (a == 0) return b;
  if (b == 0) return a;
  const int k = ctz(a | b);
  a >>= ctz(a);
  while (b != 0) {
    b >>= ctz(b);
    if (a > b) std::swap(a, b);
    b -= a;
  }
  return a << k;
}

// In 64 bits when the operands fit: each step is several times cheaper than in 128.
inline u128 gcd128(u128 a, u128 b) {
  if (((a | b) >> 64) == 0) return binary_gcd(static_cast<std::uint64_t>(a), static_cast<std::uint64_t>(b));
  return binary_gcd(a, b);
}

// n/q (q != 0, |n|, |q| < 2^127) reduced to canonical form, if it fits.
inline std::optional<Q> norm(i128 n, i128 q) {
  const bool negative = (n < 0) != (q < 0);
  u128 un = n < 0 ? -static_cast<u128>(n) : static_cast<u128>(n);
  u128 uq = q < 0 ? -static_cast<u128>(q) : static_cast<u128>(q);
  const u128 g = gcd128(un, uq);
  if (g != 1) {
    if (((un | uq) >> 64) == 0) {  // 64-bit division is several times cheaper than 128-bit
      un = static_cast<std::uint64_t>(un) / static_cast<std::uint64_t>(g);
      uq = static_cast<std::uint64_t>(uq) / static_cast<std::uint64_t>(g);
    } else {
      un /= g;
      uq /= g;
    }
  }
  if (un > static_cast<u128>(kMax) || uq > static_cast<u128>(kMax)) return std::nullopt;
  const auto sn = static_cast<std::int64_t>(un);
  return Q{negative ? -sn : sn, static_cast<std::int64_t>(uq)};
}

inline std::optional<Q> add(Q a, Q b) {
  if (a.q == 1 && b.q == 1) {
    std::int64_t r = 0;
    if (__builtin_add_overflow(a.n, b.n, &r) || r == INT64_MIN) return std::nullopt;
    return Q{r, 1};
  }
  if (a.q == b.q) return norm(static_cast<i128>(a.n) + b.n, a.q);
  return norm(static_cast<i128>(a.n) * b.q + static_cast<i128>(b.n) * a.q, static_cast<i128>(a.q) * b.q);
}

inline std::optional<Q> sub(Q a, Q b) { return add(a, Q{-b.n, b.q}); }

inline std::optional<Q> mul(Q a, Q b) {
  if (a.q == 1 && b.q == 1) {
    std::int64_t r = 0;
    if (__builtin_mul_overflow(a.n, b.n, &r) || r == INT64_MIN) return std::nullopt;
    return Q{r, 1};
  }
  return norm(static_cast<i128>(a.n) * b.n, static_cast<i128>(a.q) * b.q);
}

// b != 0 (the evaluator rejects division by zero before it gets here).
inline std::optional<Q> div(Q a, Q b) {
  if (b.n == 0) return std::nullopt;
  return norm(static_cast<i128>(a.n) * b.q, static_cast<i128>(a.q) * b.n);
}

inline int compare(Q a, Q b) {
  const i128 x = static_cast<i128>(a.n) * b.q, y = static_cast<i128>(b.n) * a.q;
  return x < y ? -1 : (x > y ? 1 : 0);
}

// Always fits: |floor(n/q)| <= |n| for q >= 1, and it is never INT64_MIN.
inline Q floor(Q a) {
  if (a.q == 1) return a;
  std::int64_t f = a.n / a.q;  // truncates toward zero
  if (a.n < 0 && f * a.q != a.n) --f;
  return Q{f, 1};
}

// a^e by squaring; powers of coprime terms stay coprime, so no gcd is needed. nullopt on
// overflow and for 0^-n (the caller rejects that before).
inline std::optional<Q> pow(Q a, std::int64_t e) {
  const std::uint64_t mag = e < 0 ? 0 - static_cast<std::uint64_t>(e) : static_cast<std::uint64_t>(e);
  if (a.n == 0) return e > 0 ? std::optional<Q>(Q{0, 1}) : (e == 0 ? std::optional<Q>(Q{1, 1}) : std::nullopt);
  const bool odd = (mag & 1) != 0;
  if ((a.n == 1 || a.n == -1) && a.q == 1) return Q{a.n < 0 && odd ? -1 : 1, 1};
  if (mag > 63) return std::nullopt;  // |n| >= 2 or q >= 2: 2^64 does not fit
  std::int64_t rn = 1, rq = 1, bn = a.n, bq = a.q;
  for (std::uint64_t m = mag;;) {
    if ((m & 1) != 0)
      if (__builtin_mul_overflow(rn, bn, &rn) || __builtin_mul_overflow(rq, bq, &rq)) return std::nullopt;
    m >>= 1;
    if (m == 0) break;
    if (__builtin_mul_overflow(bn, bn, &bn) || __builtin_mul_overflow(bq, bq, &bq)) return std::nullopt;
  }
  if (rn == INT64_MIN) return std::nullopt;
  if (e >= 0) return Q{rn, rq};
  return rn < 0 ? Q{-rq, -rn} : Q{rq, rn};
}

}  // namespace mls::small
