// fastpath_facts.cpp — what the optimiser's passes share (fastpath_passes.hpp): the classes of
// operations, the facts of a round (def sites, dominators, predecessors), and applying what the
// passes decided (representatives read, removed instructions compacted away).
#include <algorithm>

#include "fastpath_passes.hpp"

namespace mls::fast::passes {

// Two with the same operands compute the same bits and raise the same floating-point flags and
// domain errors (the first one raises them first).
bool pure(Op op) {
  switch (op) {
    case Op::add:
    case Op::sub:
    case Op::mul:
    case Op::div:
    case Op::neg:
    case Op::pow:
    case Op::lt:
    case Op::le:
    case Op::gt:
    case Op::ge:
    case Op::eq:
    case Op::ne:
    case Op::not_:
    case Op::floor:
    case Op::ceil:
    case Op::round:
    case Op::abs:
    case Op::sqrt:
    case Op::exp:
    case Op::ln:
    case Op::log2:
    case Op::log10:
    case Op::powf:
    case Op::erlang_c: return true;
    default: return false;
  }
}

// On the finite numbers a point holds (an earlier non-finite result has raised its flag
// already): unread, they can go. The arithmetic ones can overflow or divide by zero, which
// makes the point bail as the evaluator stops there, so they stay even unread (unless their
// ranges prove otherwise: cannot_fail).
bool harmless(Op op) {
  switch (op) {
    case Op::movi:
    case Op::mov:
    case Op::lt:
    case Op::le:
    case Op::gt:
    case Op::ge:
    case Op::eq:
    case Op::ne:
    case Op::not_:
    case Op::neg:
    case Op::abs:
    case Op::floor:
    case Op::ceil:
    case Op::round: return true;
    default: return false;
  }
}

bool commutative(Op op) { return op == Op::add || op == Op::mul || op == Op::eq || op == Op::ne; }

bool Facts::written_between(std::uint32_t r, std::uint32_t from, std::uint32_t to) const {
  if (writers(r) <= 1) return false;
  const auto& at = sites(r);
  const auto it = std::upper_bound(at.begin(), at.end(), from);
  return it != at.end() && *it < to;
}

namespace {

// Calls edge(to) for each instruction control can reach from instruction `pc` next (a target
// at the end, n, included: the caller skips it).
template <typename Edge>
void successors(const Ins& i, std::uint32_t pc, Edge edge) {
  if (i.op == Op::jmp) {
    edge(i.d);
  } else if (i.op == Op::jz) {
    edge(pc + 1);
    edge(i.d);
  } else if (i.op != Op::fail) {
    edge(pc + 1);
  }
}

// Where each register is written: most once (SSA); a branch's result once per arm.
void def_sites(const Compiled& c, Facts& f) {
  f.ndefs.assign(c.nregs, 0);
  for (const Ins& i : c.code)
    if (operands(i.op).writes) ++f.ndefs[i.d];
  for (std::uint32_t pc = 0; pc < f.n; ++pc)
    if (operands(c.code[pc].op).writes && f.ndefs[c.code[pc].d] > 1) f.defs_at[c.code[pc].d].push_back(pc);
}

// Immediate dominators. The code is a DAG in instruction order, so one pass in that order sees
// every predecessor of an instruction before the instruction. Unreachable ones (after a
// `fail`) keep kNone.
void dominators(const Compiled& c, Facts& f) {
  std::vector<std::uint32_t>& idom = f.idom;
  idom.assign(f.n, kNone);
  if (f.n == 0) return;
  idom[0] = 0;
  auto intersect = [&](std::uint32_t x, std::uint32_t y) {
    while (x != y) {
      if (x > y)
        x = idom[x];
      else
        y = idom[y];
    }
    return x;
  };
  for (std::uint32_t pc = 0; pc < f.n; ++pc) {
    if (idom[pc] == kNone) continue;
    successors(c.code[pc], pc, [&](std::uint32_t to) {
      if (to < f.n) idom[to] = idom[to] == kNone ? pc : intersect(pc, idom[to]);
    });
  }
  // The dominator tree, children in instruction order (share_dominating walks it).
  f.first_child.assign(f.n, kNone);
  f.next_sibling.assign(f.n, kNone);
  for (std::uint32_t pc = static_cast<std::uint32_t>(f.n); pc-- > 1;)
    if (idom[pc] != kNone) {
      f.next_sibling[pc] = f.first_child[idom[pc]];
      f.first_child[idom[pc]] = pc;
    }
}

// Each reachable instruction's predecessors: how many, and the last one (what a branch's arm
// knows comes from the jz that is its only way in).
void predecessors(const Compiled& c, Facts& f) {
  f.npred.assign(f.n, 0);
  f.pred.assign(f.n, kNone);
  for (std::uint32_t pc = 0; pc < f.n; ++pc) {
    if (!f.reachable(pc)) continue;
    successors(c.code[pc], pc, [&](std::uint32_t to) {
      if (to >= f.n) return;
      ++f.npred[to];
      f.pred[to] = pc;
    });
  }
}

}  // namespace

Facts facts_of(const Compiled& c) {
  Facts f;
  f.n = c.code.size();
  def_sites(c, f);
  dominators(c, f);
  predecessors(c, f);
  return f;
}

Rewrite::Rewrite(const Compiled& c) : rep(c.nregs), removed(c.code.size(), 0) {
  for (std::uint32_t r = 0; r < c.nregs; ++r) rep[r] = r;
}

void read_representatives(Compiled& c, const Rewrite& rw) {
  for (std::size_t pc = 0; pc < c.code.size(); ++pc)
    if (!rw.removed[pc]) for_each_read(c.code[pc], [&](std::uint32_t& r) { r = rw.rep[r]; });
  auto rep_slot = [&](Slot& s) {
    if (!s.constant) s.reg = rw.rep[s.reg];
  };
  for (Slot& s : c.cells) rep_slot(s);
  for (Slot& s : c.objectives) rep_slot(s);
  for (Slot& s : c.feasibility) rep_slot(s);
  for (auto& [s, idx] : c.asserts) rep_slot(s);
  for (Region& r : c.regions) r.cond = rw.rep[r.cond];
}

bool compact(Compiled& c, const Rewrite& rw) {
  const std::size_t n = c.code.size();
  std::vector<std::uint32_t> at(n + 1, 0);
  std::vector<Ins> kept;
  kept.reserve(n);
  for (std::size_t pc = 0; pc < n; ++pc) {
    at[pc] = static_cast<std::uint32_t>(kept.size());
    if (!rw.removed[pc]) kept.push_back(c.code[pc]);
  }
  at[n] = static_cast<std::uint32_t>(kept.size());
  for (Ins& i : kept)
    if (i.op == Op::jz || i.op == Op::jmp) i.d = at[i.d];
  for (Region& r : c.regions) {
    r.begin = at[r.begin];
    r.end = at[r.end];
  }
  c.code = std::move(kept);
  return c.code.size() != n;
}

}  // namespace mls::fast::passes
