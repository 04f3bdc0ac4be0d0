// search_group.cpp — the group key of `top K per EXPR` and one SearchRanking per group; the
// groups' rows are put together in a deterministic order that sharding does not change.
#include "search_group.hpp"

#include <algorithm>
#include <cstdio>

#include "interpreter/results/run_result.hpp"

namespace mls {

const Expr* search_group(const Stmt& s) {
  if (s.kind != SK::search) return nullptr;
  for (const auto& item : s.body)
    if (item.kind == BK::top && !item.exprs.empty()) return item.exprs[0].get();
  return nullptr;
}

std::optional<std::size_t> search_group_key(const Stmt& s) {
  const Expr* g = search_group(s);
  if (!g || g->kind != EK::name || g->ref.kind != RefKind::local) return std::nullopt;
  std::size_t k = 0;
  for (const auto& b : s.bindings)
    for (const int slot : b.slots) {
      if (slot >= 0 && static_cast<std::uint32_t>(slot) == g->ref.index) return k;
      ++k;
    }
  return std::nullopt;
}

std::string group_identity(const Value& v) {
  switch (v.k) {
    case Value::K::str: return "s:" + v.str();
    case Value::K::boolean: return v.b ? "b:1" : "b:0";
    case Value::K::record: return "r:" + record_label(v);
    case Value::K::num: {
      // Whole numbers (the checker and the runner see to it) are exact in binary64 up to 2^53.
      char buf[40];
      std::snprintf(buf, sizeof buf, "n:%.17g", v.n.d == 0 ? 0.0 : v.n.d);
      return buf;
    }
    case Value::K::list: break;
  }
  return "l:";
}

GroupedRanking::GroupedRanking(std::vector<bool> maximize, bool pareto, std::size_t top, bool grouped)
    : maximize_(std::move(maximize)), pareto_(pareto), grouped_(grouped), top_(top) {
  if (!grouped_) groups_.push_back(std::make_unique<SearchRanking>(maximize_, pareto_, top_));
}

void GroupedRanking::offer(const std::string& group, std::size_t index, PointOut o) {
  if (!grouped_) {
    groups_[0]->offer(index, std::move(o));
    return;
  }
  auto [it, fresh] = index_.emplace(group, groups_.size());
  if (fresh) groups_.push_back(std::make_unique<SearchRanking>(maximize_, pareto_, top_));
  groups_[it->second]->offer(index, std::move(o));
}

std::vector<std::pair<std::size_t, PointOut>> GroupedRanking::take_ranked() {
  if (!grouped_) return groups_[0]->take_ranked();
  std::vector<std::vector<std::pair<std::size_t, PointOut>>> each;
  for (auto& g : groups_) each.push_back(g->take_ranked());
  groups_.clear();
  index_.clear();
  // A group's earliest kept point: its place in the output (every group keeps one at least).
  auto earliest = [](const std::vector<std::pair<std::size_t, PointOut>>& rows) {
    std::size_t m = SIZE_MAX;
    for (const auto& r : rows) m = std::min(m, r.first);
    return m;
  };
  std::vector<std::pair<std::size_t, std::size_t>> order;  // (earliest point, group)
  for (std::size_t g = 0; g < each.size(); ++g) order.emplace_back(earliest(each[g]), g);
  std::sort(order.begin(), order.end());
  std::vector<std::pair<std::size_t, PointOut>> out;
  for (const auto& [first, g] : order)
    for (auto& r : each[g]) out.push_back(std::move(r));
  return out;
}

std::vector<std::pair<std::size_t, PointOut>> GroupedRanking::take_in_order() {
  return in_enumeration_order(take_ranked());
}

}  // namespace mls
