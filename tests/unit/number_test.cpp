// number_test.cpp — exact decimal literals, rounding and formatting of mls numbers.
#include <doctest/doctest.h>

#include "interpreter/number.hpp"

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
  CHECK_FALSE(Num::parse("-1").has_value());  // the sign is an operator, not part of a literal
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
