// number_fast_test.cpp — the binary64 number text (number_fast.hpp) against the exact rational
// formatter: same bytes whenever the fast path answers, and it answers for the common cases.
#include "grammar/number_fast.hpp"

#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "grammar/number.hpp"

using namespace mls;

namespace {

// The exact formatter's text for the binary64 value x (format_sig would itself try the fast path).
std::string exact_sig(double x, int sig) { return format_sig(Num::exact_of_double(x), sig); }

// Checks one value at one precision; returns whether the fast path answered.
bool agrees(double x, int sig) {
  std::string fast = "prefix:";
  const bool answered = append_sig_binary64(fast, x, sig);
  CAPTURE(x);
  CAPTURE(sig);
  if (!answered) {
    CHECK(fast == "prefix:");  // nothing appended when it declines
  } else {
    CHECK(fast == "prefix:" + exact_sig(x, sig));
  }
  CHECK(format_sig(Num::of_double(x), sig) == exact_sig(x, sig));  // with or without the fast path
  return answered;
}

struct Xorshift {
  std::uint64_t state = 0x9E3779B97F4A7C15ULL;  // fixed seed: the same values every run
  std::uint64_t next() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  }
};

}  // namespace

TEST_CASE("binary64 significant digits: random values agree with the exact path") {
  Xorshift rng;
  int answered = 0, asked = 0;
  for (int i = 0; i < 20000; ++i) {
    // Any bit pattern of a double between 1e-30 and 1e30 (uniform in the exponent), either sign.
    double x = 0;
    do {
      const std::uint64_t bits = rng.next();
      std::memcpy(&x, &bits, sizeof x);
    } while (!std::isfinite(x) || std::fabs(x) < 1e-30 || std::fabs(x) > 1e30);
    const int sig = 1 + static_cast<int>(rng.next() % 9);
    answered += agrees(x, sig) ? 1 : 0;
    ++asked;
  }
  // Away from the decimal ties every value in the exact powers' range takes the fast path.
  CHECK(answered > asked * 7 / 10);
}

TEST_CASE("binary64 significant digits: the values a sweep prints take the fast path") {
  Xorshift rng;
  int answered = 0;
  for (int i = 0; i < 20000; ++i) {
    // Values of the magnitudes tables show (1e-6 .. 1e15), with 4 digits as format_value asks.
    const double mant = 1.0 + static_cast<double>(rng.next() % 1000000007ULL) / 1000000007.0;
    const double x = mant * std::pow(10.0, static_cast<int>(rng.next() % 22) - 6);
    answered += agrees(i % 2 ? x : -x, 4) ? 1 : 0;
  }
  CHECK(answered >= 19990);
}

TEST_CASE("binary64 significant digits: ties, powers of ten, carries, extremes") {
  std::vector<double> xs = {1e-6,    1e-5,       0.001,       0.00999995,  0.1,      1.0,         9.9995,     99.995,
                            1e4,     99995.0,    1e9,         999950000.0, 1e14,     1e15,        1e16,       1e21,
                            1e22,    1e23,       1e-22,       1e-23,       0.3,      2.675,       1.0005,     1234.5,
                            0.125,   2.5,        0.5,         1.5,         12345.5,  0.0625,      9.5,        99.5,
                            999.5,   9999.5,     99995.0,     0.00015,     1.25e-5,  4.5e15,      1.5e20,     9.9996e20,
                            999.96,  0.00099996, 1.23456e-7,  66.964285,   4285.714, 12345678.9,  99995000.0, DBL_MIN,
                            DBL_MAX, 5e-324,     DBL_EPSILON, 1.0 / 3,     2.0 / 3,  123456789.0, 987654321.5};
  // Neighbours of powers of ten and of decimal ties: the inputs where one rounding decides.
  for (int e = -25; e <= 25; ++e) {
    const double p = std::pow(10.0, e);
    xs.push_back(p);
    xs.push_back(std::nextafter(p, 0.0));
    xs.push_back(std::nextafter(p, 1e300));
    for (double half : {1.5, 2.5, 1.05, 1.005, 1.0005, 9.95, 9.995, 9.9995, 9.99995}) {
      xs.push_back(half * p);
      xs.push_back(std::nextafter(half * p, 0.0));
      xs.push_back(std::nextafter(half * p, 1e300));
    }
  }
  for (double x : xs)
    for (int sig = 1; sig <= 9; ++sig) {
      (void)agrees(x, sig);
      (void)agrees(-x, sig);
    }
  // Exact binary ties are left to the exact path (it rounds them half-up).
  std::string s;
  CHECK_FALSE(append_sig_binary64(s, 1234.5, 4));
  CHECK_FALSE(append_sig_binary64(s, 0.125, 2));
  CHECK(s.empty());
  CHECK(format_sig(Num::of_double(1234.5), 4) == "1235");
  CHECK(format_sig(Num::of_double(-0.125), 2) == "-0.13");
  // Zero, infinities, NaN and more digits than binary64 can round safely are declined.
  for (double x : {0.0, -0.0, HUGE_VAL, -HUGE_VAL, std::nan("")}) CHECK_FALSE(append_sig_binary64(s, x, 4));
  CHECK_FALSE(append_sig_binary64(s, 1.0 / 3, 10));
  CHECK_FALSE(append_sig_binary64(s, 1.0 / 3, 0));
  CHECK(s.empty());
  // A few texts spelled out (the exact path agrees, above).
  auto sig4 = [](double x) {
    std::string t;
    REQUIRE(append_sig_binary64(t, x, 4));
    return t;
  };
  CHECK(sig4(66.964285) == "66.96");
  CHECK(sig4(9.9996e20) == "1e21");
  CHECK(sig4(999.96) == "1000");
  CHECK(sig4(0.00099996) == "0.001");
  CHECK(sig4(1.23456e-7) == "1.235e-7");
  CHECK(sig4(-4285.714) == "-4286");
  CHECK(sig4(12345678.9) == "12350000");
  CHECK(sig4(999960000000000.0) == "1e15");  // carried to 1e15: scientific
  CHECK(sig4(999940000000000.0) == "999900000000000");
}

TEST_CASE("binary64 whole numbers print in full") {
  Xorshift rng;
  for (int i = 0; i < 20000; ++i) {
    const double x = std::floor(static_cast<double>(rng.next() % 1000000000000000ULL) / (1 + i % 1000));
    const double v = i % 2 ? x : -x;
    std::string t;
    REQUIRE(append_integer_binary64(t, v));
    CAPTURE(v);
    CHECK(t == format_fixed(Num::exact_of_double(v), 0));
  }
  std::string t;
  CHECK(append_integer_binary64(t, -0.0));
  CHECK(t == "0");
  for (double x : {0.5, 1e15, -1e15, HUGE_VAL, std::nan("")}) CHECK_FALSE(append_integer_binary64(t, x));
  CHECK(t == "0");
}
