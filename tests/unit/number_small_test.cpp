// number_small_test.cpp — the inline small rationals (number_small.hpp) and their fallback to
// cpp_rational: same values, same binary64 shadows, whichever representation computed them.
#include "grammar/number_small.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <random>

#include "grammar/number.hpp"

using namespace mls;

namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

Num q(std::int64_t n, std::int64_t d) {
  bool lost = false;
  return div(Num::of_int(n), Num::of_int(d), lost);
}

// 2^200: a value that cannot be small, to route an operation through cpp_rational.
Num big() {
  bool lost = false;
  return pow_int(Num::of_int(2), 200, lost);
}

}  // namespace

TEST_CASE("small rationals: canonical form and the basic operations") {
  bool lost = false;
  CHECK(exact_text(q(6, -4)) == "-3/2");  // gcd taken out, sign on the numerator
  CHECK(exact_text(q(0, -7)) == "0/1");
  CHECK(exact_text(add(q(1, 6), q(1, 3), lost)) == "1/2");
  CHECK(exact_text(sub(q(1, 6), q(1, 6), lost)) == "0/1");
  CHECK(exact_text(mul(q(-2, 3), q(3, 4), lost)) == "-1/2");
  CHECK(exact_text(div(q(2, 3), q(-4, 9), lost)) == "-3/2");
  CHECK(exact_text(floor_num(q(-7, 2))) == "-4/1");
  CHECK(exact_text(ceil_num(q(-7, 2))) == "-3/1");
  CHECK(exact_text(pow_int(q(-2, 3), 3, lost)) == "-8/27");
  CHECK(exact_text(pow_int(q(-2, 3), -3, lost)) == "-27/8");
  CHECK(exact_text(pow_int(q(-1, 1), -7, lost)) == "-1/1");
  CHECK(compare(q(1, 3), q(333333333, 1000000000)) == 1);
  CHECK(is_integer(q(8, 4)));
  CHECK_FALSE(lost);
  CHECK(small::gcd128(static_cast<small::u128>(6) << 70, static_cast<small::u128>(4) << 70) ==
        static_cast<small::u128>(2) << 70);
}

TEST_CASE("small rationals overflow into cpp_rational and come back") {
  bool lost = false;
  const Num max = Num::of_int(INT64_MAX);
  const Num min = Num::of_int(INT64_MIN);  // not small: -INT64_MIN would overflow
  CHECK(exact_text(min) == "-9223372036854775808/1");
  CHECK(exact_text(neg(min)) == "9223372036854775808/1");
  CHECK(exact_text(add(max, Num::of_int(1), lost)) == "9223372036854775808/1");
  CHECK(exact_text(sub(neg(max), Num::of_int(1), lost)) == "-9223372036854775808/1");
  CHECK(exact_text(add(min, Num::of_int(1), lost)) == "-9223372036854775807/1");  // back to small
  const Num sq = mul(max, max, lost);
  CHECK(exact_text(sq) == "85070591730234615847396907784232501249/1");
  CHECK(exact_text(div(sq, max, lost)) == "9223372036854775807/1");
  CHECK(exact_text(pow_int(Num::of_int(2), 63, lost)) == "9223372036854775808/1");
  CHECK(exact_text(pow_int(Num::of_int(-2), 63, lost)) == "-9223372036854775808/1");
  CHECK(exact_text(pow_int(Num::of_int(2), -64, lost)) == "1/18446744073709551616");
  CHECK(exact_text(add(q(1, INT64_MAX), q(1, INT64_MAX - 1), lost)) ==
        "18446744073709551613/85070591730234615838173535747377725442");
  CHECK(compare(min, neg(max)) == -1);  // big against small
  CHECK(compare(big(), max) == 1);
  CHECK(compare(neg(big()), min) == -1);
  CHECK_FALSE(lost);
  // Products whose gcd brings them back into range stay exact and small.
  CHECK(exact_text(mul(q(INT64_MAX, 3), q(3, INT64_MAX), lost)) == "1/1");
}

TEST_CASE("small and big paths give the same value and the same binary64, bit for bit") {
  // The big path converts with Boost; the small one divides two binary64s (exact when both
  // terms are below 2^53). Routing through 2^200 makes the same value go the big way.
  std::mt19937_64 rng(14);
  bool lost = false;
  for (int i = 0; i < 20000; ++i) {
    const auto n = static_cast<std::int64_t>(rng() >> (1 + rng() % 62)) * ((rng() & 1) != 0 ? -1 : 1);
    const auto d = static_cast<std::int64_t>(rng() >> (1 + rng() % 62)) + 1;
    const Num s = q(n, d);
    const Num b = div(mul(s, big(), lost), big(), lost);
    REQUIRE(exact_text(s) == exact_text(b));
    REQUIRE(same_bits(s.d, b.d));
    REQUIRE(compare(s, b) == 0);
    const Num t = q(static_cast<std::int64_t>(rng() >> 33) + 1, static_cast<std::int64_t>(rng() >> 40) + 1);
    for (const Num& r : {add(s, t, lost), sub(s, t, lost), mul(s, t, lost), div(s, t, lost)}) {
      const Num rb = div(mul(r, big(), lost), big(), lost);
      REQUIRE(exact_text(r) == exact_text(rb));
      REQUIRE(same_bits(r.d, rb.d));
    }
  }
  CHECK_FALSE(lost);
}
