// fastpath_opt.cpp — see fastpath_opt.hpp.
#include "fastpath_opt.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "fastpath_compiled.hpp"

namespace mls::fast {

namespace {
const char* op_name(Op op) {
  static const char* const names[] = {
      "movi", "mov",      "add", "sub",   "mul",   "div",   "neg", "pow",  "lt",           "le",   "gt",   "ge",
      "eq",   "ne",       "not", "floor", "ceil",  "round", "abs", "sqrt", "exp",          "ln",   "log2", "log10",
      "powf", "erlang_c", "max", "min",   "clamp", "jz",    "jmp", "mark", "exit_if_zero", "fail", "clear"};
  return names[static_cast<std::size_t>(op)];
}
}  // namespace

namespace {

// Operations whose result depends only on their operands' values, and that write nothing but
// their destination: two with the same operands compute the same bits and raise the same
// floating-point flags and domain errors (the first one raises them first). Not max/min/clamp,
// which also record their arm in their own signature slot.
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

// Operations that can neither fail nor raise a floating-point flag on the finite numbers a
// point holds (an earlier non-finite result has raised its flag already): unread, they can go.
// The arithmetic ones can overflow or divide by zero, which makes the point bail as the
// evaluator stops there, so they stay even unread.
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

constexpr std::uint32_t kNone = ~std::uint32_t{0};

// Calls f on each register an instruction reads.
template <typename F>
void for_each_read(Ins& i, F f) {
  const Operands o = operands(i.op);
  if (o.reads > 0) f(i.a);
  if (o.reads > 1) f(i.b);
  if (o.reads > 2) f(i.c);
}

}  // namespace

OptStats optimise(Compiled& c) {
  OptStats st;
  const std::size_t n = c.code.size();
  st.before = st.after = n;
  if (n == 0) return st;
  // Where each register is written: most once (SSA); a branch's result once per arm.
  std::vector<std::uint32_t> ndefs(c.nregs, 0);
  for (const Ins& i : c.code)
    if (operands(i.op).writes) ++ndefs[i.d];
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> defs_at;  // registers written more than once
  for (std::uint32_t pc = 0; pc < n; ++pc)
    if (operands(c.code[pc].op).writes && ndefs[c.code[pc].d] > 1) defs_at[c.code[pc].d].push_back(pc);
  // Whether register r is written in (from, to): every jump goes forward, so every path from
  // instruction `from` to instruction `to` runs only instructions in between.
  auto written_between = [&](std::uint32_t r, std::uint32_t from, std::uint32_t to) {
    if (ndefs[r] <= 1) return false;
    const auto& at = defs_at[r];
    const auto it = std::upper_bound(at.begin(), at.end(), from);
    return it != at.end() && *it < to;
  };

  // Immediate dominators. The code is a DAG in instruction order (jumps go forward), so one
  // pass in that order sees every predecessor of an instruction before the instruction.
  std::vector<std::uint32_t> idom(n, kNone);
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
  auto edge = [&](std::uint32_t from, std::uint32_t to) {
    if (to >= n) return;
    idom[to] = idom[to] == kNone ? from : intersect(from, idom[to]);
  };
  for (std::uint32_t pc = 0; pc < n; ++pc) {
    if (idom[pc] == kNone) continue;  // unreachable (after a `fail`)
    const Ins& i = c.code[pc];
    if (i.op == Op::jmp) {
      edge(pc, i.d);
    } else if (i.op == Op::jz) {
      edge(pc, pc + 1);
      edge(pc, i.d);
    } else if (i.op != Op::fail) {
      edge(pc, pc + 1);
    }
  }
  // The dominator tree, walked depth first: at each instruction the table holds the
  // computations of the instructions that dominate it (run on every path to it).
  std::vector<std::uint32_t> first_child(n, kNone), next_sibling(n, kNone);
  for (std::uint32_t pc = n; pc-- > 1;)
    if (idom[pc] != kNone) {
      next_sibling[pc] = first_child[idom[pc]];
      first_child[idom[pc]] = pc;
    }
  std::vector<std::uint32_t> rep(c.nregs);
  for (std::uint32_t r = 0; r < c.nregs; ++r) rep[r] = r;
  std::vector<std::uint8_t> removed(n, 0);
  std::unordered_map<Key, std::uint32_t, KeyHash> table;
  std::vector<std::pair<Key, std::uint32_t>> undo;  // (key, its previous instruction or kNone)
  struct Frame {
    std::uint32_t pc;
    std::size_t undo_size;
    std::uint32_t child;
  };
  std::vector<Frame> stack;
  auto visit = [&](std::uint32_t pc) {
    stack.push_back({pc, undo.size(), first_child[pc]});
    Ins& i = c.code[pc];
    for_each_read(i, [&](std::uint32_t& r) { r = rep[r]; });
    if (!operands(i.op).writes || ndefs[i.d] != 1) return;
    if (i.op == Op::mov) {
      // A copy: its readers read the original, unless the original is written again later.
      const auto& at = ndefs[i.a] > 1 ? defs_at[i.a] : std::vector<std::uint32_t>{};
      if (at.empty() || at.back() < pc) {
        rep[i.d] = i.a;
        removed[pc] = 1;
        ++st.copies;
      }
      return;
    }
    if (!pure(i.op)) return;
    Key k{i.op, i.a, operands(i.op).reads > 1 ? i.b : 0, operands(i.op).reads > 2 ? i.c : 0};
    if (commutative(i.op) && k.b < k.a) std::swap(k.a, k.b);
    const auto it = table.find(k);
    if (it != table.end()) {
      const Ins& prev = c.code[it->second];
      bool same = true;
      for_each_read(i, [&](std::uint32_t& r) { same &= !written_between(r, it->second, pc); });
      if (same) {
        rep[i.d] = prev.d;
        removed[pc] = 1;
        ++st.cse;
        return;
      }
      undo.emplace_back(k, it->second);
      it->second = pc;
      return;
    }
    undo.emplace_back(k, kNone);
    table.emplace(k, pc);
  };
  visit(0);
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.child != kNone) {
      const std::uint32_t ch = f.child;
      f.child = next_sibling[ch];
      visit(ch);
      continue;
    }
    while (undo.size() > f.undo_size) {
      const auto& [k, prev] = undo.back();
      if (prev == kNone)
        table.erase(k);
      else
        table[k] = prev;
      undo.pop_back();
    }
    stack.pop_back();
  }
  // Every reader reads the representative (unreachable instructions too, so their masks stay
  // those of registers that are still written).
  for (std::uint32_t pc = 0; pc < n; ++pc)
    if (!removed[pc]) for_each_read(c.code[pc], [&](std::uint32_t& r) { r = rep[r]; });
  auto rep_slot = [&](Slot& s) {
    if (!s.constant) s.reg = rep[s.reg];
  };
  for (Slot& s : c.cells) rep_slot(s);
  for (Slot& s : c.objectives) rep_slot(s);
  for (Slot& s : c.feasibility) rep_slot(s);
  for (auto& [s, idx] : c.asserts) rep_slot(s);
  for (Region& r : c.regions) r.cond = rep[r.cond];

  // Dead code: what nothing reads (no instruction, no output, no branch's condition) and that
  // cannot fail or raise a flag. Backwards, so a chain goes at once.
  std::vector<std::uint32_t> uses(c.nregs, 0);
  for (std::uint32_t pc = 0; pc < n; ++pc)
    if (!removed[pc]) for_each_read(c.code[pc], [&](std::uint32_t& r) { ++uses[r]; });
  auto use_slot = [&](const Slot& s) {
    if (!s.constant) ++uses[s.reg];
  };
  for (const Slot& s : c.cells) use_slot(s);
  for (const Slot& s : c.objectives) use_slot(s);
  for (const Slot& s : c.feasibility) use_slot(s);
  for (const auto& [s, idx] : c.asserts) use_slot(s);
  for (const Region& r : c.regions) ++uses[r.cond];
  for (std::uint32_t pc = n; pc-- > 0;) {
    Ins& i = c.code[pc];
    if (removed[pc] || !operands(i.op).writes || !harmless(i.op) || uses[i.d] != 0) continue;
    removed[pc] = 1;
    ++st.dead;
    for_each_read(i, [&](std::uint32_t& r) { --uses[r]; });
  }

  // Compact: jumps and branch extents move to the next instruction kept.
  std::vector<std::uint32_t> at(n + 1, 0);
  std::vector<Ins> kept;
  kept.reserve(n);
  for (std::uint32_t pc = 0; pc < n; ++pc) {
    at[pc] = static_cast<std::uint32_t>(kept.size());
    if (!removed[pc]) kept.push_back(c.code[pc]);
  }
  at[n] = static_cast<std::uint32_t>(kept.size());
  for (Ins& i : kept)
    if (i.op == Op::jz || i.op == Op::jmp) i.d = at[i.d];
  for (Region& r : c.regions) {
    r.begin = at[r.begin];
    r.end = at[r.end];
  }
  c.code = std::move(kept);
  st.after = c.code.size();
  return st;
}

void dump(const Compiled& c, std::FILE* out) {
  std::vector<int> konst(c.nregs, 0);
  std::vector<double> kval(c.nregs, 0);
  for (const auto& [r, v] : c.constants) {
    konst[r] = 1;
    kval[r] = v;
  }
  auto reg = [&](std::uint32_t r) {
    static char buf[64];
    if (konst[r])
      std::snprintf(buf, sizeof buf, "#%.17g", kval[r]);
    else
      std::snprintf(buf, sizeof buf, "r%u", r);
    return std::string(buf);
  };
  for (std::size_t pc = 0; pc < c.code.size(); ++pc) {
    const Ins& i = c.code[pc];
    const Operands o = operands(i.op);
    std::fprintf(out, "%4zu %-8s", pc, op_name(i.op));
    if (o.writes) std::fprintf(out, " r%u =", i.d);
    if (o.reads > 0) std::fprintf(out, " %s", reg(i.a).c_str());
    if (o.reads > 1) std::fprintf(out, " %s", reg(i.b).c_str());
    if (o.reads > 2) std::fprintf(out, " %s", reg(i.c).c_str());
    if (i.op == Op::jz || i.op == Op::jmp) std::fprintf(out, " -> %u", i.d);
    if (i.op == Op::movi) std::fprintf(out, " %.17g", i.imm);
    if (i.op == Op::mark) std::fprintf(out, " s%u=%g", i.s, i.imm);
    if (i.op == Op::max || i.op == Op::min || i.op == Op::clamp) std::fprintf(out, " s%u", i.s);
    std::fprintf(out, "   mask %llx\n", static_cast<unsigned long long>(i.mask));
  }
  for (const auto& r : c.regions)
    std::fprintf(out, "region [%zu,%zu) cond r%u slot %u mask %llx\n", r.begin, r.end, r.cond, r.slot,
                 static_cast<unsigned long long>(r.mask));
  auto slots = [&](const char* what, const std::vector<Slot>& v) {
    for (const auto& s : v)
      if (s.constant)
        std::fprintf(out, "%s #%.17g\n", what, s.value);
      else
        std::fprintf(out, "%s %s\n", what, reg(s.reg).c_str());
  };
  slots("cell", c.cells);
  slots("objective", c.objectives);
  slots("feasibility", c.feasibility);
}

}  // namespace mls::fast
