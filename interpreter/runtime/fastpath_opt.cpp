// fastpath_opt.cpp — the optimiser (fastpath_opt.hpp) as rounds of passes (fastpath_passes.hpp),
// the ranges of its inputs, and the register code as text.
#include "fastpath_opt.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>
#include <vector>

#include "fastpath_compiled.hpp"
#include "fastpath_passes.hpp"

namespace mls::fast {

namespace {
const char* op_name(Op op) {
  static const char* const names[] = {
      "movi", "mov",      "add", "sub",   "mul",   "div",   "neg", "pow",  "lt",           "le",   "gt",   "ge",
      "eq",   "ne",       "not", "floor", "ceil",  "round", "abs", "sqrt", "exp",          "ln",   "log2", "log10",
      "powf", "erlang_c", "max", "min",   "clamp", "jz",    "jmp", "mark", "exit_if_zero", "fail", "clear"};
  return names[static_cast<std::size_t>(op)];
}

// The bounds of each number a binding's leaf register takes over its domain.
void leaf_ranges(const CVal& shape, const Value& v, std::unordered_map<std::uint32_t, InputRange>& out,
                 std::unordered_map<std::uint32_t, bool>& unknown) {
  if (shape.scalar()) {
    if (shape.cst) return;
    double x = 0;
    if (shape.k == CVal::K::num && v.k == Value::K::num)
      x = v.n.d;
    else if (shape.k == CVal::K::boolean && v.k == Value::K::boolean)
      x = v.b ? 1 : 0;
    else {
      unknown[shape.reg] = true;
      return;
    }
    if (!std::isfinite(x)) unknown[shape.reg] = true;
    const auto [it, fresh] = out.try_emplace(shape.reg, InputRange{shape.reg, x, x, !std::signbit(x)});
    if (!fresh) {
      it->second.lo = std::min(it->second.lo, x);
      it->second.hi = std::max(it->second.hi, x);
      it->second.nonneg &= !std::signbit(x);
    }
    return;
  }
  if (shape.k != CVal::K::record || v.k != Value::K::record) return;
  for (const auto& [name, f] : shape.fields)
    if (const Value* fv = v.rec().get(name)) leaf_ranges(f, *fv, out, unknown);
}

}  // namespace

std::vector<InputRange> input_ranges(const Compiled& c, const std::vector<std::vector<std::vector<Value>>>& domains) {
  std::unordered_map<std::uint32_t, InputRange> found;
  std::unordered_map<std::uint32_t, bool> unknown;
  std::size_t k0 = 0;
  for (const auto& d : domains) {
    const std::size_t width = d.empty() ? 0 : d.front().size();
    for (const auto& tuple : d)
      for (std::size_t i = 0; i < tuple.size() && k0 + i < c.binding_shapes.size(); ++i)
        leaf_ranges(c.binding_shapes[k0 + i], tuple[i], found, unknown);
    k0 += width;
  }
  std::vector<InputRange> out;
  for (const auto& [reg, r] : found)
    if (!unknown.count(reg)) out.push_back(r);
  std::sort(out.begin(), out.end(), [](const InputRange& x, const InputRange& y) { return x.reg < y.reg; });
  return out;
}

namespace {

// One round of the passes (fastpath_passes.hpp) over the facts of the code as the round finds
// it; false when it changed nothing.
bool optimise_round(Compiled& c, const std::vector<InputRange>& inputs, OptStats& st) {
  if (c.code.empty()) return false;
  const passes::Facts facts = passes::facts_of(c);
  passes::Rewrite rw(c);
  passes::share_dominating(c, facts, rw, st);
  const std::vector<passes::Range> ranges = passes::fold_ranges(c, facts, rw, inputs, st);
  passes::read_representatives(c, rw);
  passes::drop_dead(c, ranges, rw, st);
  return passes::compact(c, rw);
}

}  // namespace

OptStats optimise(Compiled& c, const std::vector<InputRange>& inputs) {
  OptStats st;
  st.before = c.code.size();
  // A round's copies and folds make operations the same that were not (a branch's result
  // that is one of its operands, read by a `not` beside another): a few rounds reach them.
  for (int round = 0; round < 4 && optimise_round(c, inputs, st); ++round) {
  }
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
