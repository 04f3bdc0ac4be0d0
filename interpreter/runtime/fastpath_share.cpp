// fastpath_share.cpp — the optimiser's common subexpressions and copies (fastpath_passes.hpp):
// a computation an instruction that dominates it already made is read from that one.
#include <utility>

#include "fastpath_passes.hpp"

namespace mls::fast::passes {

namespace {

// An operation and its operands (sorted, where the operation commutes).
struct Key {
  Op op;
  std::uint32_t a, b, c;
  bool operator==(const Key&) const = default;
};
struct KeyHash {
  std::size_t operator()(const Key& k) const {
    std::uint64_t h = static_cast<std::uint64_t>(k.op) * 0x9E3779B97F4A7C15ull;
    for (std::uint32_t x : {k.a, k.b, k.c}) h = (h ^ x) * 0x100000001B3ull + (h >> 29);
    return static_cast<std::size_t>(h);
  }
};

// The walk down the dominator tree: at each instruction the table holds the computations of
// the instructions that dominate it; leaving an instruction's subtree undoes what it added.
class Sharing {
 public:
  Sharing(Compiled& c, const Facts& f, Rewrite& rw, OptStats& st) : c_(c), f_(f), rw_(rw), st_(st) {}

  void walk() {
    visit(0);
    while (!stack_.empty()) {
      Frame& fr = stack_.back();
      if (fr.child != kNone) {
        const std::uint32_t ch = fr.child;
        fr.child = f_.next_sibling[ch];
        visit(ch);
        continue;
      }
      while (undo_.size() > fr.undo_size) {
        const auto& [k, prev] = undo_.back();
        if (prev == kNone)
          table_.erase(k);
        else
          table_[k] = prev;
        undo_.pop_back();
      }
      stack_.pop_back();
    }
  }

 private:
  void visit(std::uint32_t pc) {
    stack_.push_back({pc, undo_.size(), f_.first_child[pc]});
    Ins& i = c_.code[pc];
    for_each_read(i, [&](std::uint32_t& r) { r = rw_.rep[r]; });
    if (!operands(i.op).writes || f_.ndefs[i.d] != 1) return;
    if (i.op == Op::mov)
      copy(pc, i);
    else if (pure(i.op))
      share(pc, i);
  }

  // A copy: its readers read the original, unless the original is written again later.
  void copy(std::uint32_t pc, const Ins& i) {
    if (f_.writers(i.a) > 1 && f_.sites(i.a).back() >= pc) return;
    rw_.rep[i.d] = i.a;
    rw_.removed[pc] = 1;
    ++st_.copies;
  }

  // A computation the table holds already, no operand written since: read from there.
  // Otherwise this instruction holds it for what it dominates.
  void share(std::uint32_t pc, const Ins& i) {
    Key k{i.op, i.a, operands(i.op).reads > 1 ? i.b : 0, operands(i.op).reads > 2 ? i.c : 0};
    if (commutative(i.op) && k.b < k.a) std::swap(k.a, k.b);
    const auto it = table_.find(k);
    if (it == table_.end()) {
      undo_.emplace_back(k, kNone);
      table_.emplace(k, pc);
      return;
    }
    bool same = true;
    Ins reads = i;
    for_each_read(reads, [&](std::uint32_t& r) { same &= !f_.written_between(r, it->second, pc); });
    if (same) {
      rw_.rep[i.d] = c_.code[it->second].d;
      rw_.removed[pc] = 1;
      ++st_.cse;
      return;
    }
    undo_.emplace_back(k, it->second);
    it->second = pc;
  }

  struct Frame {
    std::uint32_t pc;
    std::size_t undo_size;
    std::uint32_t child;
  };
  Compiled& c_;
  const Facts& f_;
  Rewrite& rw_;
  OptStats& st_;
  std::unordered_map<Key, std::uint32_t, KeyHash> table_;
  std::vector<std::pair<Key, std::uint32_t>> undo_;  // (key, its previous instruction or kNone)
  std::vector<Frame> stack_;
};

}  // namespace

void share_dominating(Compiled& c, const Facts& f, Rewrite& rw, OptStats& st) {
  if (f.n == 0) return;
  Sharing(c, f, rw, st).walk();
}

}  // namespace mls::fast::passes
