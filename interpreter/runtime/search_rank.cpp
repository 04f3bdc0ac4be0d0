// search_rank.cpp — the top K as a heap (the worst kept point on top, evicted by a better one) and
// the Pareto front as a map ordered by the first objective, where a new point is checked
// against one neighbour and removes a contiguous run of the points it dominates.
#include "search_rank.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>

namespace mls {

SearchRanking::SearchRanking(std::vector<bool> maximize, bool pareto, std::size_t top)
    : maximize_(std::move(maximize)), pareto_(pareto), top_(top), front_(FrontLess{this}) {}

int SearchRanking::goodness(const Num& a, const Num& b, std::size_t obj) const {
  const int c = compare(a, b);
  return maximize_[obj] ? c : -c;
}

bool SearchRanking::ranks_before(const std::pair<std::size_t, PointOut>& a,
                                 const std::pair<std::size_t, PointOut>& b) const {
  const int g = goodness(a.second.objectives[0].n, b.second.objectives[0].n, 0);
  return g > 0 || (g == 0 && a.first < b.first);
}

bool SearchRanking::FrontLess::operator()(const FrontKey& a, const FrontKey& b) const {
  const int g = r->goodness(a.x, b.x, 0);
  return g > 0 || (g == 0 && a.index < b.index);
}

void SearchRanking::offer(std::size_t index, PointOut o) {
  if (pareto_) {
    offer_front(index, std::move(o));
    return;
  }
  auto later = [this](const auto& a, const auto& b) { return ranks_before(a, b); };
  std::pair<std::size_t, PointOut> e{index, std::move(o)};
  if (heap_.size() < top_) {
    heap_.push_back(std::move(e));
    std::push_heap(heap_.begin(), heap_.end(), later);
    return;
  }
  // A later point must be strictly better than the last kept one to take its place.
  if (!ranks_before(e, heap_.front())) return;
  std::pop_heap(heap_.begin(), heap_.end(), later);
  heap_.back() = std::move(e);
  std::push_heap(heap_.begin(), heap_.end(), later);
}

void SearchRanking::offer_front(std::size_t index, PointOut o) {
  FrontKey k{o.objectives[0].n, o.objectives[1].n, index};
  // The first kept point worse than o in the first objective; the points before it are at least
  // as good there, and the last of them has the best second objective among them.
  const auto worse = front_.lower_bound(FrontKey{k.x, k.y, SIZE_MAX});
  auto first_dominated = worse;
  if (worse != front_.begin()) {
    const auto last = std::prev(worse);
    const int gx = goodness(last->first.x, k.x, 0), gy = goodness(last->first.y, k.y, 1);
    if (gy > 0 || (gy == 0 && gx > 0)) return;  // o is dominated
    if (gy == 0) {                              // equal in both objectives: kept beside it
      front_.emplace(std::move(k), std::move(o));
      return;
    }
    // o is better in the second objective: the points equal to it in the first are dominated.
    if (gx == 0) first_dominated = front_.lower_bound(FrontKey{k.x, k.y, 0});
  }
  // Past `worse`, the second objective improves point by point: o dominates those up to the
  // first that is better than o there.
  auto end = worse;
  while (end != front_.end() && goodness(end->first.y, k.y, 1) <= 0) ++end;
  front_.erase(first_dominated, end);
  front_.emplace(std::move(k), std::move(o));
}

std::vector<std::pair<std::size_t, PointOut>> SearchRanking::take_ranked() {
  std::vector<std::pair<std::size_t, PointOut>> out;
  if (pareto_) {
    out.reserve(front_.size());
    for (auto& [k, o] : front_) out.emplace_back(k.index, std::move(o));
    front_.clear();
    return out;
  }
  std::sort_heap(heap_.begin(), heap_.end(), [this](const auto& a, const auto& b) { return ranks_before(a, b); });
  out.swap(heap_);
  return out;
}

std::vector<std::pair<std::size_t, PointOut>> in_enumeration_order(
    std::vector<std::pair<std::size_t, PointOut>> points) {
  std::sort(points.begin(), points.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return points;
}

std::vector<std::pair<std::size_t, PointOut>> SearchRanking::take_in_order() {
  return in_enumeration_order(take_ranked());
}

}  // namespace mls
