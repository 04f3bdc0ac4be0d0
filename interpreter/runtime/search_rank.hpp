// search_rank.hpp — a search's best points, kept as they stream in: the top K by one objective
// (a heap), or the Pareto front of two (an ordered front). O(log K) per point either way.
#pragma once

#include <cstddef>
#include <map>
#include <utility>
#include <vector>

#include "sweep_points.hpp"

namespace mls {

// Points are offered in enumeration order (a run's chunks, a shard's share, a merge's parts all
// offer in increasing index). The ranking is stable: of two points equal in the objective, the
// earlier one ranks first (as Python's sorted() in mlsysim's DSE). A Pareto front keeps every
// point no other point dominates (a point equal to a kept one in both objectives is kept too),
// ranked by the first objective, then by index. The result is the same set in the same order as
// the insertion into a sorted list it replaces, which was quadratic in K and in the front's size
// (issue 38, item 4: 10^5 points took 100 s; the default cap of 10^6 points took hours).
// Kept points in enumeration order (a shard's part writes them so), whichever ranking kept them.
[[nodiscard]] std::vector<std::pair<std::size_t, PointOut>> in_enumeration_order(
    std::vector<std::pair<std::size_t, PointOut>> points);

class SearchRanking {
 public:
  // `maximize`: per objective, whether more is better; `pareto`: two objectives, keep the front;
  // else the best `top` by the first objective.
  SearchRanking(std::vector<bool> maximize, bool pareto, std::size_t top);
  SearchRanking(const SearchRanking&) = delete;  // the front's order refers to this object
  SearchRanking& operator=(const SearchRanking&) = delete;

  void offer(std::size_t index, PointOut o);
  [[nodiscard]] std::size_t size() const { return pareto_ ? front_.size() : heap_.size(); }
  // The kept points, best first. Empties the ranking.
  [[nodiscard]] std::vector<std::pair<std::size_t, PointOut>> take_ranked();
  // The kept points in enumeration order (a shard's part). Empties the ranking.
  [[nodiscard]] std::vector<std::pair<std::size_t, PointOut>> take_in_order();

 private:
  // > 0 when a is better than b in objective `obj`, 0 when equal, < 0 when worse.
  [[nodiscard]] int goodness(const Num& a, const Num& b, std::size_t obj) const;
  [[nodiscard]] bool ranks_before(const std::pair<std::size_t, PointOut>& a,
                                  const std::pair<std::size_t, PointOut>& b) const;
  void offer_front(std::size_t index, PointOut o);

  struct FrontKey {
    Num x, y;  // the two objectives
    std::size_t index = 0;
  };
  // Front order: better first objective first, then lower index.
  struct FrontLess {
    const SearchRanking* r;
    bool operator()(const FrontKey& a, const FrontKey& b) const;
  };

  std::vector<bool> maximize_;
  bool pareto_ = false;
  std::size_t top_ = 5;
  // Top K: a heap whose front is the kept point that ranks last (the one a better point evicts).
  std::vector<std::pair<std::size_t, PointOut>> heap_;
  // Pareto: in front order, the second objective strictly improves from one point to the next,
  // except between points equal in both objectives.
  std::map<FrontKey, PointOut, FrontLess> front_;
};

}  // namespace mls
