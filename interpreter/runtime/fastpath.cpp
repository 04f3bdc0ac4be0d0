// fastpath.cpp — compiling a checked sweep body to binary64 register code, and running it.
// Every operation mirrors the evaluator's binary64 behaviour exactly (same IEEE operations in
// the same order, same error conditions), which the sweep runner verifies per signature.
#include "fastpath.hpp"

#include <algorithm>
#include <bit>
#include <cfenv>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <unordered_map>

#include "grammar/symbols.hpp"
#include "interpreter/semantics/natives.hpp"
#include "native_eval.hpp"

namespace mls::fast {

namespace {

// A branch's extent: instructions in [begin, end) run only as `cond` decides.
struct Region {
  std::size_t begin, end;
  std::uint32_t cond;
  std::uint64_t mask = 0;  // of cond (set by Compiler::masks)
};

struct CField;  // (name, value); a struct, not std::pair, see below

struct CVal {
  enum class K : std::uint8_t { num, boolean, str, record, list } k = K::num;
  bool cst = false;
  double v = 0;
  std::uint32_t reg = 0;
  // std::pair<Sym, CVal> here does not compile with clang and libstdc++: pair's constructor
  // traits need CVal complete while CVal is being defined (the fuzz build uses clang).
  std::vector<CField> fields;
  std::vector<CVal> items;

  [[nodiscard]] bool scalar() const { return k == K::num || k == K::boolean || k == K::str; }
  [[nodiscard]] const CVal* field(Sym s) const;
};

struct CField {
  Sym first = kNoSym;
  CVal second;
  CField() = default;
  CField(Sym name, CVal value) : first(name), second(std::move(value)) {}
};

const CVal* CVal::field(Sym s) const {
  for (const auto& f : fields)
    if (f.first == s) return &f.second;
  return nullptr;
}

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

}  // namespace

struct Compiled {
  std::vector<Ins> code;
  std::vector<Region> regions;
  // Per instruction that begins a branch: the signature slots marked inside it, cleared when
  // the branch re-decides (its condition depends on a sweep variable that changed).
  std::vector<std::vector<std::uint32_t>> region_slots;
  std::vector<std::uint64_t> region_mask;
  std::uint32_t nregs = 0;
  std::uint32_t nslots = 0;
  std::vector<std::string> strings;
  std::unordered_map<std::string, std::uint32_t> string_ids;
  std::vector<CVal> binding_shapes;  // per sweep variable, in key order
  std::vector<Slot> cells, objectives, feasibility;
  std::vector<std::pair<Slot, std::size_t>> asserts;
};

namespace {

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

  std::uint32_t reg_of(const CVal& x) {
    if (!x.cst) return x.reg;
    const std::uint32_t r = new_reg();
    emit(Ins{Op::movi, r, 0, 0, 0, 0, x.v});
    return r;
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
        return binary_op(fast::Op::sub, a, b, CVal::K::num);
      case Op::mul:
        if (both && std::isfinite(a.v * b.v)) return constant(CVal::K::num, a.v * b.v);
        return binary_op(fast::Op::mul, a, b, CVal::K::num);
      case Op::div:
        if (both && b.v != 0 && std::isfinite(a.v / b.v)) return constant(CVal::K::num, a.v / b.v);
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
    c_.regions.push_back({begin, c_.code.size(), a.reg});
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
    c_.regions.push_back({begin, c_.code.size(), c.reg});
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
    c_.regions.push_back({begin, c_.code.size(), s.reg});
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
      // The value itself; its validation assumption is provenance, which the evaluator adds.
      case FastOp::second_arg: return args[1];
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
    // Slots marked inside each branch, keyed by the branch's first instruction.
    c_.region_slots.assign(c_.code.size(), {});
    c_.region_mask.assign(c_.code.size(), 0);
    for (const auto& r : regions) {
      auto& slots = c_.region_slots[r.begin];
      for (std::size_t pc = r.begin; pc < r.end; ++pc) {
        const Ins& i = c_.code[pc];
        if (i.op == Op::mark || i.op == Op::max || i.op == Op::min || i.op == Op::clamp) slots.push_back(i.s);
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
        case BK::top: break;
      }
    }
  }

 private:
  Program& p_;
  const Config& cfg_;
  Evaluator& ev_;
  Compiled& c_;
  std::vector<std::optional<CVal>> globals_;
  std::vector<const Stmt*> stack_;
  std::size_t compile_steps_ = 0;
  static constexpr std::size_t kMaxInstructions = 1u << 20;
  static constexpr std::size_t kMaxCompileSteps = 4u << 20;
};

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

}  // namespace

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
    comp.masks();
  } catch (const Unsupported& u) {
    why_not = u.why;
    return nullptr;
  } catch (const DiagnosticError&) {
    why_not = "a global could not be evaluated";
    return nullptr;
  }
  return sp;
}

namespace {

// The instructions to run when the sweep variables in `dirty` changed: the others still hold
// the previous point's results. Jumps stay (their conditions are unchanged when clean, so they
// skip the same arms); a branch that re-decides first clears its signature slots (`clear`).
// Instructions that depend on a variable in `skip` are left out too (run's `skip`).
std::vector<Ins> schedule(const Compiled& c, std::uint64_t dirty, std::uint64_t skip) {
  const bool all = dirty == ~std::uint64_t{0};
  std::vector<Ins> out;
  std::vector<std::uint32_t> at(c.code.size() + 1, 0);  // old pc -> new index
  for (std::size_t pc = 0; pc < c.code.size(); ++pc) {
    at[pc] = static_cast<std::uint32_t>(out.size());
    if (!c.region_slots[pc].empty() && (all || (c.region_mask[pc] & dirty)))
      out.push_back(Ins{Op::clear, 0, static_cast<std::uint32_t>(pc)});
    const Ins& i = c.code[pc];
    if (all || ((i.mask & dirty) && !(i.mask & skip)) || i.op == Op::jz || i.op == Op::jmp) out.push_back(i);
  }
  at[c.code.size()] = static_cast<std::uint32_t>(out.size());
  for (Ins& i : out)
    if (i.op == Op::jz || i.op == Op::jmp) i.d = at[i.d];
  // A jump to the very next instruction (a branch whose arms are both clean here) does
  // nothing: drop it, and again, since that can turn the jump before it into such a jump.
  for (bool again = true; again;) {
    again = false;
    std::vector<std::uint32_t> to(out.size() + 1, 0);
    std::vector<Ins> kept;
    kept.reserve(out.size());
    for (std::size_t k = 0; k < out.size(); ++k) {
      to[k] = static_cast<std::uint32_t>(kept.size());
      const bool jump = out[k].op == Op::jz || out[k].op == Op::jmp;
      if (jump && out[k].d == k + 1) {
        again = true;
        continue;
      }
      kept.push_back(out[k]);
    }
    to[out.size()] = static_cast<std::uint32_t>(kept.size());
    for (Ins& i : kept)
      if (i.op == Op::jz || i.op == Op::jmp) i.d = to[i.d];
    out = std::move(kept);
  }
  return out;
}

}  // namespace

namespace {

// The schedule in its compact form.
Schedule compact(std::uint64_t dirty, std::uint64_t skip, const std::vector<Ins>& code) {
  Schedule out;
  out.dirty = dirty;
  out.skip = skip;
  out.code.reserve(code.size());
  for (const Ins& i : code) {
    Step st{i.d, i.a, i.b, i.c, i.s, i.op};
    if (i.op == Op::movi || i.op == Op::mark) {
      st.a = static_cast<std::uint32_t>(out.imm.size());
      out.imm.push_back(i.imm);
    }
    out.code.push_back(st);
  }
  return out;
}

// Runs a schedule. `Careful` checks every arithmetic result for a non-finite value as the
// evaluator does, and bails at the first; otherwise the caller reads the floating-point
// exception flags once at the end (with finite inputs, a non-finite result raises overflow,
// invalid or divide-by-zero) and re-runs the point carefully if any is set. The explicit
// domain checks (division by zero, sqrt of a negative, ...) bail in both modes.
template <bool Careful>
Status execute(const Schedule& sched, const Compiled& c, double* r, std::uint8_t* sig) {
  const Step* code = sched.code.data();
  const double* imm = sched.imm.data();
  const std::size_t n = sched.code.size();
  std::size_t pc = 0;
  // Stores an arithmetic result: false, and the point bails, where the evaluator would stop (a
  // non-finite result, checked only when Careful). The one bail-out for every arithmetic op.
  auto put = [r](const Step& i, double x) {
    r[i.d] = x;
    return !Careful || std::isfinite(x);
  };
  while (pc < n) {
    const Step& i = code[pc++];
    switch (i.op) {
      case Op::movi: r[i.d] = imm[i.a]; break;
      case Op::mov: r[i.d] = r[i.a]; break;
      case Op::add:
        if (!put(i, r[i.a] + r[i.b])) return Status::bail;
        break;
      case Op::sub:
        if (!put(i, r[i.a] - r[i.b])) return Status::bail;
        break;
      case Op::mul:
        if (!put(i, r[i.a] * r[i.b])) return Status::bail;
        break;
      case Op::div:
        if (r[i.b] == 0) return Status::bail;
        if (!put(i, r[i.a] / r[i.b])) return Status::bail;
        break;
      case Op::neg: r[i.d] = -r[i.a]; break;
      case Op::pow: {
        // As Evaluator::arith: integral exponents (|k| <= 1e5) and real ones share std::pow,
        // but their error conditions differ.
        const double a = r[i.a], b = r[i.b];
        const bool integral = std::floor(b) == b && std::fabs(b) <= 100000;
        if (integral ? (b < 0 && a == 0) : a < 0) return Status::bail;
        if (!put(i, std::pow(a, b))) return Status::bail;
        break;
      }
      case Op::powf: {
        const double a = r[i.a], b = r[i.b];
        if ((a < 0 && std::floor(b) != b) || (a == 0 && b < 0)) return Status::bail;
        if (!put(i, std::pow(a, b))) return Status::bail;
        break;
      }
      case Op::lt: r[i.d] = r[i.a] < r[i.b]; break;
      case Op::le: r[i.d] = r[i.a] <= r[i.b]; break;
      case Op::gt: r[i.d] = r[i.a] > r[i.b]; break;
      case Op::ge: r[i.d] = r[i.a] >= r[i.b]; break;
      case Op::eq: r[i.d] = r[i.a] == r[i.b]; break;
      case Op::ne: r[i.d] = r[i.a] != r[i.b]; break;
      case Op::not_: r[i.d] = r[i.a] == 0; break;
      case Op::floor: r[i.d] = std::floor(r[i.a]); break;
      case Op::ceil: r[i.d] = std::ceil(r[i.a]); break;
      case Op::round: r[i.d] = std::round(r[i.a]); break;
      case Op::abs: r[i.d] = r[i.a] < 0 ? -r[i.a] : r[i.a]; break;
      case Op::sqrt:
        if (r[i.a] < 0) return Status::bail;
        r[i.d] = std::sqrt(r[i.a]);
        break;
      case Op::exp:
        if (!put(i, std::exp(r[i.a]))) return Status::bail;
        break;
      case Op::ln:
      case Op::log2:
      case Op::log10:
        if (r[i.a] <= 0) return Status::bail;
        if (!put(i, i.op == Op::ln ? std::log(r[i.a]) : i.op == Op::log2 ? std::log2(r[i.a]) : std::log10(r[i.a])))
          return Status::bail;
        break;
      case Op::max: {
        const bool take_b = r[i.b] > r[i.a];
        sig[i.s] = take_b ? 1 : 0;
        r[i.d] = take_b ? r[i.b] : r[i.a];
        break;
      }
      case Op::min: {
        const bool take_b = r[i.b] < r[i.a];
        sig[i.s] = take_b ? 1 : 0;
        r[i.d] = take_b ? r[i.b] : r[i.a];
        break;
      }
      case Op::clamp: {
        const double x = r[i.a], lo = r[i.b], hi = r[i.c];
        if (lo > hi) return Status::bail;
        const std::uint8_t take = x < lo ? 1 : (x > hi ? 2 : 0);
        sig[i.s] = take;
        r[i.d] = take == 1 ? lo : take == 2 ? hi : x;
        break;
      }
      case Op::erlang_c: {
        // The evaluator's domain checks; outside them the point bails to report the error.
        const double servers = r[i.a], load = r[i.b];
        if (std::floor(servers) != servers || servers < 1 || servers > static_cast<double>(kErlangMaxServers) ||
            load < 0 || load >= servers)
          return Status::bail;
        r[i.d] = erlang_c_probability(static_cast<std::int64_t>(servers), load);
        break;
      }
      case Op::jz:
        if (r[i.a] == 0) pc = i.d;
        break;
      case Op::jmp: pc = i.d; break;
      case Op::mark: sig[i.s] = static_cast<std::uint8_t>(imm[i.a]); break;
      case Op::exit_if_zero:
        if (r[i.a] == 0) return Status::filtered;
        break;
      case Op::fail: return Status::bail;
      case Op::clear:
        for (std::uint32_t slot : c.region_slots[i.a]) sig[slot] = 0xff;
        break;
    }
  }
  return Status::ok;
}

// The sticky floating-point error flags. On x86-64 binary64 arithmetic (ours and libm's) runs
// on SSE, whose flags are one register read away (glibc's fetestexcept/feclearexcept also touch
// the x87 environment and cost more than a short schedule); elsewhere <cfenv>.
#if defined(__SSE2__)
constexpr unsigned kFpErrors = 0x1 | 0x4 | 0x8;  // MXCSR: invalid, divide-by-zero, overflow
inline unsigned fp_errors() { return _mm_getcsr() & kFpErrors; }
inline void clear_fp_errors() { _mm_setcsr(_mm_getcsr() & ~kFpErrors); }
#else
constexpr int kFpErrors = FE_OVERFLOW | FE_INVALID | FE_DIVBYZERO;
inline int fp_errors() { return std::fetestexcept(kFpErrors); }
inline void clear_fp_errors() { std::feclearexcept(kFpErrors); }
#endif

}  // namespace

const Schedule& SweepProgram::schedule_for(std::uint64_t dirty, PointRun& out, std::uint64_t skip) const {
  // Schedules are few (one per pattern of changed variables) and cached per worker.
  for (const auto& s : out.schedules)
    if (s.dirty == dirty && s.skip == skip) return s;
  out.schedules.push_back(compact(dirty, skip, schedule(*c_, dirty, skip)));
  if (std::getenv("MLS_DEBUG_FAST"))
    std::fprintf(stderr, "schedule %llx: %zu steps\n", static_cast<unsigned long long>(dirty),
                 out.schedules.back().code.size());
  if (std::getenv("MLS_DEBUG_FAST_OPS"))
    for (const Step& st : out.schedules.back().code)
      std::fprintf(stderr, "  op %d d%u a%u b%u\n", static_cast<int>(st.op), st.d, st.a, st.b);
  return out.schedules.back();
}

void SweepProgram::bind_key(const std::vector<Value>& key, std::uint64_t dirty, PointRun& out) const {
  const Compiled& c = *c_;
  for (std::size_t k = 0; k < key.size() && k < c.binding_shapes.size(); ++k)
    if (dirty & (k >= 64 ? ~std::uint64_t{0} : std::uint64_t{1} << k))
      bind(c.binding_shapes[k], key[k], c, out.regs.data());
}

void SweepProgram::run(const std::vector<Value>& key, std::uint64_t changed, PointRun& out, std::uint64_t skip) const {
  const Compiled& c = *c_;
  // Everything runs the first time and after a point that stopped early; otherwise only what
  // depends on the key positions that changed since this worker's previous point.
  std::uint64_t dirty = changed;
  if (out.regs.size() != c.nregs || out.sig.size() != c.nslots || out.status != Status::ok) {
    dirty = ~std::uint64_t{0};
    skip = 0;
    out.regs.assign(c.nregs, 0);
    out.sig.assign(c.nslots, 0xff);
  }
  if (dirty == 0) return;  // a block's outer work when only the innermost binding moved
  bind_key(key, dirty, out);
  const Schedule& sched = schedule_for(dirty, out, skip);
  // The flags are sticky: cleared only when something (rarely) left one set, then read once.
  if (fp_errors()) clear_fp_errors();
  out.status = execute<false>(sched, c, out.regs.data(), out.sig.data());
  if (!fp_errors()) return;
  // Some operation overflowed or was invalid (or a library function raised a flag on its way):
  // the point runs again from scratch, checking every result, and stops where the evaluator would.
  std::fill(out.sig.begin(), out.sig.end(), std::uint8_t{0xff});
  bind_key(key, ~std::uint64_t{0}, out);
  out.status = execute<true>(schedule_for(~std::uint64_t{0}, out), c, out.regs.data(), out.sig.data());
  clear_fp_errors();
}

namespace {

// Calls f on each register field of a step (its destination and operands), by op.
template <typename F>
void for_each_reg(Step& st, F f) {
  const Operands o = operands(st.op);
  if (o.writes) f(st.d);
  if (o.reads > 0) f(st.a);
  if (o.reads > 1) f(st.b);
  if (o.reads > 2) f(st.c);
}

// The leaf registers of a binding's shape.
void leaves(const CVal& shape, std::vector<std::uint32_t>& out) {
  if (shape.scalar()) {
    if (!shape.cst) out.push_back(shape.reg);
    return;
  }
  for (const auto& [n, f] : shape.fields) leaves(f, out);
  for (const auto& it : shape.items) leaves(it, out);
}

// Runs a lane schedule over kLanes points: registers are rows of kLanes doubles, each step
// loops over the lanes (no dependence between lanes, so the loop vectorizes and the points'
// latencies overlap). The non-careful mode only: the caller reads the exception flags after.
// False where the lanes cannot go on together (see SweepProgram::run_lanes).
bool execute_lanes(const LaneSchedule& sched, const Compiled& c, double* r, std::uint8_t* sig, std::size_t nslots) {
  constexpr std::size_t W = kLanes;
  const Step* code = sched.code.data();
  const double* imm = sched.imm.data();
  const std::size_t n = sched.code.size();
  std::size_t pc = 0;
  // The lane loops: one result per lane (through a local array, which no operand aliases, so
  // the loop vectorizes), and whether any lane's operand is outside the operation's domain.
#define MLS_LANES(expr)                                 \
  do {                                                  \
    double t_[W];                                       \
    for (std::size_t l = 0; l < W; ++l) t_[l] = (expr); \
    std::copy_n(t_, W, r + i.d);                        \
  } while (0)
#define MLS_ANY(cond)                                   \
  [&] {                                                 \
    bool any_ = false;                                  \
    for (std::size_t l = 0; l < W; ++l) any_ |= (cond); \
    return any_;                                        \
  }()
#define A r[i.a + l]
#define B r[i.b + l]
#define C r[i.c + l]
  while (pc < n) {
    const Step& i = code[pc++];
    switch (i.op) {
      case Op::movi: MLS_LANES(imm[i.a]); break;
      case Op::mov: MLS_LANES(A); break;
      case Op::add: MLS_LANES(A + B); break;
      case Op::sub: MLS_LANES(A - B); break;
      case Op::mul: MLS_LANES(A * B); break;
      case Op::div:
        if (MLS_ANY(B == 0)) return false;
        MLS_LANES(A / B);
        break;
      case Op::neg: MLS_LANES(-A); break;
      case Op::pow:
        for (std::size_t l = 0; l < W; ++l) {
          const double a = A, b = B;
          const bool integral = std::floor(b) == b && std::fabs(b) <= 100000;
          if (integral ? (b < 0 && a == 0) : a < 0) return false;
        }
        MLS_LANES(std::pow(A, B));
        break;
      case Op::powf:
        if (MLS_ANY((A < 0 && std::floor(B) != B) || (A == 0 && B < 0))) return false;
        MLS_LANES(std::pow(A, B));
        break;
      case Op::lt: MLS_LANES(A < B); break;
      case Op::le: MLS_LANES(A <= B); break;
      case Op::gt: MLS_LANES(A > B); break;
      case Op::ge: MLS_LANES(A >= B); break;
      case Op::eq: MLS_LANES(A == B); break;
      case Op::ne: MLS_LANES(A != B); break;
      case Op::not_: MLS_LANES(A == 0); break;
      case Op::floor: MLS_LANES(std::floor(A)); break;
      case Op::ceil: MLS_LANES(std::ceil(A)); break;
      case Op::round: MLS_LANES(std::round(A)); break;
      case Op::abs: MLS_LANES(A < 0 ? -A : A); break;
      case Op::sqrt:
        if (MLS_ANY(A < 0)) return false;
        MLS_LANES(std::sqrt(A));
        break;
      case Op::exp: MLS_LANES(std::exp(A)); break;
      case Op::ln:
      case Op::log2:
      case Op::log10:
        if (MLS_ANY(A <= 0)) return false;
        if (i.op == Op::ln)
          MLS_LANES(std::log(A));
        else if (i.op == Op::log2)
          MLS_LANES(std::log2(A));
        else
          MLS_LANES(std::log10(A));
        break;
      case Op::max:
      case Op::min:
        for (std::size_t l = 0; l < W; ++l) {
          const bool take_b = i.op == Op::max ? B > A : B < A;
          sig[l * nslots + i.s] = take_b ? 1 : 0;
          r[i.d + l] = take_b ? B : A;
        }
        break;
      case Op::clamp: {
        if (MLS_ANY(B > C)) return false;
        for (std::size_t l = 0; l < W; ++l) {
          const double x = A, lo = B, hi = C;
          const std::uint8_t take = x < lo ? 1 : (x > hi ? 2 : 0);
          sig[l * nslots + i.s] = take;
          r[i.d + l] = take == 1 ? lo : take == 2 ? hi : x;
        }
        break;
      }
      case Op::erlang_c:
        for (std::size_t l = 0; l < W; ++l) {
          const double servers = A, load = B;
          if (std::floor(servers) != servers || servers < 1 || servers > static_cast<double>(kErlangMaxServers) ||
              load < 0 || load >= servers)
            return false;
          r[i.d + l] = erlang_c_probability(static_cast<std::int64_t>(servers), load);
        }
        break;
      case Op::jz: {
        // A branch the lanes decide differently: they cannot go on together.
        std::size_t zeros = 0;
        for (std::size_t l = 0; l < W; ++l) zeros += A == 0;
        if (zeros == W)
          pc = i.d;
        else if (zeros != 0)
          return false;
        break;
      }
      case Op::jmp: pc = i.d; break;
      case Op::mark:
        for (std::size_t l = 0; l < W; ++l) sig[l * nslots + i.s] = static_cast<std::uint8_t>(imm[i.a]);
        break;
      case Op::exit_if_zero:
        // Filtered points run one by one (a filtered point makes the next one start afresh).
        if (MLS_ANY(A == 0)) return false;
        break;
      case Op::fail: return false;
      case Op::clear:
        for (std::uint32_t slot : c.region_slots[i.a])
          for (std::size_t l = 0; l < W; ++l) sig[l * nslots + slot] = 0xff;
        break;
    }
  }
#undef MLS_LANES
#undef MLS_ANY
#undef A
#undef B
#undef C
  return true;
}

}  // namespace

// The lowest key position in a mask.
static std::size_t dirty_first(std::uint64_t dirty) {
  std::size_t k = 0;
  while (k < 64 && !(dirty >> k & 1)) ++k;
  return k;
}

std::size_t SweepProgram::lane_schedule_for(std::uint64_t dirty, PointRun& out) const {
  for (std::size_t k = 0; k < out.lane_schedules.size(); ++k)
    if (out.lane_schedules[k].dirty == dirty) return k;
  // The scalar schedule, its registers renumbered to rows: every register it reads or writes,
  // and the binding's own (written per lane).
  const Schedule& s = schedule_for(dirty, out);
  LaneSchedule ls;
  ls.dirty = dirty;
  ls.imm = s.imm;
  ls.code = s.code;
  ls.row_of_reg.assign(c_->nregs, -1);
  auto row = [&](std::uint32_t& reg) {
    std::int32_t& rw = ls.row_of_reg[reg];
    if (rw < 0) {
      rw = static_cast<std::int32_t>(ls.reg_of_row.size());
      ls.reg_of_row.push_back(reg);
    }
    reg = static_cast<std::uint32_t>(rw) * static_cast<std::uint32_t>(kLanes);
  };
  for (Step& st : ls.code) for_each_reg(st, row);
  // The binding's registers have rows even when no step reads them: a cell may show them.
  for (std::size_t k = dirty_first(dirty); k < c_->binding_shapes.size() && k < 64 && (dirty >> k & 1); ++k)
    leaves(c_->binding_shapes[k], ls.leaves);
  for (std::uint32_t reg : ls.leaves) {
    std::uint32_t r = reg;
    row(r);
  }
  // A step is on every path unless a jump before it lands after it.
  std::vector<std::uint8_t> always(ls.code.size(), 1);
  for (std::size_t j = 0; j < ls.code.size(); ++j)
    if (ls.code[j].op == Op::jz || ls.code[j].op == Op::jmp)
      for (std::size_t k = j + 1; k < ls.code.size() && k < ls.code[j].d; ++k) always[k] = 0;
  std::vector<std::uint8_t> defined(ls.reg_of_row.size(), 0), written(ls.reg_of_row.size(), 0);
  for (std::size_t k = 0; k < ls.code.size(); ++k) {
    Step st = ls.code[k];
    bool first_reg = true;
    for_each_reg(st, [&](std::uint32_t& off) {
      // The destination comes first, for the ops that have one.
      if (first_reg && st.op != Op::jz && st.op != Op::exit_if_zero) {
        const std::uint32_t rw = off / static_cast<std::uint32_t>(kLanes);
        written[rw] = 1;
        if (always[k]) defined[rw] = 1;
      }
      first_reg = false;
    });
  }
  for (std::uint32_t reg : ls.leaves) defined[static_cast<std::size_t>(ls.row_of_reg[reg])] = 1;
  for (std::uint32_t rw = 0; rw < ls.reg_of_row.size(); ++rw) {
    if (!defined[rw]) (written[rw] ? ls.shared : ls.inputs).push_back(rw);
    if (written[rw] || defined[rw]) ls.written.push_back(rw);
  }
  if (std::getenv("MLS_DEBUG_FAST"))
    std::fprintf(stderr, "lanes %llx: %zu steps, %zu rows, %zu shared, %zu written\n",
                 static_cast<unsigned long long>(dirty), ls.code.size(), ls.reg_of_row.size(),
                 ls.shared.size() + ls.inputs.size(), ls.written.size());
  out.lane_schedules.push_back(std::move(ls));
  return out.lane_schedules.size() - 1;
}

bool SweepProgram::run_lanes(const std::vector<Value>* const* values, std::size_t n, std::size_t first,
                             PointRun& out) const {
  const Compiled& c = *c_;
  if (n == 0 || n > kLanes || out.status != Status::ok || out.regs.size() != c.nregs) return false;
  const std::size_t width = values[0]->size();
  if (first + width > 64 || first + width > c.binding_shapes.size()) return false;
  const std::uint64_t dirty = (width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1) << first;
  out.lane_schedule = lane_schedule_for(dirty, out);
  const LaneSchedule& ls = out.lane_schedules[out.lane_schedule];
  // Every row starts as the register (what the points share), then the binding's leaves are
  // written per lane (a lane past n repeats point n - 1, so it raises nothing point n - 1 does
  // not). The registers keep point n - 1's binding, as after running it.
  // Rows are laid out per lane schedule: another one's rows are refilled in full.
  const bool same_rows = out.lanes_of == out.lane_schedule;
  out.lanes_of = out.lane_schedule;
  out.lanes.resize(ls.reg_of_row.size() * kLanes);
  double* const r = out.lanes.data();
  for (std::uint32_t k : ls.shared) std::fill_n(r + k * kLanes, kLanes, out.regs[ls.reg_of_row[k]]);
  // An input row holds one value in every lane (no step writes it) and mostly the same as for
  // the previous block (the outer work changes few of them): refilled only when it changed.
  for (std::uint32_t k : ls.inputs) {
    const double x = out.regs[ls.reg_of_row[k]];
    if (!same_rows || std::bit_cast<std::uint64_t>(r[k * kLanes]) != std::bit_cast<std::uint64_t>(x))
      std::fill_n(r + k * kLanes, kLanes, x);
  }
  out.lane_saved.clear();
  for (std::uint32_t reg : ls.leaves) out.lane_saved.push_back(out.regs[reg]);
  for (std::size_t l = 0; l < kLanes; ++l) {
    if (l < n)
      for (std::size_t k = 0; k < width; ++k) bind(c.binding_shapes[first + k], (*values[l])[k], c, out.regs.data());
    for (std::uint32_t reg : ls.leaves) r[static_cast<std::size_t>(ls.row_of_reg[reg]) * kLanes + l] = out.regs[reg];
  }
  const std::size_t nslots = out.sig.size();
  out.lane_sig.resize(nslots * kLanes);
  for (std::size_t l = 0; l < kLanes; ++l) std::copy(out.sig.begin(), out.sig.end(), out.lane_sig.begin() + l * nslots);
  if (fp_errors()) clear_fp_errors();
  const bool ok = execute_lanes(ls, c, r, out.lane_sig.data(), nslots);
  if (!ok || fp_errors()) {
    clear_fp_errors();
    for (std::size_t k = 0; k < ls.leaves.size(); ++k) out.regs[ls.leaves[k]] = out.lane_saved[k];
    return false;
  }
  for (std::uint32_t k : ls.written) out.regs[ls.reg_of_row[k]] = r[k * kLanes + n - 1];
  std::copy_n(out.lane_sig.begin() + (n - 1) * nslots, nslots, out.sig.begin());
  return true;
}

const std::vector<Slot>& SweepProgram::cells() const { return c_->cells; }
const std::vector<Slot>& SweepProgram::objectives() const { return c_->objectives; }
const std::vector<Slot>& SweepProgram::feasibility() const { return c_->feasibility; }
const std::vector<std::pair<Slot, std::size_t>>& SweepProgram::asserts() const { return c_->asserts; }
const std::string& SweepProgram::string_of(double id) const { return c_->strings.at(static_cast<std::size_t>(id)); }
std::size_t SweepProgram::instructions() const { return c_->code.size(); }

}  // namespace mls::fast
