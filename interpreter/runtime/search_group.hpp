// search_group.hpp — `top K per EXPR` (issue 36): a search's best K (or Pareto front) of each
// group, a group being one value of EXPR. How the group key is read (a sweep variable's value
// from the point's key, else EXPR evaluated with the objectives), and one ranking per group.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "search_rank.hpp"

namespace mls {

// The group key of a search's `top K per EXPR`, or null (no `per`, or not a search).
[[nodiscard]] const Expr* search_group(const Stmt& s);
// When EXPR is a sweep variable itself (`per acc`): its position in the point's key. Both
// engines then read the group from the key (a record there keeps its global name); any other
// EXPR is evaluated by the engine and appended to the point's objectives, after the real ones.
[[nodiscard]] std::optional<std::size_t> search_group_key(const Stmt& s);

// A group key's identity: equal keys (the same record label, string, bool or number) are one
// group. Records are known by their label (record_label): rows keyed by them print it.
[[nodiscard]] std::string group_identity(const Value& v);

// The best points of each group, as SearchRanking keeps them for the whole search: memory
// is K points per group (Pareto: each group's front). Without groups, one ranking and no
// per-point lookup. Output: groups in the order of the earliest point among their kept rows
// (so for `per acc` with acc the first sweep variable, acc's order), each group's rows best
// first. A group's kept rows are the same whether its points were offered by one run or by the
// parts of a sharded one, so this order is too: a merge prints the unsharded bytes.
class GroupedRanking {
 public:
  GroupedRanking(std::vector<bool> maximize, bool pareto, std::size_t top, bool grouped);
  // `group`: group_identity of the point's group key (ignored without groups).
  void offer(const std::string& group, std::size_t index, PointOut o);
  [[nodiscard]] std::vector<std::pair<std::size_t, PointOut>> take_ranked();
  [[nodiscard]] std::vector<std::pair<std::size_t, PointOut>> take_in_order();
  [[nodiscard]] std::size_t groups() const { return groups_.size(); }

 private:
  std::vector<bool> maximize_;
  bool pareto_ = false, grouped_ = false;
  std::size_t top_ = 5;
  std::unordered_map<std::string, std::size_t> index_;  // group identity -> groups_
  std::vector<std::unique_ptr<SearchRanking>> groups_;  // in first-offered order
};

}  // namespace mls
