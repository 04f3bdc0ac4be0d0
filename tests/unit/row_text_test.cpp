// row_text_test.cpp — CellMemo, the workers' memory of recent cell texts: a text taken from
// the memo is always the text the cell's own formatting would make, whatever the column,
// repeats, hash collisions between numbers, exact numbers or texts too long to remember.
#include "interpreter/results/row_text.hpp"

#include <doctest/doctest.h>

#include <random>

using namespace mls;

TEST_CASE("CellMemo gives every cell the text made afresh") {
  CellMemo memo;
  std::mt19937_64 rng(14);
  // Pools smaller and larger than the slots per column, so that numbers repeat and collide.
  std::vector<double> pool;
  for (int i = 0; i < 40; ++i) pool.push_back(static_cast<double>(rng() % 100000) / 8);
  std::size_t made[4] = {}, seen[4] = {};
  for (int i = 0; i < 50000; ++i) {
    const std::size_t c = rng() % 4;
    const double x = rng() % 5 == 0 ? static_cast<double>(rng()) : pool[rng() % (c == 0 ? 4 : pool.size())];
    Value v = Value::number(rng() % 50 == 0 ? Num::of_int(static_cast<std::int64_t>(x)) : Num::of_double(x));
    // The text depends on the column too, and is sometimes longer than a slot holds.
    auto text = [&] {
      std::string t = std::to_string(x) + "/" + std::to_string(c);
      if (c == 3) t += std::string(40, 'x');
      return t;
    };
    std::string out = "row,";
    ++seen[c];
    memo.append(out, c, v, [&](std::string& o) {
      ++made[c];
      o += text();
    });
    REQUIRE(out == "row," + text());
  }
  // The memo did save work where numbers repeat (column 0 cycles through 4 values, with a
  // fresh number now and then), and none where texts are too long to keep.
  CHECK(made[0] * 2 < seen[0]);
  CHECK(made[3] == seen[3]);
}
