// check.cpp — dimension/type checking of expressions, matches, records, sweeps and overrides
// (calls: check_calls.cpp). Errors never stop the walk: a failed expression has
// type `error`, which is compatible with everything, so one mistake yields one message.
#include "check.hpp"

#include <algorithm>
#include <cmath>

#include "config.hpp"
#include "grammar/symbols.hpp"
#include "natives.hpp"
#include "resolve.hpp"
#include "stack.hpp"

namespace mls {

namespace {
// Checker recursion: an expression tree (<= kMaxExprDepth) inside up to kMaxInstDepth nested
// instantiations. Like the evaluator's limit, sized to fit kPipelineStackBytes under ASan.
constexpr std::size_t kMaxCheckNesting = 20000;

struct NestingGuard {
  std::size_t& n;
  explicit NestingGuard(std::size_t& x) : n(++x) {}
  ~NestingGuard() { --n; }
  NestingGuard(const NestingGuard&) = delete;
  NestingGuard& operator=(const NestingGuard&) = delete;
};

const char* verb(Op op) {
  switch (op) {
    case Op::add: return "add";
    case Op::sub: return "subtract";
    case Op::eq:
    case Op::ne:
    case Op::lt:
    case Op::le:
    case Op::gt:
    case Op::ge: return "compare";
    default: return "combine";
  }
}
}  // namespace

const char* op_text(Op op) {
  switch (op) {
    case Op::add: return "+";
    case Op::sub: return "-";
    case Op::mul: return "*";
    case Op::div: return "/";
    case Op::pow: return "^";
    case Op::eq: return "==";
    case Op::ne: return "!=";
    case Op::lt: return "<";
    case Op::le: return "<=";
    case Op::gt: return ">";
    case Op::ge: return ">=";
    case Op::and_: return "and";
    case Op::or_: return "or";
    case Op::not_: return "not";
    case Op::neg: return "-";
  }
  return "?";
}

std::string Checker::dim_text(const TypeP& t) const { return describe(*t, p_.units); }

Diagnostic& Checker::error(ErrorKind k, Span s, std::string msg, const Env& env) {
  Diagnostic& d = p_.diags.error(k, s, std::move(msg));
  note_calls(d, env);
  return d;
}

// The call that instantiated the function the error is in; and, for an error inside the stdlib
// reached through stdlib calls, also the user's own call that led there (the innermost call from
// a user's file), so that the user's line is always among the labels (`fleet(TPU_v6e, ...)`
// passed to fleet_mtbf fails in node_mtbf, two calls below the user's).
void Checker::note_calls(Diagnostic& d, const Env& env) const {
  if (env.calls.empty() || !env.calls.back().valid()) return;
  d.notes.push_back({env.calls.back(), "in this call", LabelKind::call});
  if (!p_.is_stdlib(env.calls.back().file)) return;
  for (auto it = env.calls.rbegin(); it != env.calls.rend(); ++it)
    if (it->valid() && !p_.is_stdlib(it->file)) {
      d.notes.push_back({*it, "reached from this call", LabelKind::call});
      return;
    }
}

std::optional<ResolvedUnit> Checker::resolve_unit(const UnitExpr& u, bool report) {
  // A dimension name is accepted where a unit is (parameter annotations: `x: Time`).
  const UnitTable::Reading r = p_.units.read(u, true);
  if (r.fail == UnitTable::Reading::Fail::none) return r.unit;
  if (!report) return std::nullopt;
  switch (r.fail) {
    case UnitTable::Reading::Fail::unknown: {
      const UnitTerm& t = u.terms[r.term];
      auto& d = p_.diags.error(ErrorKind::unit_unknown, t.span, "unknown unit '" + t.atom + "'");
      d.subject = t.atom;
      if (p_.diags.size() <= kMaxSuggestedDiagnostics) p_.units.suggest(d, t.atom);
      if (p_.lookup(intern(t.atom)))
        d.help.push_back("'" + t.atom + "' is a name; to multiply write `* " + t.atom + "`");
      break;
    }
    case UnitTable::Reading::Fail::dim_range:
      p_.diags.error(ErrorKind::dim_mismatch, u.span, "the dimension of '" + u.text + "' is out of range");
      break;
    case UnitTable::Reading::Fail::inexact:
    case UnitTable::Reading::Fail::none:
      p_.diags.error(ErrorKind::parse_number, u.span, "the size of '" + u.text + "' cannot be represented exactly");
      break;
  }
  return std::nullopt;
}

TypeP Checker::show_type(const ShowItem* s) const {
  auto it = show_types_.find(s);
  return it == show_types_.end() ? t_error() : it->second;
}

void Checker::note_show(const ShowItem* s, TypeP t) {
  if (show_types_.insert_or_assign(s, std::move(t)).second) show_log_.push_back(s);
}

void Checker::note_expr(const Expr* e, TypeP t) {
  if (expr_types_.insert_or_assign(e, std::move(t)).second) expr_log_.push_back(e);
}

TypeP Checker::expr_type(const Expr* e) const {
  auto it = expr_types_.find(e);
  return it == expr_types_.end() ? t_error() : it->second;
}

TypeP Checker::global_type(std::uint32_t g) {
  GlobalDef& gd = p_.globals[g];
  if (gd.check_state == 2) return gd.type;
  if (gd.check_state == 1) {
    // A cycle among top-level definitions: report at this use, pointing at the definition.
    return nullptr;
  }
  p_.touch_global(g);  // a failed REPL input leaves the global unchecked again
  gd.check_state = 1;
  global_stack_.push_back(g);
  Env env;
  env.slots.assign(static_cast<std::size_t>(gd.stmt->nslots), t_error());
  const std::size_t saved = inst_depth_;
  inst_depth_ = 0;
  gd.type = gd.stmt->kind == SK::solve ? solve(*gd.stmt, env) : expr(*gd.stmt->value, env);
  inst_depth_ = saved;
  global_stack_.pop_back();
  gd.check_state = 2;
  return gd.type;
}

TypeP Checker::number(Expr& e) {
  if (!e.unit) {
    e.si = e.num;
    e.si_ready = true;
    return t_num(Dim{});
  }
  auto u = resolve_unit(*e.unit);
  if (!u) return t_error();
  bool lost = false;
  e.si = mul(e.num, u->factor, lost);
  if (lost || !std::isfinite(e.si.d)) {
    // `1e300 EB` is 1e318 bytes: beyond binary64, which every result must fit.
    p_.diags.error(ErrorKind::parse_number, e.span,
                   "this quantity is out of range (at most about 1.8e308 in base units)");
    return t_error();
  }
  e.si_ready = true;
  return t_num(u->dim);
}

TypeP Checker::name(Expr& e, Env& env) {
  switch (e.ref.kind) {
    case RefKind::local: return e.ref.index < env.slots.size() ? env.slots[e.ref.index] : t_error();
    case RefKind::global: {
      TypeP t = global_type(e.ref.index);
      if (!t) {
        // The cycle is the part of the stack of globals being checked from this one on.
        auto from = std::find(global_stack_.begin(), global_stack_.end(), e.ref.index);
        std::vector<std::uint32_t> cycle(from, global_stack_.end());
        if (cycle.empty()) cycle.push_back(e.ref.index);
        std::string chain;
        for (std::uint32_t g : cycle) chain += sym_name(p_.globals[g].name) + " -> ";
        chain += sym_name(e.name);
        auto& d = error(ErrorKind::name_cycle, e.span,
                        cycle.size() == 1 ? "'" + sym_name(e.name) + "' is defined in terms of itself"
                                          : "definitions depend on each other in a cycle: " + chain,
                        env);
        for (std::uint32_t g : cycle)
          d.notes.push_back({p_.globals[g].stmt->name_span, "'" + sym_name(p_.globals[g].name) + "' is defined here"});
        return t_error();
      }
      return t;
    }
    case RefKind::convention: return t_convention(e.ref.index);
    case RefKind::function:
    case RefKind::native:
      error(ErrorKind::type_mismatch, e.span, "'" + sym_name(e.name) + "' is a function; call it with (...)", env);
      return t_error();
    default: return t_error();
  }
}

TypeP Checker::binary(Expr& e, Env& env) {
  TypeP a = expr(*e.kids[0], env);
  TypeP b = expr(*e.kids[1], env);
  if (is_loose(*a) || is_loose(*b)) {
    if (e.op == Op::and_ || e.op == Op::or_ || (e.op >= Op::eq && e.op <= Op::ge)) return t_bool();
    return is_loose(*a) ? a : b;
  }
  auto need_num = [&](const TypeP& t, const Expr& side) {
    if (t->k == Type::K::num) return true;
    error(ErrorKind::type_mismatch, side.span,
          std::string("expected a number for '") + op_text(e.op) + "', got " + kind_word(*t), env)
        .expecting("a number", kind_word(*t));
    return false;
  };
  switch (e.op) {
    case Op::add:
    case Op::sub:
    case Op::lt:
    case Op::le:
    case Op::gt:
    case Op::ge: {
      if (!need_num(a, *e.kids[0]) || !need_num(b, *e.kids[1])) return e.op <= Op::sub ? t_error() : t_bool();
      if (a->dim != b->dim) {
        auto& d = error(ErrorKind::dim_mismatch, e.span,
                        std::string("cannot ") + verb(e.op) + " " + dim_text(a) + " and " + dim_text(b), env)
                      .expecting(dim_text(a), dim_text(b));
        d.notes.push_back({e.kids[0]->span, "this is " + dim_text(a)});
        d.notes.push_back({e.kids[1]->span, "this is " + dim_text(b)});
        return e.op <= Op::sub ? t_error() : t_bool();
      }
      return e.op <= Op::sub ? t_num(a->dim) : t_bool();
    }
    case Op::mul:
    case Op::div:
      if (!need_num(a, *e.kids[0]) || !need_num(b, *e.kids[1])) return t_error();
      if (auto d = e.op == Op::mul ? a->dim.times(b->dim) : a->dim.over(b->dim)) return t_num(*d);
      error(ErrorKind::dim_mismatch, e.span,
            "the dimension of this product is out of range (an exponent above " +
                std::to_string(kMaxDimExponent / kDimDen) + ")",
            env);
      return t_error();
    case Op::pow: {
      if (!need_num(a, *e.kids[0]) || !need_num(b, *e.kids[1])) return t_error();
      if (!b->dim.none()) {
        error(ErrorKind::dim_mismatch, e.kids[1]->span, "an exponent must be dimensionless, got " + dim_text(b), env);
        return t_error();
      }
      if (a->dim.none()) return t_num(Dim{});
      // A dimensioned base needs a constant exponent: the result's dimension must be known.
      const Expr* x = e.kids[1].get();
      bool negative = false;
      if (x->kind == EK::unary && x->op == Op::neg) {
        negative = true;
        x = x->kids[0].get();
      }
      if (x->kind == EK::num && !x->unit) {
        for (std::int64_t den : {1, 2, 3, 6}) {
          bool lost = false;
          const Num scaled = mul(x->num, Num::of_int(den), lost);
          if (auto k = to_int(scaled)) {
            auto dim = a->dim.pow(negative ? -*k : *k, den);
            if (dim) return t_num(*dim);
            break;
          }
        }
      }
      error(ErrorKind::dim_mismatch, e.kids[1]->span,
            "raising " + dim_text(a) + " to a power needs a constant exponent (like 2, -1 or 0.5)", env);
      return t_error();
    }
    case Op::eq:
    case Op::ne:
      if (a->k != b->k || (a->k == Type::K::num && a->dim != b->dim)) {
        auto& d = error(a->k == b->k ? ErrorKind::dim_mismatch : ErrorKind::type_mismatch, e.span,
                        "cannot compare " + dim_text(a) + " and " + dim_text(b), env)
                      .expecting(dim_text(a), dim_text(b));
        d.label = dim_text(a) + " " + op_text(e.op) + " " + dim_text(b);
        return t_bool();
      }
      if (a->k == Type::K::record || a->k == Type::K::list || a->k == Type::K::convention)
        error(ErrorKind::type_mismatch, e.span,
              "only numbers, bools and strings can be compared with " + std::string(op_text(e.op)), env);
      return t_bool();
    case Op::and_:
    case Op::or_:
      for (std::size_t i = 0; i < 2; ++i) {
        const TypeP& t = i == 0 ? a : b;
        if (t->k != Type::K::boolean)
          error(ErrorKind::type_mismatch, e.kids[i]->span,
                std::string("expected a bool for '") + op_text(e.op) + "', got " + kind_word(*t), env);
      }
      return t_bool();
    default: return t_error();
  }
}

TypeP Checker::record(Expr& e, Env& env) {
  std::vector<std::pair<Sym, TypeP>> fields;
  for (auto& it : e.items) {
    TypeP t = expr(*it.value, env);
    if (it.slot >= 0 && static_cast<std::size_t>(it.slot) < env.slots.size())
      env.slots[static_cast<std::size_t>(it.slot)] = t;
    if (it.is_let) continue;
    for (const auto& f : fields)
      if (f.first == it.name)
        error(ErrorKind::name_duplicate, it.name_span, "field '" + sym_name(it.name) + "' is given twice", env);
    fields.emplace_back(it.name, t);
  }
  return t_record(std::move(fields));
}

namespace {
// Replaces the type at `path` inside a record type; returns null if the path does not exist.
TypeP replace_field(const TypeP& rec, const std::vector<Sym>& path, std::size_t i, const TypeP& value) {
  if (rec->k != Type::K::record) return nullptr;
  std::vector<std::pair<Sym, TypeP>> fields = rec->fields;
  for (auto& f : fields) {
    if (f.first != path[i]) continue;
    if (i + 1 == path.size()) {
      f.second = value;
    } else {
      TypeP inner = replace_field(f.second, path, i + 1, value);
      if (!inner) return nullptr;
      f.second = inner;
    }
    return t_record(std::move(fields));
  }
  return nullptr;
}
}  // namespace

TypeP Checker::with(Expr& e, Env& env) {
  TypeP base = expr(*e.kids[0], env);
  for (auto& w : e.with_items) {
    TypeP v = expr(*w.value, env);
    if (is_loose(*base)) continue;
    // Walk the path to find the current field type.
    TypeP cur = base;
    for (std::size_t i = 0; i < w.path.size(); ++i) {
      if (cur->k != Type::K::record) {
        // At i == 0 the value being updated is itself not a record (`3 with { a = 1 }`).
        if (i == 0)
          error(ErrorKind::type_mismatch, e.kids[0]->span, "`with` updates a record, got " + kind_word(*cur), env);
        else
          error(ErrorKind::type_mismatch, w.path_spans[i], "'" + sym_name(w.path[i - 1]) + "' is not a record", env);
        cur = nullptr;
        break;
      }
      const TypeP* f = cur->field(w.path[i]);
      if (!f) {
        auto& d =
            error(ErrorKind::field_unknown, w.path_spans[i], "no field '" + sym_name(w.path[i]) + "' to update", env);
        std::vector<std::string> names;
        for (const auto& [n, t] : cur->fields) names.push_back(sym_name(n));
        suggest(d, sym_name(w.path[i]), names);
        d.help.push_back("`with` updates existing fields; build a new record to add fields");
        cur = nullptr;
        break;
      }
      cur = *f;
    }
    if (!cur) continue;
    if (!same_type(*cur, *v)) {
      auto& d = error(cur->k == v->k ? ErrorKind::dim_mismatch : ErrorKind::type_mismatch, w.value->span,
                      "the update changes the field's type: expected " + dim_text(cur) + ", got " + dim_text(v), env)
                    .expecting(dim_text(cur), dim_text(v));
      d.label = "this is " + dim_text(v);
      continue;
    }
    if (TypeP nb = replace_field(base, w.path, 0, v)) base = nb;
  }
  return base;
}

TypeP Checker::match(Expr& e, Env& env) {
  TypeP scrut = expr(*e.kids[0], env);
  TypeP result;
  const bool conv = scrut->k == Type::K::convention;
  if (!is_loose(*scrut) && !conv && scrut->k != Type::K::str) {
    error(ErrorKind::type_mismatch, e.kids[0]->span,
          "match works on a convention or a string, got " + kind_word(*scrut), env);
  }
  std::vector<int> covered;
  bool wildcard = false;
  bool bad_choice = false;  // a misspelt choice is the error; "does not cover" would repeat it
  const ConventionDef* cd = conv ? &p_.conventions[scrut->conv] : nullptr;
  for (auto& arm : e.arms) {
    for (const auto& pat : arm.patterns) {
      if (pat.kind == Pattern::K::wildcard) {
        wildcard = true;
        continue;
      }
      if (!cd) continue;
      if (pat.kind != Pattern::K::name) {
        error(ErrorKind::match_arms, pat.span, "convention choices are names, not strings", env);
        continue;
      }
      const int idx = cd->choice_index(pat.name);
      if (idx < 0) {
        bad_choice = true;
        std::vector<std::string> names;
        for (const auto& c : cd->stmt->choices) names.push_back(sym_name(c.name));
        auto& d = error(ErrorKind::convention_choice, pat.span,
                        "convention '" + sym_name(cd->name) + "' has no choice '" + sym_name(pat.name) + "'", env);
        suggest(d, sym_name(pat.name), names);
        std::string all;
        for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
        d.help.push_back("the choices are: " + all);
        continue;
      }
      if (std::find(covered.begin(), covered.end(), idx) != covered.end())
        error(ErrorKind::match_arms, pat.span, "choice '" + sym_name(pat.name) + "' is matched twice", env);
      covered.push_back(idx);
    }
    TypeP t = expr(*arm.body, env);
    if (!result || is_loose(*result)) {
      if (!result || !is_loose(*t)) result = t;
    } else if (!same_type(*result, *t)) {
      auto& d = error(result->k == t->k ? ErrorKind::dim_mismatch : ErrorKind::type_mismatch, arm.body->span,
                      "match arms disagree: expected " + dim_text(result) + ", got " + dim_text(t), env)
                    .expecting(dim_text(result), dim_text(t));
      d.notes.push_back({e.arms.front().body->span, "the first arm is " + dim_text(result)});
    } else if (result->loose_inside) {
      result = merge_types(result, t);
    }
  }
  if (cd && !wildcard && !bad_choice && covered.size() < cd->stmt->choices.size()) {
    std::string missing;
    for (std::size_t i = 0; i < cd->stmt->choices.size(); ++i)
      if (std::find(covered.begin(), covered.end(), static_cast<int>(i)) == covered.end())
        missing += (missing.empty() ? "" : ", ") + sym_name(cd->stmt->choices[i].name);
    error(ErrorKind::match_arms, e.span, "match on '" + sym_name(cd->name) + "' does not cover: " + missing, env)
        .help.push_back("add an arm for each choice, or `_ => ...`");
  }
  if (!cd && !wildcard && !is_loose(*scrut))
    error(ErrorKind::match_arms, e.span, "a match on a string needs a final `_ => ...` arm", env);
  return result ? result : t_error();
}

TypeP Checker::convert(Expr& e, Env& env) {
  TypeP t = expr(*e.kids[0], env);
  ResolvedUnit u{Num::of_int(1), Dim{}};
  if (!e.target.terms.empty()) {
    auto r = resolve_unit(e.target);
    if (!r) return t_error();
    u = *r;
  }
  if (is_loose(*t)) return t;
  if (t->k != Type::K::num) {
    error(ErrorKind::type_mismatch, e.kids[0]->span, "only numbers convert to units, got " + kind_word(*t), env);
    return t_error();
  }
  if (t->dim != u.dim) {
    auto& d =
        error(ErrorKind::dim_conversion, e.span,
              "cannot convert " + dim_text(t) + " to '" + e.target.text + "', which is " + dim_text(t_num(u.dim)), env);
    d.label = dim_text(t) + " -> " + dim_text(t_num(u.dim));
    const auto cands = p_.units.units_of(t->dim);
    if (!cands.empty()) {
      std::string list;
      for (std::size_t i = 0; i < cands.size() && i < 6; ++i) list += (i ? ", " : "") + cands[i];
      d.help.push_back("units of " + p_.units.dim_name(t->dim) + ": " + list);
    }
    return t_error();
  }
  if (e.resolution && compare(*e.resolution, Num::of_int(0)) <= 0)
    error(ErrorKind::parse_number, e.span, "a resolution must be positive", env);
  return t_num_hint(t->dim, DisplayHint{e.target.text, u.factor, e.resolution});
}

TypeP Checker::expr(Expr& e, Env& env) {
  const NestingGuard guard(nesting_);
  if (nesting_ > kMaxCheckNesting || stack_nearly_exhausted()) {
    if (!too_deep_reported_)
      error(ErrorKind::runtime_depth, e.span,
            "checking nests deeper than " + std::to_string(kMaxCheckNesting) +
                " levels (counting the bodies of called functions)",
            env);
    too_deep_reported_ = true;
    return t_error();
  }
  switch (e.kind) {
    case EK::num: return number(e);
    case EK::boolean: return t_bool();
    case EK::str: return t_str();
    case EK::name: return name(e, env);
    case EK::unary: {
      TypeP t = expr(*e.kids[0], env);
      if (is_loose(*t)) return e.op == Op::not_ ? t_bool() : t;
      if (e.op == Op::not_) {
        if (t->k != Type::K::boolean)
          error(ErrorKind::type_mismatch, e.kids[0]->span, "expected a bool for 'not', got " + kind_word(*t), env);
        return t_bool();
      }
      if (t->k != Type::K::num) {
        error(ErrorKind::type_mismatch, e.kids[0]->span, "expected a number for '-', got " + kind_word(*t), env);
        return t_error();
      }
      return t_num(t->dim);
    }
    case EK::binary: return binary(e, env);
    case EK::call: return call(e, env);
    case EK::field: {
      TypeP t = expr(*e.kids[0], env);
      if (is_loose(*t)) return t;
      if (t->k != Type::K::record) {
        error(ErrorKind::type_mismatch, e.name_span, "'." + sym_name(e.name) + "' needs a record, got " + kind_word(*t),
              env);
        return t_error();
      }
      if (const TypeP* f = t->field(e.name)) return *f;
      std::vector<std::string> names;
      for (const auto& [n, ft] : t->fields) names.push_back(sym_name(n));
      std::sort(names.begin(), names.end());
      auto& d = error(ErrorKind::field_unknown, e.name_span,
                      "no field '" + sym_name(e.name) + "' in " + describe(*t, p_.units), env);
      suggest(d, sym_name(e.name), names);
      return t_error();
    }
    case EK::record: return record(e, env);
    case EK::with: return with(e, env);
    case EK::list: {
      TypeP elem;
      for (auto& k : e.kids) {
        TypeP t = expr(*k, env);
        if (!elem || is_loose(*elem)) {
          elem = t;
        } else if (!same_type(*elem, *t)) {
          auto& d = error(elem->k == t->k ? ErrorKind::dim_mismatch : ErrorKind::type_mismatch, k->span,
                          "list elements disagree: expected " + dim_text(elem) + ", got " + dim_text(t), env)
                        .expecting(dim_text(elem), dim_text(t));
          d.notes.push_back({e.kids.front()->span, "the first element is " + dim_text(elem)});
        } else if (elem->loose_inside) {
          elem = merge_types(elem, t);
        }
      }
      return t_list(elem ? without_hint(elem) : nullptr);
    }
    case EK::if_: {
      TypeP c = expr(*e.kids[0], env);
      if (!is_loose(*c) && c->k != Type::K::boolean)
        error(ErrorKind::type_mismatch, e.kids[0]->span, "an if condition must be a bool, got " + kind_word(*c), env);
      TypeP a = expr(*e.kids[1], env);
      TypeP b = expr(*e.kids[2], env);
      if (is_loose(*a)) return b;
      if (is_loose(*b)) return a;
      if (!same_type(*a, *b)) {
        auto& d = error(a->k == b->k ? ErrorKind::dim_mismatch : ErrorKind::type_mismatch, e.span,
                        "if branches disagree: " + dim_text(a) + " and " + dim_text(b), env)
                      .expecting(dim_text(a), dim_text(b));
        d.notes.push_back({e.kids[1]->span, "this is " + dim_text(a)});
        d.notes.push_back({e.kids[2]->span, "this is " + dim_text(b)});
        return t_error();
      }
      return merge_types(a, b);
    }
    case EK::match: return match(e, env);
    case EK::convert: return convert(e, env);
    case EK::uncertain: return uncertain(e, env);
  }
  return t_error();
}

void Checker::show_items(std::vector<ShowItem>& items, Env& env, bool scalar_only) {
  for (auto& it : items) {
    TypeP t = expr(*it.expr, env);
    note_show(&it, t);
    if (is_loose(*t)) continue;
    const bool scalar = t->k == Type::K::num || t->k == Type::K::boolean || t->k == Type::K::str;
    if (scalar || (!scalar_only && t->k == Type::K::record)) continue;
    error(ErrorKind::type_mismatch, it.expr->span,
          std::string(scalar_only ? "a table column must be a number, bool or string" : "cannot show ") +
              (scalar_only ? ", got " : "") + kind_word(*t),
          env)
        .help.push_back(t->k == Type::K::list ? "sweep over the list to show its elements" : "show its fields instead");
  }
}

// `top K per EXPR`: EXPR names a group, one row of the table's group column per kept point: a
// record (shown by its global name), a string, a bool or a whole number (a count: no dimension;
// whole is checked at run time). Its column is named by EXPR's text: a shown column of that
// name must show EXPR itself (it then is the group's column).
void Checker::top_group(const Stmt& s, Expr& g, Env& env) {
  TypeP t = expr(g, env);
  note_expr(&g, t);  // its type, for the group's column (runtime/sweep)
  if (is_loose(*t)) return;
  const bool ok = t->k == Type::K::record || t->k == Type::K::str || t->k == Type::K::boolean ||
                  (t->k == Type::K::num && t->dim.none());
  if (!ok) {
    auto& d = error(ErrorKind::search_group, g.span,
                    "a group key (`top K per EXPR`) is a record, a string, a bool or a whole number, got " +
                        (t->k == Type::K::num ? "a quantity in " + dim_text(t) : kind_word(*t)),
                    env);
    d.help.push_back(t->k == Type::K::num ? "group by a count, or by the record or string it comes from"
                                          : "group by one of its fields, or by the sweep variable it comes from");
    return;
  }
  auto compact = [&](const Expr& e) {
    std::string out;
    for (const char ch : p_.sources.slice(e.span))
      if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r') out += ch;
    return out;
  };
  const std::string name = compact(g);
  for (const auto& item : s.body)
    if (item.kind == BK::show)
      for (const auto& sh : item.shows)
        if (sh.label == name && (t->k == Type::K::record || compact(*sh.expr) != name))
          error(ErrorKind::search_group, sh.span,
                "the column '" + name + "' is the group's (`per " + name + "`), but it shows something else", env)
              .help.push_back("rename this column (`show other = ...`), or show `" + name + "` itself");
}

void Checker::sweep(Stmt& s) {
  Env env;
  env.slots.assign(static_cast<std::size_t>(s.nslots), t_error());
  for (auto& b : s.bindings) {
    std::vector<TypeP> elems;
    for (auto& d : b.domains) {
      TypeP t = expr(*d, env);
      if (b.range_to) {
        if (!is_loose(*t) && t->k != Type::K::num)
          error(ErrorKind::sweep_decl, d->span, "a range starts with a number, got " + kind_word(*t), env);
        elems.push_back(t);
        continue;
      }
      if (is_loose(*t)) {
        elems.push_back(t);
        continue;
      }
      if (t->k != Type::K::list) {
        error(ErrorKind::sweep_decl, d->span,
              "a sweep variable ranges over a list or a range a..b, got " + kind_word(*t), env);
        elems.push_back(t_error());
        continue;
      }
      if (!t->elem) error(ErrorKind::sweep_decl, d->span, "a sweep over an empty list has no rows", env);
      elems.push_back(t->elem ? t->elem : t_error());
    }
    if (b.range_to) {
      TypeP to = expr(*b.range_to, env);
      if (!is_loose(*to) && !is_loose(*elems[0]) && (to->k != Type::K::num || to->dim != elems[0]->dim))
        error(ErrorKind::dim_mismatch, b.range_to->span,
              "a range's ends disagree: " + dim_text(elems[0]) + " and " + dim_text(to), env);
      if (b.step) {
        TypeP st = expr(*b.step, env);
        if (!is_loose(*st) && !is_loose(*elems[0])) {
          const bool ok = st->k == Type::K::num && (b.step_op == '*' ? st->dim.none() : st->dim == elems[0]->dim);
          if (!ok)
            error(ErrorKind::dim_mismatch, b.step->span,
                  b.step_op == '*' ? "a multiplicative step is dimensionless, got " + dim_text(st)
                                   : "an additive step must be " + dim_text(elems[0]) + ", got " + dim_text(st),
                  env);
        }
      }
    }
    for (std::size_t i = 0; i < b.slots.size() && i < elems.size(); ++i)
      env.slots[static_cast<std::size_t>(b.slots[i])] = without_hint(elems[i]);
  }
  int objectives = 0;
  for (auto& item : s.body) {
    switch (item.kind) {
      case BK::let: env.slots[static_cast<std::size_t>(item.slot)] = expr(*item.exprs[0], env); break;
      case BK::show: show_items(item.shows, env, true); break;
      case BK::assert_:
      case BK::where:
      case BK::subject:
        for (auto& x : item.exprs) {
          TypeP t = expr(*x, env);
          if (!is_loose(*t) && t->k != Type::K::boolean)
            error(ErrorKind::type_mismatch, x->span, "expected a bool condition, got " + kind_word(*t), env);
        }
        break;
      case BK::maximize:
      case BK::minimize:
      case BK::pareto:
        ++objectives;
        if (s.kind == SK::sweep)
          error(ErrorKind::sweep_decl, item.span, "objectives belong in a `search`, not a `sweep`", env);
        for (auto& x : item.exprs) {
          TypeP t = expr(*x, env);
          if (!is_loose(*t) && t->k != Type::K::num)
            error(ErrorKind::type_mismatch, x->span, "an objective must be a number, got " + kind_word(*t), env);
          note_expr(x.get(), t);  // its unit, for the search's chart (runtime/sweep)
        }
        break;
      case BK::top:
        if (s.kind == SK::sweep) error(ErrorKind::sweep_decl, item.span, "`top` belongs in a `search`", env);
        if (!item.exprs.empty()) top_group(s, *item.exprs[0], env);
        break;
    }
  }
  if (s.kind == SK::search && objectives != 1)
    error(ErrorKind::sweep_decl, s.name_span,
          objectives == 0 ? "a search needs an objective (`maximize EXPR`, `minimize EXPR` or `pareto ...`)"
                          : "a search has one objective (use `pareto` for two)",
          env);
}

void Checker::check_stmt(Stmt& s) {
  Env env;
  env.slots.assign(static_cast<std::size_t>(s.nslots), t_error());
  switch (s.kind) {
    case SK::show: show_items(s.shows, env, false); break;
    case SK::assert_:
      for (auto& it : s.shows) {
        TypeP t = expr(*it.expr, env);
        note_show(&it, t);
        if (it.expr->kind == EK::binary && it.expr->op >= Op::eq && it.expr->op <= Op::ge)
          for (auto& k : it.expr->kids) note_expr(k.get(), expr(*k, env));
        if (!is_loose(*t) && t->k != Type::K::boolean)
          error(ErrorKind::type_mismatch, it.expr->span, "assert needs a bool, got " + kind_word(*t), env);
      }
      break;
    case SK::sweep:
    case SK::search: sweep(s); break;
    case SK::set: check_override(s.path, s.name_span, *s.value, s.nslots); break;
    default: break;
  }
}

void Checker::check_override(const std::vector<Sym>& path, Span path_span, Expr& value, int nslots) {
  Env env;
  env.slots.assign(static_cast<std::size_t>(std::max(nslots, 0)), t_error());
  const Decl* d = p_.lookup(path.front());
  mark_set_reads_target(p_, path, value);
  const std::vector<Expr*> lits = set_replaced_literals(p_, path, value);
  if (!lits.empty()) {
    TypeP v = expr(value, env);
    std::string where;
    for (Sym s : path) where += (where.empty() ? "" : ".") + sym_name(s);
    Env none;
    TypeP cur = expr(*lits.front(), none);
    if (!is_loose(*v) && !is_loose(*cur) && !same_type(*cur, *v)) {
      auto& dg = p_.diags
                     .error(cur->k == v->k ? ErrorKind::dim_mismatch : ErrorKind::type_mismatch, value.span,
                            "'" + where + "' is " + dim_text(cur) + ", got " + dim_text(v))
                     .expecting(dim_text(cur), dim_text(v));
      dg.label = "this is " + dim_text(v);
      dg.notes.push_back({lits.front()->span, "'" + where + "' is written here"});
    }
    return;
  }
  TypeP v = expr(value, env);
  if (!d || d->kind != RefKind::global) {
    std::vector<std::string> names;
    for (const auto& g : p_.globals) names.push_back(sym_name(g.name));
    std::sort(names.begin(), names.end());
    std::string full;
    for (Sym s : path) full += (full.empty() ? "" : ".") + sym_name(s);
    if (path.size() > 1) {
      // A dotted name is looked up among the defaults and registry fields assumption lists print.
      names.clear();
      for (AtomId a = 0; a < p_.deps.atom_count(); ++a)
        if (p_.deps.is_assumption(a)) {
          const Assumption& as = p_.deps.assumption(a);
          if (as.kind == AssumptionKind::default_ || as.kind == AssumptionKind::registry ||
              as.kind == AssumptionKind::set)
            names.push_back(as.name);
        }
      std::sort(names.begin(), names.end());
      names.erase(std::unique(names.begin(), names.end()), names.end());
    }
    auto& dg = p_.diags.error(ErrorKind::param_unknown, path_span,
                              path.size() > 1 ? "'" + full + "' is not a default or parameter that can be set"
                                              : "'" + sym_name(path.front()) + "' is not a parameter that can be set");
    suggest(dg, path.size() > 1 ? full : sym_name(path.front()), names);
    if (path.size() > 1)
      dg.help.push_back(
          "any name an assumption list prints as `default NAME = ...` or `registry NAME = ...` can be set");
    if (d && path.size() == 1) dg.notes.push_back({d->span, "'" + sym_name(path.front()) + "' is defined here"});
    return;
  }
  TypeP cur = global_type(d->index);
  if (!cur) return;
  std::string where = sym_name(path.front());
  for (std::size_t i = 1; i < path.size() && cur; ++i) {
    if (cur->k != Type::K::record) {
      p_.diags.error(ErrorKind::type_mismatch, path_span, "'" + where + "' is not a record");
      return;
    }
    const TypeP* f = cur->field(path[i]);
    if (!f) {
      std::vector<std::string> names;
      for (const auto& [n, t] : cur->fields) names.push_back(sym_name(n));
      auto& dg = p_.diags.error(ErrorKind::field_unknown, path_span,
                                "'" + where + "' has no field '" + sym_name(path[i]) + "'");
      suggest(dg, sym_name(path[i]), names);
      return;
    }
    where += "." + sym_name(path[i]);
    cur = *f;
  }
  if (cur && !is_loose(*v) && !is_loose(*cur) && !same_type(*cur, *v)) {
    auto& dg = p_.diags
                   .error(cur->k == v->k ? ErrorKind::dim_mismatch : ErrorKind::type_mismatch, value.span,
                          "'" + where + "' is " + dim_text(cur) + ", got " + dim_text(v))
                   .expecting(dim_text(cur), dim_text(v));
    dg.label = "this is " + dim_text(v);
  }
}

void Checker::check_program() {
  check_added(0, 0, 0);
  for (Stmt* s : p_.main_stmts) check_stmt(*s);
}

void Checker::check_added(std::size_t first_global, std::size_t first_function, std::size_t first_preset) {
  for (auto g = static_cast<std::uint32_t>(first_global); g < p_.globals.size(); ++g) (void)global_type(g);
  for (auto f = static_cast<std::uint32_t>(first_function); f < p_.functions.size(); ++f) check_function_standalone(f);
  // Preset `set` items are checked like scenario ones.
  for (std::size_t i = first_preset; i < p_.presets.size(); ++i)
    for (auto& it : p_.presets[i].stmt->items)
      if (it.kind == SK::set) check_override(it.path, it.name_span, *it.value, 0);
}

}  // namespace mls
