// diff_asserts.cpp — asserts that hold on one side of a diff and fail on the other. A check that
// flips with a convention is a difference a reader must see, even when no shown value moved.
#include <fmt/format.h>

#include <unordered_map>

#include "diff.hpp"

namespace mls {

namespace {

// One assert of one side: its outcomes folded (a sweep's assert reports one per failing point).
struct Folded {
  std::string text, message;
  AssertSide side;
};

std::vector<Folded> fold(const DiffSide& s) {
  std::vector<Folded> out;
  // Keyed by where the assert is written: every outcome of one statement folds into one.
  std::unordered_map<std::string, std::size_t> at;
  for (const AssertOutcome& a : s.run->asserts) {
    const std::string where = s.scope.sources.where_col(a.span);
    auto [it, fresh] = at.emplace(where, out.size());
    if (fresh) out.push_back({a.text, a.message, {true, where, "", 0}});
    Folded& f = out[it->second];
    if (a.ok) continue;
    if (f.side.ok) {  // the first failure describes it
      f.side.detail = a.detail;
      f.side.operands = a.operands;
    }
    f.side.ok = false;
    ++f.side.failures;
  }
  return out;
}

std::string outcome_text(const std::optional<AssertSide>& s, bool same_file) {
  if (!s) return same_file ? "holds at every point" : "no failure (absent, or holds at every point)";
  if (s->ok) return "holds";
  std::string t = s->failures > 1 ? fmt::format("fails at {} points", s->failures) : std::string("fails");
  if (s->detail.empty()) return t;
  // A comparison's detail names its operands "left"/"right": not the sides of the diff.
  return t + (s->operands ? " (operands " : " (") + s->detail + ")";
}

std::string json_side(const std::optional<AssertSide>& s) {
  if (!s) return "null";
  return "{\"ok\": " + std::string(s->ok ? "true" : "false") + ", \"at\": " + json_string(s->at) +
         ", \"detail\": " + json_string(s->detail) + ", \"failures\": " + std::to_string(s->failures) + "}";
}

}  // namespace

void diff_asserts(const DiffSide& left, const DiffSide& right, DiffReport& d) {
  const std::vector<Folded> l = fold(left), r = fold(right);
  // Matched by text and occurrence, as shown values are by label: two files put the same
  // assert on different lines.
  std::unordered_map<std::string, std::vector<std::size_t>> by_text;
  for (std::size_t j = 0; j < r.size(); ++j) by_text[r[j].text].push_back(j);
  std::unordered_map<std::string, std::size_t> taken;
  std::vector<bool> used(r.size(), false);
  auto one_sided = [&](const Folded& f, bool is_left) {
    if (f.side.ok) return;  // holds here, and no failure there: nothing differs
    AssertDiff a{f.text, f.message, std::nullopt, std::nullopt};
    (is_left ? a.left : a.right) = f.side;
    d.asserts.push_back(std::move(a));
  };
  for (const Folded& f : l) {
    auto it = by_text.find(f.text);
    std::size_t& k = taken[f.text];
    if (it == by_text.end() || k >= it->second.size()) {
      one_sided(f, true);
      continue;
    }
    const Folded& g = r[it->second[k]];
    used[it->second[k]] = true;
    ++k;
    if (f.side.ok != g.side.ok)
      d.asserts.push_back({f.text, f.message, f.side, g.side});
    else if (!f.side.ok)
      ++d.asserts_failed_both;
  }
  for (std::size_t j = 0; j < r.size(); ++j)
    if (!used[j]) one_sided(r[j], false);
}

std::string format_assert_diffs_text(const DiffReport& d) {
  if (d.asserts.empty()) return "";
  const bool same_file = d.left_file == d.right_file;
  std::string out = fmt::format("\nasserts whose outcome differs ({}):\n", d.asserts.size());
  for (const AssertDiff& a : d.asserts) {
    const AssertSide& any = a.left ? *a.left : *a.right;
    out += "  assert " + a.text + (a.message.empty() ? "" : " — " + a.message) + "  (" + any.at + ")\n";
    out += "    left:  " + outcome_text(a.left, same_file) + "\n";
    out += "    right: " + outcome_text(a.right, same_file) + "\n";
  }
  return out;
}

std::string format_assert_diffs_json(const DiffReport& d) {
  std::string out = "[";
  for (std::size_t i = 0; i < d.asserts.size(); ++i) {
    const AssertDiff& a = d.asserts[i];
    out += std::string(i ? "," : "") + "\n    {\"text\": " + json_string(a.text) +
           ", \"message\": " + json_string(a.message) + ", \"left\": " + json_side(a.left) +
           ", \"right\": " + json_side(a.right) + "}";
  }
  return out + (d.asserts.empty() ? "]" : "\n  ]");
}

}  // namespace mls
