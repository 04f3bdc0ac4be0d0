// units_test.cpp — dimension algebra, unit lookup with prefixes (case-sensitive) and display units.
#include "interpreter/semantics/units.hpp"

#include <doctest/doctest.h>

using namespace mls;

namespace {
Num num(const char* text) { return *Num::parse(text); }

// A small table in the shape of stdlib/units.mls.
UnitTable table() {
  UnitTable t;
  t.add_base_dimension("Time", "", {});
  t.add_base_dimension("Information", "", {});
  t.add_prefix_set({"big", {{"k", num("1e3")}, {"M", num("1e6")}, {"G", num("1e9")}}, {}});
  t.add_prefix_set({"binary", {{"Ki", num("1024")}, {"Mi", num("1048576")}}, {}});
  t.add_prefix_set({"small", {{"m", num("1e-3")}, {"u", num("1e-6")}}, {}});
  t.add_unit({"s", Num::of_int(1), t.dimension("Time")->dim, {"small"}, "", {}});
  t.add_unit({"h", Num::of_int(3600), t.dimension("Time")->dim, {}, "", {}});
  t.add_unit({"B", Num::of_int(1), t.dimension("Information")->dim, {"big", "binary"}, "", {}});
  t.add_unit({"b", num("0.125"), t.dimension("Information")->dim, {"big"}, "", {}});
  const Dim bw = *t.dimension("Information")->dim.over(t.dimension("Time")->dim);
  t.add_derived_dimension("Bandwidth", bw, "", {});
  t.add_display({"B/s", Num::of_int(1)}, bw);
  t.add_display({"kB/s", num("1e3")}, bw);
  t.add_display({"GB/s", num("1e9")}, bw);
  return t;
}
}  // namespace

TEST_CASE("dimension algebra") {
  UnitTable t = table();
  const Dim time = t.dimension("Time")->dim, info = t.dimension("Information")->dim;
  const Dim bw = *info.over(time);
  CHECK(*bw.times(time) == info);
  CHECK(bw != info);
  CHECK(Dim{}.none());
  CHECK(time.over(time)->none());
  // Exponents are kept in sixths: square and cube roots are exact.
  CHECK(*time.pow(1, 2)->times(*time.pow(1, 2)) == time);
  CHECK(*time.pow(2, 6)->pow(3, 1) == time);
  CHECK_FALSE(time.pow(1, 4).has_value());  // a quarter is not on the grid of sixths
  CHECK(t.dim_name(bw) == "Bandwidth");
  CHECK(t.dim_name(*time.pow(2, 1)) == "Time^2");
  CHECK(t.dim_name(*time.pow(1, 2)) == "Time^(1/2)");
  CHECK(t.base_units(*info.over(*time.pow(2, 1))) == "B/s^2");
  CHECK(t.dim_name(Dim{}) == "dimensionless");
}

TEST_CASE("dimension exponents cannot overflow") {
  UnitTable t = table();
  const Dim time = t.dimension("Time")->dim;
  Dim d = *time.pow(1000, 1);
  int steps = 0;
  std::optional<Dim> next = d;
  while (next && steps < 100) {
    d = *next;
    next = d.times(d);  // doubles the exponent
    ++steps;
  }
  CHECK_FALSE(next.has_value());  // refused, never wrapped around
  CHECK(steps < 10);
  CHECK_FALSE(time.pow(INT64_MAX, 1).has_value());
  CHECK_FALSE(time.pow(INT64_MIN, 1).has_value());
  CHECK(Dim{}.pow(INT64_MAX, 1).has_value());  // dimensionless to any power is dimensionless
}

TEST_CASE("prefixed units; case-sensitive") {
  UnitTable t = table();
  CHECK(compare(t.lookup_atom("GB")->factor, num("1e9")) == 0);
  CHECK(compare(t.lookup_atom("KiB")->factor, num("1024")) == 0);  // Ki before k
  CHECK(compare(t.lookup_atom("Gb")->factor, num("1.25e8")) == 0);
  CHECK(compare(t.lookup_atom("ms")->factor, num("0.001")) == 0);
  CHECK_FALSE(t.lookup_atom("gb").has_value());
  CHECK_FALSE(t.lookup_atom("mB").has_value());  // B takes no small prefixes
  CHECK_FALSE(t.lookup_atom("kh").has_value());  // h takes no prefixes
  CHECK_FALSE(t.lookup_atom("").has_value());
  const auto v = t.case_variants("gb");
  REQUIRE(v.size() == 2);
  CHECK(v[0] == "GB");
  CHECK(v[1] == "Gb");
  CHECK(t.suggest("mb") == "did you mean 'MB' or 'Mb'? (units are case-sensitive)");
  CHECK(t.suggest("GBB") == "did you mean 'GB'? (units are case-sensitive)");
}

TEST_CASE("human display units") {
  UnitTable t = table();
  const Dim bw = *t.dimension("Information")->dim.over(t.dimension("Time")->dim);
  CHECK(t.human_unit(bw, 3.35e12).text == "GB/s");  // the largest with magnitude >= 1
  CHECK(t.human_unit(bw, 450).text == "B/s");
  CHECK(t.human_unit(bw, 0.5).text == "B/s");  // below every unit: the smallest
  CHECK(t.human_unit(bw, 0).text == "B/s");
  const Dim time = t.dimension("Time")->dim;
  CHECK(t.human_unit(time, 7200).text == "s");  // no display list: base units
}
