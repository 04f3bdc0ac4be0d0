// number.hpp — mls numbers: a binary64 value plus, where it can be kept, the exact rational.
// Literals and unit factors are exact (so 1 GiB -> GB -> GiB round-trips and 0.1 + 0.2 == 0.3);
// sqrt/exp/log and fractional powers, oversized rationals and the sweep fast path fall back to
// binary64 and the evaluator records that as an "approx" assumption. Boost.Multiprecision stays
// inside number.cpp (it costs seconds of compile time per translation unit).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace mls {

struct ExactRep;  // a boost::multiprecision::cpp_rational, defined in number.cpp

// Exact rationals larger than this (numerator or denominator bits) continue in binary64.
inline constexpr unsigned kMaxExactBits = 1024;

// An exact value is held inline as sn/sd when both fit in int64 (no allocation, no Boost: the
// common case), otherwise in `ex`; number.cpp keeps that canonical (small whenever it fits).
struct Num {
  double d = 0.0;
  std::int64_t sn = 0;                 // small exact numerator, when sd != 0
  std::int64_t sd = 0;                 // small exact denominator (> 0, coprime with sn); 0: not small
  std::shared_ptr<const ExactRep> ex;  // big exact; null and sd == 0: approximate (binary64 only)

  [[nodiscard]] bool exact() const { return sd != 0 || ex != nullptr; }
  [[nodiscard]] static Num of_double(double v) { return Num{v, 0, 0, nullptr}; }
  [[nodiscard]] static Num of_int(std::int64_t v);
  // Decimal literal as written in source ("1_000", "3.35", "989e12"); nullopt if malformed
  // or absurdly large (the exponent is capped so that parsing cannot allocate unboundedly).
  [[nodiscard]] static std::optional<Num> parse(std::string_view text);
  // Exact value of a binary64 (every finite double is a dyadic rational).
  [[nodiscard]] static Num exact_of_double(double v);
  // An exact number from its exact_text ("-3/4") and its binary64 `d` as it was (shard parts
  // carry both, so a merge rebuilds the number bit for bit); nullopt if the text is malformed.
  [[nodiscard]] static std::optional<Num> from_exact_text(std::string_view text, double d);
};

// Arithmetic. `lost` is set when both inputs were exact but the result no longer is.
[[nodiscard]] Num add(const Num& a, const Num& b, bool& lost);
[[nodiscard]] Num sub(const Num& a, const Num& b, bool& lost);
[[nodiscard]] Num mul(const Num& a, const Num& b, bool& lost);
[[nodiscard]] Num div(const Num& a, const Num& b, bool& lost);  // caller rejects b == 0
[[nodiscard]] Num neg(const Num& a);
[[nodiscard]] Num pow_int(const Num& a, std::int64_t e, bool& lost);  // caller rejects 0^-n
[[nodiscard]] Num floor_num(const Num& a);
[[nodiscard]] Num ceil_num(const Num& a);
[[nodiscard]] int compare(const Num& a, const Num& b);  // -1, 0, 1
[[nodiscard]] bool is_zero(const Num& a);
[[nodiscard]] bool is_integer(const Num& a);
[[nodiscard]] std::optional<std::int64_t> to_int(const Num& a);  // if integral and in range

// Fixed-point text rounded half-up (away from zero at .5) to `decimals` places; exact when
// the number is exact, otherwise of the binary64's exact value (as Python's Decimal would).
[[nodiscard]] std::string format_fixed(const Num& a, int decimals);
// Text with `sig` significant digits, half-up, trailing zeros trimmed ("67.0" keeps one).
[[nodiscard]] std::string format_sig(const Num& a, int sig);
// Shortest text that reads back as the same binary64 (JSON).
[[nodiscard]] std::string format_json(double v);
// Decimal places implied by a resolution literal: 0.1 -> 1, 0.01 -> 2, 1 -> 0, 10 -> 0.
[[nodiscard]] int decimals_of_resolution(const Num& r);
// Round to a multiple of `resolution`, half-up; returns the rounded exact value.
[[nodiscard]] Num round_to(const Num& a, const Num& resolution);
// Numerator/denominator text of an exact value (tests, debugging).
[[nodiscard]] std::string exact_text(const Num& a);

}  // namespace mls
