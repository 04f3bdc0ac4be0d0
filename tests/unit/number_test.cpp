// number_test.cpp — exact decimal literals, rounding and formatting of mls numbers.
#include "grammar/number.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>

using namespace mls;

TEST_CASE("decimal literals are exact") {
  bool lost = false;
  const Num a = *Num::parse("0.1"), b = *Num::parse("0.2"), c = *Num::parse("0.3");
  CHECK(compare(add(a, b, lost), c) == 0);
  CHECK_FALSE(lost);
  CHECK(exact_text(*Num::parse("1_000")) == "1000/1");
  CHECK(exact_text(*Num::parse("989e12")) == "989000000000000/1");
  CHECK(exact_text(*Num::parse("035")) == "35/1");  // not octal
  CHECK_FALSE(Num::parse("1e99999").has_value());
}

TEST_CASE("binary and decimal prefixes round-trip exactly") {
  bool lost = false;
  const Num gib = *Num::parse("1073741824"), gb = *Num::parse("1e9");
  const Num in_gb = div(gib, gb, lost);
  CHECK(format_fixed(in_gb, 9) == "1.073741824");
  CHECK(compare(mul(in_gb, gb, lost), gib) == 0);
}

TEST_CASE("rounding is half-up at the printed resolution") {
  CHECK(format_fixed(*Num::parse("4522.85"), 1) == "4522.9");
  CHECK(format_fixed(neg(*Num::parse("0.04")), 1) == "0.0");
  CHECK_FALSE(Num::parse("-1").has_value());                // the sign is an operator, not part of a literal
  CHECK(format_fixed(Num::of_double(2.675), 2) == "2.67");  // the double is below 2.675
  CHECK(decimals_of_resolution(*Num::parse("0.01")) == 2);
  CHECK(format_sig(*Num::parse("66.964285"), 4) == "66.96");
  CHECK(format_sig(*Num::parse("4285.714"), 4) == "4286");
  CHECK(format_sig(*Num::parse("1.5e20"), 4) == "1.5e20");
}

TEST_CASE("exactness is given up, not silently wrong, when rationals grow") {
  bool lost = false;
  const Num third = div(Num::of_int(1), Num::of_int(3), lost);
  const Num big = pow_int(third, 5000, lost);
  CHECK(lost);
  CHECK_FALSE(big.exact());
}

TEST_CASE("literals are exact or rejected") {
  CHECK(Num::parse("1e300").has_value());
  CHECK(Num::parse("1e-300").has_value());
  CHECK_FALSE(Num::parse("1e-320").has_value());  // beyond 1024 bits: not silently rounded
  CHECK_FALSE(Num::parse("1e-400").has_value());  // was parsed as 0
  CHECK_FALSE(Num::parse("1e309").has_value());
  CHECK_FALSE(Num::parse("").has_value());
  CHECK_FALSE(Num::parse("1e").has_value());
  CHECK_FALSE(Num::parse(std::string(5000, '9')).has_value());  // mantissa length is bounded
  CHECK(exact_text(*Num::parse("0.000_001")) == "1/1000000");
  CHECK(exact_text(*Num::parse("00012.50")) == "25/2");
}

TEST_CASE("significant-digit formatting, including the carry of rounding") {
  CHECK(format_sig(*Num::parse("9.9996e20"), 4) == "1e21");
  CHECK(format_sig(*Num::parse("999.96"), 4) == "1000");
  CHECK(format_sig(*Num::parse("0.00099996"), 4) == "0.001");
  CHECK(format_sig(*Num::parse("1.23456e-7"), 4) == "1.235e-7");
  CHECK(format_sig(neg(*Num::parse("4285.714")), 4) == "-4286");
  CHECK(format_sig(Num::of_int(0), 4) == "0");
  CHECK(format_sig(Num::of_double(5e-324), 4) == "4.941e-324");  // a subnormal, exactly
  CHECK(format_fixed(*Num::parse("0.5"), 0) == "1");             // half-up
  CHECK(format_fixed(neg(*Num::parse("0.5")), 0) == "-1");       // away from zero
  CHECK(format_json(0.1) == "0.1");
  CHECK(format_json(1e21) == "1e+21");
}

TEST_CASE("binary64 fast formatting agrees with the exact path") {
  // The fast paths (fixed and rounded-to-a-power-of-ten) must print what the rational path
  // prints for the same binary64 value: sweeps of a million rows go through them.
  std::uint64_t state = 88172645463325252ULL;  // xorshift: fixed seed, no <random> variance
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  for (int k = 0; k < 20000; ++k) {
    const double mant = 1.0 + static_cast<double>(next() % 1000000007ULL) / 1000000007.0;
    const int exp10 = static_cast<int>(next() % 26) - 8;  // 1e-8 .. 1e17
    double x = mant * std::pow(10.0, exp10);
    if (k % 3 == 0) x = std::round(x * 2) / 2;  // halves and whole numbers: near ties
    if (k % 7 == 0) x = -x;
    for (int sig : {3, 4}) {
      CAPTURE(x);
      CHECK(format_sig(Num::of_double(x), sig) == format_sig(Num::exact_of_double(x), sig));
    }
    CHECK(format_fixed(Num::of_double(x), 2) == format_fixed(Num::exact_of_double(x), 2));
  }
  CHECK(format_sig(Num::of_double(12345678.9), 4) == "12350000");
  CHECK(format_sig(Num::of_double(-99995000.0), 4) == "-100000000");
  CHECK(format_sig(Num::of_double(1234.5), 4) == "1235");  // a tie: decided exactly, half-up
  CHECK(format_fixed(Num::of_double(169478267813652.125), 2) == "169478267813652.13");  // exact tie, half-up
  for (double x : {1e-6, 1e-5, 0.001, 0.00999995, 0.1, 1.0, 9.9995, 99.995, 1e4, 99995.0, 1e9, 999950000.0, 1e14,
                   99994999999999.0, 999949999999999.0, 0.3, 2.675, 1.0005})
    for (int sig : {1, 2, 4, 6}) {
      CAPTURE(x);
      CAPTURE(sig);
      CHECK(format_sig(Num::of_double(x), sig) == format_sig(Num::exact_of_double(x), sig));
      CHECK(format_sig(Num::of_double(-x), sig) == format_sig(Num::exact_of_double(-x), sig));
    }
}

TEST_CASE("integer conversion stays in range") {
  CHECK(to_int(*Num::parse("9e15")) == 9'000'000'000'000'000);
  CHECK_FALSE(to_int(*Num::parse("1e16")).has_value());
  CHECK_FALSE(to_int(*Num::parse("2.5")).has_value());
  CHECK_FALSE(to_int(Num::of_double(1e300)).has_value());
  bool lost = false;
  CHECK(pow_int(Num::of_int(2), 1000, lost).exact());
  CHECK_FALSE(lost);
  CHECK_FALSE(pow_int(Num::of_int(2), 1100, lost).exact());
  CHECK(lost);
}
