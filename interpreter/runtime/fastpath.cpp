// fastpath.cpp — compiling a checked sweep body to binary64 register code (fastpath_run.cpp runs it).
// Every operation mirrors the evaluator's binary64 behaviour exactly (same IEEE operations in
// the same order, same error conditions), which the sweep runner verifies per signature.
#include "fastpath.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <unordered_map>

#include "fastpath_compiled.hpp"
#include "fastpath_opt.hpp"
#include "grammar/symbols.hpp"
#include "interpreter/semantics/natives.hpp"
#include "native_eval.hpp"
#include "search_group.hpp"

namespace mls::fast {

namespace {

struct Unsupported {
  std::string why;
};

CVal constant(CVal::K k, double v) {
  CVal c;
  c.k = k;
  c.cst = true;
  c.v = v;
  return c;
}

// Whether every scalar of a value is known while compiling (the same at every point).
bool all_constant(const CVal& c) {
  if (c.scalar()) return c.cst;
  for (const auto& f : c.fields)
    if (!all_constant(f.second)) return false;
  for (const auto& x : c.items)
    if (!all_constant(x)) return false;
  return true;
}

}  // namespace

namespace {

// Whether 1 / x is exact: x is a power of two whose reciprocal is a binary64 number.
bool exact_reciprocal(double x) {
  int e = 0;
  return x != 0 && std::isfinite(x) && std::fabs(std::frexp(x, &e)) == 0.5 && std::isfinite(1 / x);
}

class Compiler {
 public:
  Compiler(Program& p, const Config& cfg, Evaluator& ev, Compiled& out) : p_(p), cfg_(cfg), ev_(ev), c_(out) {}

  std::uint32_t str_id(const std::string& s) {
    auto it = c_.string_ids.find(s);
    if (it != c_.string_ids.end()) return it->second;
    const auto id = static_cast<std::uint32_t>(c_.strings.size());
    c_.strings.push_back(s);
    c_.string_ids.emplace(s, id);
    return id;
  }

  std::uint32_t new_reg() { return c_.nregs++; }
  std::uint32_t new_slot() { return c_.nslots++; }
  std::size_t emit(Ins i) {
    // Inlining can multiply code (g(x) = f(x) + f(x), nested): past the budget the sweep runs
    // on the evaluator instead, whose step budget then stops a body that is really that big.
    if (c_.code.size() >= kMaxInstructions)
      throw Unsupported{"a body of more than " + std::to_string(kMaxInstructions) + " instructions"};
    c_.code.push_back(i);
    return c_.code.size() - 1;
  }

  // A constant operand reads a register that holds it from the start (Compiled::constants),
  // one per distinct value: no instruction loads it, so no schedule re-runs one.
  std::uint32_t reg_of(const CVal& x) {
    if (!x.cst) return x.reg;
    const auto [it, fresh] = const_regs_.try_emplace(std::bit_cast<std::uint64_t>(x.v), 0);
    if (fresh) {
      it->second = new_reg();
      c_.constants.emplace_back(it->second, x.v);
    }
    return it->second;
  }

  // A compile-time constant from an evaluated Value (globals, domain tuples' shapes).
  CVal from_value(const Value& v) {
    switch (v.k) {
      case Value::K::num: return constant(CVal::K::num, v.n.d);
      case Value::K::boolean: return constant(CVal::K::boolean, v.b ? 1 : 0);
      case Value::K::str: return constant(CVal::K::str, str_id(v.str()));
      case Value::K::record: {
        CVal c;
        c.k = CVal::K::record;
        for (const auto& [n, f] : v.rec().fields) c.fields.emplace_back(n, from_value(f));
        return c;
      }
      case Value::K::list: {
        CVal c;
        c.k = CVal::K::list;
        for (const auto& x : v.list().items) c.items.push_back(from_value(x));
        return c;
      }
    }
    return {};
  }

  // Registers shaped like `v` (a binding variable: its leaves change per point).
  CVal shape_of(const Value& v) {
    switch (v.k) {
      case Value::K::num:
      case Value::K::boolean:
      case Value::K::str: {
        CVal c;
        c.k = v.k == Value::K::num ? CVal::K::num : v.k == Value::K::boolean ? CVal::K::boolean : CVal::K::str;
        c.reg = new_reg();
        return c;
      }
      case Value::K::record: {
        CVal c;
        c.k = CVal::K::record;
        for (const auto& [n, f] : v.rec().fields) c.fields.emplace_back(n, shape_of(f));
        return c;
      }
      case Value::K::list: throw Unsupported{"a sweep variable holds a list"};
    }
    return {};
  }

  // Registers shaped like an arm's result, so both arms of a branch can write them.
  CVal alloc_like(const CVal& x) {
    CVal c;
    c.k = x.k;
    if (x.scalar()) {
      c.reg = new_reg();
      return c;
    }
    for (const auto& [n, f] : x.fields) c.fields.emplace_back(n, alloc_like(f));
    for (const auto& it : x.items) c.items.push_back(alloc_like(it));
    return c;
  }

  void store(const CVal& dst, const CVal& src) {
    if (dst.scalar()) {
      if (src.cst)
        emit(Ins{Op::movi, dst.reg, 0, 0, 0, 0, src.v});
      else
        emit(Ins{Op::mov, dst.reg, src.reg});
      return;
    }
    if (dst.k == CVal::K::record) {
      if (src.fields.size() != dst.fields.size()) throw Unsupported{"branches return records of different shapes"};
      for (const auto& [n, f] : dst.fields) {
        const CVal* s = src.field(n);
        if (!s) throw Unsupported{"branches return records of different shapes"};
        store(f, *s);
      }
      return;
    }
    if (src.items.size() != dst.items.size()) throw Unsupported{"branches return lists of different lengths"};
    for (std::size_t i = 0; i < dst.items.size(); ++i) store(dst.items[i], src.items[i]);
  }

  void patch(std::size_t at) { c_.code[at].d = static_cast<std::uint32_t>(c_.code.size()); }

  CVal binary_op(Op op, const CVal& a, const CVal& b, CVal::K k) {
    const std::uint32_t d = new_reg();
    emit(Ins{op, d, reg_of(a), reg_of(b)});
    CVal r;
    r.k = k;
    r.reg = d;
    return r;
  }

  CVal unary_op(Op op, const CVal& a, CVal::K k = CVal::K::num) {
    const std::uint32_t d = new_reg();
    emit(Ins{op, d, reg_of(a)});
    CVal r;
    r.k = k;
    r.reg = d;
    return r;
  }

  CVal expr(const Expr& e, std::vector<CVal>& env) {
    // Constant folding emits nothing, so code size alone does not bound compile time.
    if (++compile_steps_ > kMaxCompileSteps)
      throw Unsupported{"a body that inlines to more than " + std::to_string(kMaxCompileSteps) + " steps"};
    if (e.atom >= 0 && !cfg_.literal_overrides.empty()) {
      const auto it = cfg_.literal_overrides.find(e.atom);
      if (it != cfg_.literal_overrides.end()) return from_value(ev_.literal_override(it->second));
    }
    switch (e.kind) {
      case EK::num: return constant(CVal::K::num, e.si.d);
      case EK::uncertain:
        // Sweeps run at nominal inputs (docs/uncertainty.md); a sampling evaluator never compiles.
        if (ev_.draws) throw Unsupported{"an uncertain literal while sampling"};
        return constant(CVal::K::num, e.si.d);
      case EK::boolean: return constant(CVal::K::boolean, e.bval ? 1 : 0);
      case EK::str: return constant(CVal::K::str, str_id(e.str));
      case EK::name:
        if (e.ref.kind == RefKind::local) return env[e.ref.index];
        if (e.ref.kind == RefKind::global) return global(e.ref.index);
        throw Unsupported{"a name of an unsupported kind"};
      case EK::unary: {
        CVal a = expr(*e.kids[0], env);
        if (e.op == mls::Op::not_)
          return a.cst ? constant(CVal::K::boolean, a.v == 0 ? 1 : 0) : unary_op(Op::not_, a, CVal::K::boolean);
        return a.cst ? constant(CVal::K::num, -a.v) : unary_op(Op::neg, a);
      }
      case EK::binary: return binary(e, env);
      case EK::call: return call(e, env);
      case EK::field: {
        CVal r = expr(*e.kids[0], env);
        const CVal* f = r.field(e.name);
        if (!f) throw Unsupported{"field of a non-record"};
        return *f;
      }
      case EK::record: {
        CVal r;
        r.k = CVal::K::record;
        for (const auto& it : e.items) {
          CVal v = expr(*it.value, env);
          env[static_cast<std::size_t>(it.slot)] = v;
          if (!it.is_let) r.fields.emplace_back(it.name, std::move(v));
        }
        return r;
      }
      case EK::with: {
        CVal base = expr(*e.kids[0], env);
        for (const auto& w : e.with_items) {
          CVal nv = expr(*w.value, env);
          put(base, w.path, 0, nv);
        }
        return base;
      }
      case EK::list: {
        CVal l;
        l.k = CVal::K::list;
        for (const auto& k : e.kids) l.items.push_back(expr(*k, env));
        return l;
      }
      case EK::if_: return if_(e, env);
      case EK::match: return match(e, env);
      case EK::convert: return expr(*e.kids[0], env);
    }
    throw Unsupported{"an unknown expression"};
  }

  void put(CVal& rec, const std::vector<Sym>& path, std::size_t i, const CVal& v) {
    for (auto& [n, f] : rec.fields)
      if (n == path[i]) {
        if (i + 1 == path.size())
          f = v;
        else
          put(f, path, i + 1, v);
        return;
      }
    throw Unsupported{"update of a missing field"};
  }

  CVal global(std::uint32_t g) {
    if (globals_.size() <= g) globals_.resize(p_.globals.size());
    if (!globals_[g]) globals_[g] = from_value(ev_.global(g));
    return *globals_[g];
  }

  CVal binary(const Expr& e, std::vector<CVal>& env) {
    using mls::Op;
    if (e.op == Op::and_ || e.op == Op::or_) return logic(e, env);
    CVal a = expr(*e.kids[0], env);
    CVal b = expr(*e.kids[1], env);
    const bool both = a.cst && b.cst;
    switch (e.op) {
      case Op::add:
        if (both && std::isfinite(a.v + b.v)) return constant(CVal::K::num, a.v + b.v);
        return binary_op(fast::Op::add, a, b, CVal::K::num);
      case Op::sub:
        if (both && std::isfinite(a.v - b.v)) return constant(CVal::K::num, a.v - b.v);
        // x - (+0) is x for every x (-0 included); every number a point holds is finite.
        if (b.cst && b.v == 0 && !std::signbit(b.v)) return a;
        return binary_op(fast::Op::sub, a, b, CVal::K::num);
      case Op::mul:
        if (both && std::isfinite(a.v * b.v)) return constant(CVal::K::num, a.v * b.v);
        // x * 1 and 1 * x are x, bit for bit (a unit conversion's factor is often 1).
        if (b.cst && b.v == 1) return a;
        if (a.cst && a.v == 1) return b;
        return binary_op(fast::Op::mul, a, b, CVal::K::num);
      case Op::div:
        if (both && b.v != 0 && std::isfinite(a.v / b.v)) return constant(CVal::K::num, a.v / b.v);
        if (b.cst && b.v == 1) return a;
        // Dividing by a power of two is multiplying by its reciprocal, which is exact: both
        // round the same real number once (and b is not zero: no error to report).
        if (b.cst && exact_reciprocal(b.v))
          return binary_op(fast::Op::mul, a, constant(CVal::K::num, 1 / b.v), CVal::K::num);
        return binary_op(fast::Op::div, a, b, CVal::K::num);
      case Op::pow: return binary_op(fast::Op::pow, a, b, CVal::K::num);
      case Op::lt:
        if (both) return constant(CVal::K::boolean, a.v < b.v);
        return binary_op(fast::Op::lt, a, b, CVal::K::boolean);
      case Op::le:
        if (both) return constant(CVal::K::boolean, a.v <= b.v);
        return binary_op(fast::Op::le, a, b, CVal::K::boolean);
      case Op::gt:
        if (both) return constant(CVal::K::boolean, a.v > b.v);
        return binary_op(fast::Op::gt, a, b, CVal::K::boolean);
      case Op::ge:
        if (both) return constant(CVal::K::boolean, a.v >= b.v);
        return binary_op(fast::Op::ge, a, b, CVal::K::boolean);
      case Op::eq:
        if (both) return constant(CVal::K::boolean, a.v == b.v);
        return binary_op(fast::Op::eq, a, b, CVal::K::boolean);
      case Op::ne:
        if (both) return constant(CVal::K::boolean, a.v != b.v);
        return binary_op(fast::Op::ne, a, b, CVal::K::boolean);
      default: throw Unsupported{"an operator"};
    }
  }

  // Short-circuit and/or: whether the right side ran changes the provenance, so it is a
  // signature slot even though regime notes do not report it.
  CVal logic(const Expr& e, std::vector<CVal>& env) {
    const bool is_or = e.op == mls::Op::or_;
    CVal a = expr(*e.kids[0], env);
    if (a.cst) {
      if ((a.v != 0) == is_or) return a;
      return expr(*e.kids[1], env);
    }
    const std::uint32_t slot = new_slot();
    CVal dst;
    dst.k = CVal::K::boolean;
    dst.reg = new_reg();
    // `and`: false skips; `or`: true skips. jz jumps when the register is 0 (false).
    const std::size_t begin = c_.code.size();
    std::size_t skip_jump = 0;
    if (is_or) {
      const std::uint32_t inv = new_reg();
      emit(Ins{Op::not_, inv, a.reg});
      skip_jump = emit(Ins{Op::jz, 0, inv});
    } else {
      skip_jump = emit(Ins{Op::jz, 0, a.reg});
    }
    emit(Ins{Op::mark, 0, 0, 0, 0, slot, 1});
    CVal b = expr(*e.kids[1], env);
    store(dst, b);
    const std::size_t end_jump = emit(Ins{Op::jmp});
    patch(skip_jump);
    emit(Ins{Op::mark, 0, 0, 0, 0, slot, 0});
    store(dst, a);
    patch(end_jump);
    c_.regions.push_back({begin, c_.code.size(), a.reg, slot});
    return dst;
  }

  CVal if_(const Expr& e, std::vector<CVal>& env) {
    CVal c = expr(*e.kids[0], env);
    if (c.cst) return expr(*e.kids[c.v != 0 ? 1 : 2], env);
    const std::uint32_t slot = new_slot();
    const std::size_t begin = c_.code.size();
    const std::size_t to_else = emit(Ins{Op::jz, 0, c.reg});
    emit(Ins{Op::mark, 0, 0, 0, 0, slot, 0});
    CVal a = expr(*e.kids[1], env);
    CVal dst = alloc_like(a);
    store(dst, a);
    const std::size_t to_end = emit(Ins{Op::jmp});
    patch(to_else);
    emit(Ins{Op::mark, 0, 0, 0, 0, slot, 1});
    CVal b = expr(*e.kids[2], env);
    store(dst, b);
    patch(to_end);
    c_.regions.push_back({begin, c_.code.size(), c.reg, slot});
    return dst;
  }

  CVal match(const Expr& e, std::vector<CVal>& env) {
    const Expr& scrut = *e.kids[0];
    if (scrut.kind == EK::name && scrut.ref.kind == RefKind::convention) {
      // The configuration is fixed: a convention match is decided at compile time.
      const ConventionDef& cd = p_.conventions[scrut.ref.index];
      const Sym choice = cd.stmt->choices[static_cast<std::size_t>(cfg_.conv[scrut.ref.index].choice)].name;
      for (const auto& arm : e.arms)
        for (const auto& pat : arm.patterns)
          if (pat.kind == Pattern::K::wildcard || (pat.kind == Pattern::K::name && pat.name == choice))
            return expr(*arm.body, env);
      throw Unsupported{"a match without an arm for the chosen convention"};
    }
    CVal s = expr(scrut, env);
    auto pattern_id = [&](const Pattern& pat) {
      return static_cast<double>(str_id(pat.kind == Pattern::K::str ? pat.str : sym_name(pat.name)));
    };
    if (s.cst) {
      for (const auto& arm : e.arms)
        for (const auto& pat : arm.patterns)
          if (pat.kind == Pattern::K::wildcard || pattern_id(pat) == s.v) return expr(*arm.body, env);
      throw Unsupported{"a match with no applicable arm"};
    }
    const std::uint32_t slot = new_slot();
    const std::size_t begin = c_.code.size();
    std::optional<CVal> dst;
    std::vector<std::size_t> to_end;
    for (std::size_t i = 0; i < e.arms.size(); ++i) {
      const auto& arm = e.arms[i];
      bool wildcard = false;
      std::uint32_t any = 0;
      bool have_any = false;
      for (const auto& pat : arm.patterns) {
        if (pat.kind == Pattern::K::wildcard) {
          wildcard = true;
          break;
        }
        CVal hit = binary_op(Op::eq, s, constant(CVal::K::str, pattern_id(pat)), CVal::K::boolean);
        if (!have_any) {
          any = hit.reg;
          have_any = true;
        } else {
          // any = any or hit, without short-circuit: both are already computed.
          const std::uint32_t sum = new_reg();
          emit(Ins{Op::add, sum, any, hit.reg});
          any = sum;
        }
      }
      std::size_t skip = 0;
      if (!wildcard) skip = emit(Ins{Op::jz, 0, any});
      emit(Ins{Op::mark, 0, 0, 0, 0, slot, static_cast<double>(i)});
      CVal v = expr(*arm.body, env);
      if (!dst) dst = alloc_like(v);
      store(*dst, v);
      to_end.push_back(emit(Ins{Op::jmp}));
      if (!wildcard) patch(skip);
      if (wildcard) break;
    }
    emit(Ins{Op::fail});  // unreachable after the checker: string matches end with `_`
    for (std::size_t j : to_end) patch(j);
    if (!dst) throw Unsupported{"an empty match"};
    c_.regions.push_back({begin, c_.code.size(), s.reg, slot});
    return *dst;
  }

  CVal call(const Expr& e, std::vector<CVal>& env) {
    if (e.ref.kind == RefKind::function) return inline_call(e, env);
    std::vector<CVal> args;
    for (const auto& a : e.args) args.push_back(expr(*a.value, env));
    const NativeImpl& native = native_table()[static_cast<std::size_t>(p_.natives[e.ref.index].impl)];
    auto un = [&](Op op) { return unary_op(op, args[0]); };
    // The native's row in semantics/natives.cpp names its operation (or why it has none). No
    // default: an operation added there fails -Wswitch here until it is compiled.
    switch (native.fast.op) {
      case FastOp::max:
      case FastOp::min: {
        const bool is_max = native.fast.op == FastOp::max;
        if (args[0].cst && args[1].cst) {
          const bool take_b = is_max ? args[1].v > args[0].v : args[1].v < args[0].v;
          return args[take_b ? 1 : 0];
        }
        const std::uint32_t d = new_reg();
        emit(Ins{is_max ? Op::max : Op::min, d, reg_of(args[0]), reg_of(args[1]), 0, new_slot()});
        CVal r;
        r.reg = d;
        return r;
      }
      case FastOp::clamp: {
        const std::uint32_t d = new_reg();
        emit(Ins{Op::clamp, d, reg_of(args[0]), reg_of(args[1]), reg_of(args[2]), new_slot()});
        CVal r;
        r.reg = d;
        return r;
      }
      case FastOp::abs: return un(Op::abs);
      case FastOp::floor: return args[0].cst ? constant(CVal::K::num, std::floor(args[0].v)) : un(Op::floor);
      case FastOp::ceil: return args[0].cst ? constant(CVal::K::num, std::ceil(args[0].v)) : un(Op::ceil);
      case FastOp::round: return un(Op::round);
      case FastOp::sqrt: return un(Op::sqrt);
      case FastOp::exp: return un(Op::exp);
      case FastOp::ln: return un(Op::ln);
      case FastOp::log2: return un(Op::log2);
      case FastOp::log10: return un(Op::log10);
      case FastOp::pow: return binary_op(Op::powf, args[0], args[1], CVal::K::num);
      case FastOp::erlang_c: return binary_op(Op::erlang_c, args[0], args[1], CVal::K::num);
      case FastOp::list_len: return constant(CVal::K::num, static_cast<double>(args[0].items.size()));
      case FastOp::list_sum: {
        CVal acc = constant(CVal::K::num, 0);
        bool first = true;
        for (const auto& x : args[0].items) {
          // The evaluator adds from an exact 0; 0 + x differs from x only for -0.
          acc = first && x.cst ? constant(CVal::K::num, 0.0 + x.v) : binary_op(Op::add, acc, x, CVal::K::num);
          first = false;
        }
        return acc;
      }
      case FastOp::list_at: {
        if (!args[1].cst) throw Unsupported{"a list indexed at run time"};
        const double i = args[1].v;
        if (i < 0 || i >= static_cast<double>(args[0].items.size()) || std::floor(i) != i) {
          emit(Ins{Op::fail});
          return args[0].items.empty() ? constant(CVal::K::num, 0) : args[0].items[0];
        }
        return args[0].items[static_cast<std::size_t>(i)];
      }
      case FastOp::field_or:
      case FastOp::has_field: {
        if (!args[1].cst) throw Unsupported{"a field looked up by a run-time name"};
        const CVal* f = args[0].field(intern(c_.strings[static_cast<std::size_t>(args[1].v)]));
        if (native.fast.op == FastOp::has_field) return constant(CVal::K::boolean, f ? 1 : 0);
        return f ? *f : args[2];
      }
      case FastOp::fail: emit(Ins{Op::fail}); return constant(CVal::K::num, 0);
      // The value itself; its validation assumption is provenance, which the evaluator adds per
      // branch signature: the band's domain must then be one for the whole sweep.
      case FastOp::second_arg:
        if (native.id == NativeId::validated)
          if (const CVal* d = args[1].k == CVal::K::record ? args[1].field(intern("domain")) : nullptr)
            if (!all_constant(*d)) throw Unsupported{"a validation domain that varies within the sweep"};
        return args[1];
      case FastOp::third_arg:
        if (native.id == NativeId::validated_in && !all_constant(args[1]))
          throw Unsupported{"a validation domain that varies within the sweep"};
        return args[2];
      case FastOp::none: break;  // the row's why_not says why
    }
    throw Unsupported{std::string("native '") + native.name + "'"};
  }

  CVal inline_call(const Expr& e, std::vector<CVal>& env) {
    const Stmt& decl = *p_.functions[e.ref.index].stmt;
    for (const Stmt* s : stack_)
      if (s == &decl) throw Unsupported{"a recursive function ('" + sym_name(decl.name) + "')"};
    if (stack_.size() >= 64) throw Unsupported{"calls nested more than 64 deep"};
    std::vector<CVal> frame(static_cast<std::size_t>(std::max(decl.nslots, 1)));
    std::vector<bool> given(decl.params.size(), false);
    const std::vector<std::size_t> params = argument_params(decl, e);
    for (std::size_t k = 0; k < e.args.size(); ++k) {
      frame[static_cast<std::size_t>(decl.params[params[k]].slot)] = expr(*e.args[k].value, env);
      given[params[k]] = true;
    }
    stack_.push_back(&decl);
    for (std::size_t i = 0; i < decl.params.size(); ++i)
      if (!given[i]) frame[static_cast<std::size_t>(decl.params[i].slot)] = expr(*decl.params[i].default_value, frame);
    CVal r = expr(*decl.value, frame);
    stack_.pop_back();
    return r;
  }

  Slot slot_of(const CVal& v) {
    if (!v.scalar()) throw Unsupported{"a column that is not a scalar"};
    Slot s;
    s.constant = v.cst;
    s.value = v.v;
    s.reg = v.reg;
    s.kind = v.k == CVal::K::num ? Slot::K::num : v.k == CVal::K::boolean ? Slot::K::boolean : Slot::K::str;
    return s;
  }

  // Which sweep variables each instruction depends on, through data or through the branches
  // around it. A point that changes only inner variables re-runs only what depends on them:
  // everything else still holds the previous point's values (loop-invariant code, hoisted).
  void masks() {
    std::vector<std::uint64_t> reg(c_.nregs, 0);
    for (std::size_t k = 0; k < c_.binding_shapes.size() && k < 64; ++k)
      seed(c_.binding_shapes[k], std::uint64_t{1} << k, reg);
    auto& regions = c_.regions;
    std::sort(regions.begin(), regions.end(),
              [](const Region& x, const Region& y) { return x.begin != y.begin ? x.begin < y.begin : x.end > y.end; });
    std::vector<std::pair<std::size_t, std::uint64_t>> active;  // (end, cumulative control mask)
    std::size_t next = 0;
    for (std::size_t pc = 0; pc < c_.code.size(); ++pc) {
      while (!active.empty() && active.back().first <= pc) active.pop_back();
      while (next < regions.size() && regions[next].begin == pc) {
        const std::uint64_t outer = active.empty() ? 0 : active.back().second;
        regions[next].mask = outer | reg[regions[next].cond];
        active.push_back({regions[next].end, regions[next].mask});
        ++next;
      }
      Ins& i = c_.code[pc];
      std::uint64_t m = active.empty() ? 0 : active.back().second;
      const Operands o = operands(i.op);
      if (o.reads > 0) m |= reg[i.a];
      if (o.reads > 1) m |= reg[i.b];
      if (o.reads > 2) m |= reg[i.c];
      i.mask = m;
      if (o.writes) reg[i.d] |= m;
    }
    // Slots marked inside each branch, keyed by the branch's first instruction: those a re-run
    // of the branch may leave unreached. Not the branch's own slot, which every way through it
    // marks (each arm begins with its mark; a match with no arm fails).
    c_.region_slots.assign(c_.code.size(), {});
    c_.region_mask.assign(c_.code.size(), 0);
    for (const auto& r : regions) {
      auto& slots = c_.region_slots[r.begin];
      for (std::size_t pc = r.begin; pc < r.end; ++pc) {
        const Ins& i = c_.code[pc];
        if ((i.op == Op::mark && i.s != r.slot) || i.op == Op::max || i.op == Op::min || i.op == Op::clamp)
          slots.push_back(i.s);
      }
      c_.region_mask[r.begin] |= r.mask;
    }
  }

  static void seed(const CVal& shape, std::uint64_t bit, std::vector<std::uint64_t>& reg) {
    if (shape.scalar()) {
      if (!shape.cst) reg[shape.reg] |= bit;
      return;
    }
    for (const auto& [n, f] : shape.fields) seed(f, bit, reg);
    for (const auto& it : shape.items) seed(it, bit, reg);
  }

  void body(const Stmt& s, const std::vector<Value>& first_key) {
    std::vector<CVal> env(static_cast<std::size_t>(std::max(s.nslots, 1)));
    std::size_t k = 0;
    for (const auto& b : s.bindings)
      for (std::size_t i = 0; i < b.slots.size(); ++i, ++k) {
        CVal shape = shape_of(first_key[k]);
        c_.binding_shapes.push_back(shape);
        env[static_cast<std::size_t>(b.slots[i])] = shape;
      }
    std::optional<Slot> group;
    for (std::size_t idx = 0; idx < s.body.size(); ++idx) {
      const BodyItem& item = s.body[idx];
      switch (item.kind) {
        case BK::let: env[static_cast<std::size_t>(item.slot)] = expr(*item.exprs[0], env); break;
        case BK::where: {
          CVal c = expr(*item.exprs[0], env);
          emit(Ins{Op::exit_if_zero, 0, reg_of(c)});
          break;
        }
        case BK::subject:
          for (const auto& x : item.exprs) c_.feasibility.push_back(slot_of(expr(*x, env)));
          break;
        case BK::show:
          for (const auto& sh : item.shows) c_.cells.push_back(slot_of(expr(*sh.expr, env)));
          break;
        case BK::assert_: c_.asserts.emplace_back(slot_of(expr(*item.exprs[0], env)), idx); break;
        case BK::maximize:
        case BK::minimize:
        case BK::pareto:
          for (const auto& x : item.exprs) c_.objectives.push_back(slot_of(expr(*x, env)));
          break;
        case BK::top:
          // `top K per EXPR` with EXPR evaluated (search_group.hpp): a scalar, after the objectives.
          if (!item.exprs.empty() && s.kind == SK::search && !search_group_key(s)) {
            const CVal g = expr(*item.exprs[0], env);
            if (!g.scalar()) throw Unsupported{"a `top ... per` group key that is a record but not a sweep variable"};
            group = slot_of(g);
          }
          break;
      }
    }
    if (group) c_.objectives.push_back(*group);
  }

 private:
  Program& p_;
  const Config& cfg_;
  Evaluator& ev_;
  Compiled& c_;
  std::vector<std::optional<CVal>> globals_;
  std::vector<const Stmt*> stack_;
  std::unordered_map<std::uint64_t, std::uint32_t> const_regs_;  // a constant's bits -> its register
  std::size_t compile_steps_ = 0;
  static constexpr std::size_t kMaxInstructions = 1u << 20;
  static constexpr std::size_t kMaxCompileSteps = 4u << 20;
};

}  // namespace

// Writes a binding value's leaves into the registers of its shape.
void bind(const CVal& shape, const Value& v, const Compiled& c, double* r) {
  switch (shape.k) {
    case CVal::K::num: r[shape.reg] = v.n.d; return;
    case CVal::K::boolean: r[shape.reg] = v.b ? 1 : 0; return;
    case CVal::K::str: {
      auto it = c.string_ids.find(v.str());
      r[shape.reg] = it == c.string_ids.end() ? -1 : static_cast<double>(it->second);
      return;
    }
    case CVal::K::record:
      for (const auto& [n, f] : shape.fields)
        if (const Value* fv = v.rec().get(n)) bind(f, *fv, c, r);
      return;
    case CVal::K::list: return;
  }
}

SweepProgram::SweepProgram() : c_(std::make_unique<Compiled>()) {}
SweepProgram::~SweepProgram() = default;

std::unique_ptr<SweepProgram> SweepProgram::compile(Program& p, const Config& cfg, Evaluator& ev, const Stmt& s,
                                                    const std::vector<std::vector<std::vector<Value>>>& domains,
                                                    std::string& why_not) {
  std::unique_ptr<SweepProgram> sp(new SweepProgram());
  Compiler comp(p, cfg, ev, *sp->c_);
  try {
    // Every string a point can hold is interned now, so running never mutates the table.
    std::function<void(const Value&)> strings = [&](const Value& v) {
      if (v.k == Value::K::str) comp.str_id(v.str());
      if (v.k == Value::K::record)
        for (const auto& [n, f] : v.rec().fields) strings(f);
      if (v.k == Value::K::list)
        for (const auto& x : v.list().items) strings(x);
    };
    std::vector<Value> first_key;
    for (const auto& d : domains) {
      for (const auto& tuple : d)
        for (const auto& v : tuple) strings(v);
      for (const auto& v : d.front()) first_key.push_back(v);
    }
    comp.body(s, first_key);
    // fastpath_opt.cpp: common subexpressions, copies, folds, dead code.
    // MLS_FAST_NO_OPT=1 runs the code as compiled (to tell the optimiser's effect apart).
    const OptStats opt =
        std::getenv("MLS_FAST_NO_OPT") ? OptStats{} : optimise(*sp->c_, input_ranges(*sp->c_, domains));
    if (std::getenv("MLS_DEBUG_FAST"))
      std::fprintf(stderr, "optimised: %zu -> %zu instructions (%zu common, %zu copies, %zu folded, %zu dead)\n",
                   opt.before, opt.after, opt.cse, opt.copies, opt.folded, opt.dead);
    comp.masks();
    key_classes(domains, *sp->c_);
    if (std::getenv("MLS_DEBUG_FAST_CODE")) dump(*sp->c_, stderr);
  } catch (const Unsupported& u) {
    why_not = u.why;
    return nullptr;
  } catch (const DiagnosticError&) {
    why_not = "a global could not be evaluated";
    return nullptr;
  }
  return sp;
}

}  // namespace mls::fast
