// search_group_test.cpp — `top K per EXPR` (issue 36): GroupedRanking keeps the best K of each
// group (a heap per group, memory K x groups), ranks within a group as SearchRanking does (ties
// in enumeration order), puts groups in the order of their earliest kept point, and gives the
// same rows whether the points come in one stream or as shards' bests merged.
#include "interpreter/runtime/search_group.hpp"

#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

using namespace mls;

namespace {

PointOut point(double objective) {
  PointOut o;
  o.objectives = {Value::number(Num::of_double(objective))};
  return o;
}

std::vector<std::size_t> indices(const std::vector<std::pair<std::size_t, PointOut>>& rows) {
  std::vector<std::size_t> out;
  for (const auto& r : rows) out.push_back(r.first);
  return out;
}

// Points 0..11: group "a" for even indices, "b" for odd ones; objective (minimized) i % 5.
struct Stream {
  std::vector<std::string> group;
  std::vector<double> objective;
  Stream() {
    for (std::size_t i = 0; i < 12; ++i) {
      group.push_back(i % 2 ? "b" : "a");
      objective.push_back(static_cast<double>(i % 5));
    }
  }
};

}  // namespace

TEST_CASE("search_group: the best K of each group, groups by their earliest kept point") {
  const Stream s;
  GroupedRanking r({false}, false, 2, true);
  for (std::size_t i = 0; i < s.group.size(); ++i) r.offer(s.group[i], i, point(s.objective[i]));
  CHECK(r.groups() == 2);
  // a: points 0,2,4,6,8,10 with objectives 0,2,4,1,3,0 -> 0 (obj 0), 10 (obj 0, later), not 6.
  // b: points 1,3,5,7,9,11 with objectives 1,3,0,2,4,1 -> 5 (obj 0), 1 (obj 1; 11 ties, later).
  // a's earliest kept point is 0, b's is 1.
  CHECK(indices(r.take_ranked()) == std::vector<std::size_t>{0, 10, 5, 1});
}

TEST_CASE("search_group: a group whose kept points all come late is listed after one kept early") {
  GroupedRanking r({true}, false, 1, true);  // maximize, top 1 per group
  r.offer("x", 0, point(1));
  r.offer("y", 1, point(5));
  r.offer("x", 2, point(9));  // x's best is now point 2: y (earliest kept 1) comes first
  CHECK(indices(r.take_ranked()) == std::vector<std::size_t>{1, 2});
}

TEST_CASE("search_group: shards' per-group bests merged give the single run's rows") {
  const Stream s;
  GroupedRanking single({false}, false, 2, true);
  for (std::size_t i = 0; i < s.group.size(); ++i) single.offer(s.group[i], i, point(s.objective[i]));
  const auto want = indices(single.take_ranked());
  for (const std::size_t shards : {2u, 3u, 5u}) {
    GroupedRanking merged({false}, false, 2, true);
    for (std::size_t k = 0; k < shards; ++k) {
      GroupedRanking part({false}, false, 2, true);
      for (std::size_t i = k * 12 / shards; i < (k + 1) * 12 / shards; ++i)
        part.offer(s.group[i], i, point(s.objective[i]));
      for (auto& [i, o] : part.take_in_order()) merged.offer(s.group[i], i, std::move(o));
    }
    CHECK(indices(merged.take_ranked()) == want);
  }
}

TEST_CASE("search_group: a Pareto front per group") {
  GroupedRanking r({true, false}, true, 5, true);  // maximize the first, minimize the second
  auto two = [](double a, double b) {
    PointOut o;
    o.objectives = {Value::number(Num::of_double(a)), Value::number(Num::of_double(b))};
    return o;
  };
  r.offer("a", 0, two(1, 1));
  r.offer("b", 1, two(1, 5));  // dominated by point 0, but in another group: kept
  r.offer("a", 2, two(2, 2));  // a's front: 2 (better first objective), then 0
  r.offer("a", 3, two(0, 3));  // dominated by 0 within a
  CHECK(indices(r.take_ranked()) == std::vector<std::size_t>{2, 0, 1});
}

TEST_CASE("search_group: without groups, one ranking (the group text is not read)") {
  GroupedRanking r({false}, false, 2, false);
  r.offer("", 0, point(3));
  r.offer("ignored", 1, point(1));
  r.offer("", 2, point(2));
  CHECK(indices(r.take_ranked()) == std::vector<std::size_t>{1, 2});
}

TEST_CASE("search_group: group identity") {
  CHECK(group_identity(Value::string("H100")) == "s:H100");
  CHECK(group_identity(Value::boolean(true)) == "b:1");
  CHECK(group_identity(Value::number(Num::of_int(8))) == group_identity(Value::number(Num::of_double(8.0))));
  CHECK(group_identity(Value::number(Num::of_int(8))) != group_identity(Value::string("8")));
}
