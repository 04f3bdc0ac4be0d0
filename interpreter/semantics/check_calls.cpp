// check_calls.cpp — checking calls: natives by their type rules, user functions once per
// argument-type signature (a recursive one until its result type settles), and the memo of it.
#include <algorithm>

#include "check.hpp"
#include "grammar/symbols.hpp"
#include "natives.hpp"

namespace mls {

namespace {
constexpr std::size_t kMaxInstDepth = 64;
// Each call with new argument types checks the body again. Functions that call themselves with
// ever-new record types (`f({a: x})` and `f({b: x})` in one body) would instantiate
// exponentially many signatures; this caps the total.
constexpr std::size_t kMaxInstances = 20000;
// Per function, since finding an instantiation scans the function's list.
constexpr std::size_t kMaxInstancesPerFunction = 256;
}  // namespace

void Checker::note_call(const Expr* call, int caller, int inst) {
  auto [it, added] = call_insts_.try_emplace({call, caller}, inst);
  if (added) {
    call_log_.emplace_back(call, caller);
  } else if (it->second != inst) {
    call_undo_.emplace_back(it->first, it->second);
    it->second = inst;
  }
}

Checker::Mark Checker::mark() const {
  return Mark{insts_.size(),    inst_ids_.size(),  show_log_.size(), expr_log_.size(),
              call_log_.size(), call_undo_.size(), reported_.size()};
}

void Checker::rollback(const Mark& m) {
  // Instantiations newer than the mark are the last of their function's list, newest last.
  for (std::size_t id = inst_ids_.size(); id-- > m.inst_ids;) insts_[inst_ids_[id].first].pop_back();
  inst_ids_.resize(m.inst_ids);
  if (insts_.size() > m.functions) insts_.resize(m.functions);
  // Keys added after the mark belong to statements being dropped (their addresses may be reused).
  for (std::size_t i = m.show_log; i < show_log_.size(); ++i) show_types_.erase(show_log_[i]);
  show_log_.resize(m.show_log);
  for (std::size_t i = m.expr_log; i < expr_log_.size(); ++i) expr_types_.erase(expr_log_[i]);
  expr_log_.resize(m.expr_log);
  // An old call pointed at another instantiation since goes back to the one it had, which
  // exists (it is older than the mark); newer keys go.
  for (std::size_t i = call_undo_.size(); i-- > m.call_undo;) {
    auto it = call_insts_.find(call_undo_[i].first);
    if (it != call_insts_.end()) it->second = call_undo_[i].second;
  }
  call_undo_.resize(m.call_undo);
  for (std::size_t i = m.call_log; i < call_log_.size(); ++i) call_insts_.erase(call_log_[i]);
  call_log_.resize(m.call_log);
  reported_.resize(m.reported);
  inst_depth_ = 0;
}

TypeP Checker::call(Expr& e, Env& env) {
  if (e.ref.kind == RefKind::function) return call_function(e, env, e.ref.index);
  std::vector<TypeP> args;
  for (auto& a : e.args) args.push_back(expr(*a.value, env));
  if (e.ref.kind != RefKind::native) return t_error();
  const NativeDef& nd = p_.natives[e.ref.index];
  const NativeImpl& impl = native_table()[static_cast<std::size_t>(nd.impl)];
  // Natives take positional arguments; names are allowed if they match the declaration.
  for (std::size_t i = 0; i < e.args.size(); ++i)
    if (e.args[i].name != kNoSym && (i >= nd.stmt->params.size() || nd.stmt->params[i].name != e.args[i].name)) {
      error(ErrorKind::call_arity, e.args[i].name_span, "'" + sym_name(e.name) + "' takes positional arguments", env);
      return t_error();
    }
  if (args.size() != impl.arity) {
    std::string sig;
    for (const auto& prm : nd.stmt->params) sig += (sig.empty() ? "" : ", ") + sym_name(prm.name);
    error(ErrorKind::call_arity, e.span,
          "'" + sym_name(e.name) + "' takes " + std::to_string(impl.arity) + " argument" +
              (impl.arity == 1 ? "" : "s") + ", got " + std::to_string(args.size()),
          env)
        .help.push_back("signature: " + sym_name(e.name) + "(" + sig + ")");
    return t_error();
  }
  NativeCheck nc{p_, e, std::move(args), p_.diags};
  const std::size_t before = p_.diags.size();
  TypeP r = impl.type(nc);
  for (std::size_t i = before; i < p_.diags.size(); ++i) note_calls(const_cast<Diagnostic&>(p_.diags.items()[i]), env);
  return r;
}

namespace {
std::string choices_text(const Param& p) {
  std::string s;
  for (const auto& c : p.choices) s += (s.empty() ? "\"" : " | \"") + c + "\"";
  return s;
}
}  // namespace

// A string argument of a parameter declared `p: "a" | "b"`. Only a literal is known before the run;
// any other string is the function body's to check when it runs.
bool Checker::choice_ok(const Param& prm, const Type& t, const Expr& value, Span at, Env& env) {
  if (t.k != Type::K::str) {
    auto& d = error(
        ErrorKind::type_mismatch, at,
        "argument '" + sym_name(prm.name) + "' must be a string (" + choices_text(prm) + "), got " + kind_word(t), env);
    d.expecting("a string", kind_word(t));
    d.notes.push_back({prm.choices_span, "declared here"});
    return false;
  }
  if (value.kind != EK::str || std::find(prm.choices.begin(), prm.choices.end(), value.str) != prm.choices.end())
    return true;
  auto& d = error(
      ErrorKind::call_choice, at,
      "argument '" + sym_name(prm.name) + "' must be one of " + choices_text(prm) + ", got \"" + value.str + "\"", env);
  d.subject = sym_name(prm.name);
  d.expecting(choices_text(prm), "\"" + value.str + "\"");
  suggest(d, value.str, prm.choices, '"');
  d.notes.push_back({prm.choices_span, "declared here"});
  return false;
}

// The arguments of a call of function `fn` matched to its parameters (positional, then named),
// each checked against the parameter's annotation and choices; false if any error was reported.
bool Checker::bind_arguments(Expr& e, Env& env, std::uint32_t fn, std::vector<TypeP>& passed) {
  const Stmt& decl = *p_.functions[fn].stmt;
  const auto& params = decl.params;
  passed.assign(params.size(), nullptr);
  std::vector<Span> spans(params.size());
  std::vector<const Expr*> values(params.size(), nullptr);
  bool bad = false;
  std::size_t positional = 0;
  for (auto& a : e.args) {
    TypeP t = expr(*a.value, env);
    std::size_t idx = 0;
    if (a.name == kNoSym) {
      idx = positional++;
      if (idx >= params.size()) {
        error(ErrorKind::call_arity, a.value->span,
              "'" + sym_name(e.name) + "' takes " + std::to_string(params.size()) + " parameter" +
                  (params.size() == 1 ? "" : "s") + ", got more",
              env)
            .notes.push_back({decl.name_span, "defined here"});
        bad = true;
        continue;
      }
    } else {
      auto it = std::find_if(params.begin(), params.end(), [&](const Param& p) { return p.name == a.name; });
      if (it == params.end()) {
        std::vector<std::string> names;
        for (const auto& p : params) names.push_back(sym_name(p.name));
        auto& d = error(ErrorKind::call_arity, a.name_span,
                        "'" + sym_name(e.name) + "' has no parameter '" + sym_name(a.name) + "'", env);
        suggest(d, sym_name(a.name), names);
        d.notes.push_back({decl.name_span, "defined here"});
        bad = true;
        continue;
      }
      idx = static_cast<std::size_t>(it - params.begin());
    }
    if (passed[idx]) {
      error(ErrorKind::call_arity, a.value->span, "parameter '" + sym_name(params[idx].name) + "' is given twice", env);
      bad = true;
      continue;
    }
    passed[idx] = t;
    spans[idx] = a.value->span;
    values[idx] = a.value.get();
  }
  std::string missing;
  for (std::size_t i = 0; i < params.size(); ++i)
    if (!passed[i] && !params[i].default_value) missing += (missing.empty() ? "" : ", ") + sym_name(params[i].name);
  if (!missing.empty()) {
    error(ErrorKind::call_arity, e.span, "missing argument for '" + sym_name(e.name) + "': " + missing, env)
        .notes.push_back({decl.name_span, "defined here"});
    bad = true;
  }
  // Annotated parameters: the argument must have the declared dimension.
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (!passed[i] || !params[i].annotation || is_loose(*passed[i])) continue;
    auto u = resolve_unit(*params[i].annotation, false);
    if (!u) continue;
    if (passed[i]->k != Type::K::num || passed[i]->dim != u->dim) {
      auto& d = error(passed[i]->k == Type::K::num ? ErrorKind::dim_mismatch : ErrorKind::type_mismatch, spans[i],
                      "argument '" + sym_name(params[i].name) + "' must be " + dim_text(t_num(u->dim)) + ", got " +
                          dim_text(passed[i]),
                      env);
      d.notes.push_back({params[i].span, "declared here"});
      bad = true;
    }
  }
  // Parameters that accept named strings: a literal argument must be one of them.
  for (std::size_t i = 0; i < params.size(); ++i)
    if (passed[i] && !params[i].choices.empty() && !is_loose(*passed[i]) &&
        !choice_ok(params[i], *passed[i], *values[i], spans[i], env))
      bad = true;
  return !bad;
}

TypeP Checker::call_function(Expr& e, Env& env, std::uint32_t fn) {
  const Stmt& decl = *p_.functions[fn].stmt;
  const auto& params = decl.params;
  std::vector<TypeP> passed;
  if (!bind_arguments(e, env, fn, passed)) return t_error();
  for (const auto& t : passed)
    if (t && t->k == Type::K::error) return t_error();

  // Memoised per argument-type signature.
  if (insts_.size() < p_.functions.size()) insts_.resize(p_.functions.size());
  auto& list = insts_[fn];
  for (auto& inst : list) {
    bool eq = true;
    for (std::size_t i = 0; i < params.size() && eq; ++i) {
      if (!inst.args[i] != !passed[i])
        eq = false;
      else if (passed[i] && (!same_type(*inst.args[i], *passed[i]) || inst.args[i]->k != passed[i]->k))
        eq = false;
    }
    if (eq) {
      if (inst.active) inst.recursed = true;  // a recursive call: its result is provisional
      note_call(&e, env.inst, inst.id);
      return inst.result;
    }
  }
  if (inst_depth_ >= kMaxInstDepth) {
    error(ErrorKind::runtime_depth, e.span, "functions instantiate each other too deeply (more than 64 levels)", env);
    return t_error();
  }
  if (++inst_count_ > kMaxInstances || list.size() >= kMaxInstancesPerFunction) {
    if (!too_many_reported_)
      error(ErrorKind::runtime_depth, e.span,
            list.size() >= kMaxInstancesPerFunction
                ? "'" + sym_name(e.name) + "' is called with more than " + std::to_string(kMaxInstancesPerFunction) +
                      " different argument types"
                : "functions are called with more than " + std::to_string(kMaxInstances) + " different argument types",
            env)
          .help.push_back("each new combination of argument types checks the function body again");
    too_many_reported_ = true;
    return t_error();
  }
  std::vector<TypeP> key;
  for (const auto& t : passed) key.push_back(t ? without_hint(t) : nullptr);
  const int id = new_instance(fn, key);
  const std::size_t my = insts_[fn].size() - 1;
  note_call(&e, env.inst, id);
  ++inst_depth_;
  TypeP r = check_instance(fn, my, [&] {
    Env inner;
    inner.slots.assign(static_cast<std::size_t>(decl.nslots), t_error());
    inner.calls = env.calls;
    inner.calls.push_back(e.span);
    inner.inst = id;
    insts_[fn][my].param_types.clear();
    for (std::size_t i = 0; i < params.size(); ++i) {
      TypeP t = passed[i];
      if (!t) t = expr(*params[i].default_value, inner);
      inner.slots[static_cast<std::size_t>(params[i].slot)] = t;
      insts_[fn][my].param_types.push_back(t);
    }
    return expr(*decl.value, inner);
  });
  --inst_depth_;
  return r;
}

TypeP Checker::check_instance(std::uint32_t fn, std::size_t my, const std::function<TypeP()>& pass) {
  // A recursive call sees the instantiation's result so far: `pending` on the first pass, which
  // is compatible with everything. Checking the body again with the result of the previous pass
  // until it no longer changes is what catches `f(n - 1) + 1 GB` in a function of Time, and
  // gives `{a: f(n - 1).a}` its real type instead of showing an unchecked number.
  constexpr int kMaxPasses = 8;
  // What a pass adds (instantiations, call records, expression types) can be undone: the
  // REPL's rollback, from just after this instantiation was made.
  const Mark before_pass = mark();
  for (int n = 1;; ++n) {
    insts_[fn][my].active = true;
    insts_[fn][my].recursed = false;
    TypeP r = pass();
    Inst& me = insts_[fn][my];  // re-index: the body may have added instantiations of fn
    me.active = false;
    // An error result was reported already; another pass would only flip between error and not.
    const bool settled = !me.recursed || is_loose(*r) || same_type_strict(*r, *me.result);
    me.result = r;
    if (settled) return r;
    if (n == kMaxPasses) {
      error(ErrorKind::type_mismatch, p_.functions[fn].stmt->name_span,
            "the result type of recursive function '" + sym_name(p_.functions[fn].name) + "' does not settle", Env{});
      me.result = t_error();
      return me.result;
    }
    // Instantiations made during this pass may have used the provisional result: drop them, so
    // the next pass checks them again with the new one. (Repeated messages are shown once.)
    const std::size_t depth = inst_depth_;
    rollback(before_pass);
    inst_depth_ = depth;
  }
}

void Checker::check_function_standalone(std::uint32_t fn) {
  // Functions whose parameters all have defaults or annotations are checked even if unused.
  const Stmt& decl = *p_.functions[fn].stmt;
  for (const auto& prm : decl.params)
    if (!prm.default_value && !prm.annotation && prm.choices.empty()) return;
  Expr fake;
  fake.kind = EK::call;
  fake.span = decl.name_span;
  fake.name = decl.name;
  fake.ref = Ref{RefKind::function, fn};
  // Annotated parameters without defaults get a synthetic argument of the annotated dimension.
  std::vector<TypeP> passed(decl.params.size());
  Env env;
  // A default outside the parameter's own choices is the definition's mistake.
  for (const auto& prm : decl.params)
    if (!prm.choices.empty() && prm.default_value && prm.default_value->kind == EK::str)
      (void)choice_ok(prm, *t_str(), *prm.default_value, prm.default_value->span, env);
  for (std::size_t i = 0; i < decl.params.size(); ++i) {
    if (decl.params[i].default_value) continue;
    if (!decl.params[i].choices.empty()) {
      passed[i] = t_str();
      continue;
    }
    auto u = resolve_unit(*decl.params[i].annotation);
    passed[i] = u ? t_num(u->dim) : t_error();
  }
  if (insts_.size() < p_.functions.size()) insts_.resize(p_.functions.size());
  for (const auto& inst : insts_[fn]) {
    bool all_default = true;
    for (std::size_t i = 0; i < inst.args.size(); ++i)
      if (inst.args[i] && !(passed[i] && same_type(*inst.args[i], *passed[i]))) all_default = false;
    if (all_default) return;
  }
  const int id = new_instance(fn, passed);
  const std::size_t my = insts_[fn].size() - 1;
  ++inst_depth_;
  (void)check_instance(fn, my, [&] {
    Env inner;
    inner.slots.assign(static_cast<std::size_t>(decl.nslots), t_error());
    inner.inst = id;
    insts_[fn][my].param_types.clear();
    for (std::size_t i = 0; i < decl.params.size(); ++i) {
      inner.slots[static_cast<std::size_t>(decl.params[i].slot)] =
          passed[i] ? passed[i] : expr(*decl.params[i].default_value, inner);
      insts_[fn][my].param_types.push_back(inner.slots[static_cast<std::size_t>(decl.params[i].slot)]);
    }
    return expr(*decl.value, inner);
  });
  --inst_depth_;
}

int Checker::new_instance(std::uint32_t fn, std::vector<TypeP> args) {
  const int id = static_cast<int>(inst_ids_.size());
  inst_ids_.emplace_back(fn, insts_[fn].size());
  insts_[fn].push_back({std::move(args), t_pending(), id, {}});
  return id;
}

int Checker::call_instance(const Expr& call, int caller) const {
  auto it = call_insts_.find({&call, caller});
  return it == call_insts_.end() ? -1 : it->second;
}

TypeP Checker::instance_result(int inst) const {
  if (inst < 0 || static_cast<std::size_t>(inst) >= inst_ids_.size()) return nullptr;
  const auto [fn, pos] = inst_ids_[static_cast<std::size_t>(inst)];
  return insts_[fn][pos].result;
}

TypeP Checker::instance_param(int inst, std::size_t param) const {
  if (inst < 0 || static_cast<std::size_t>(inst) >= inst_ids_.size()) return nullptr;
  const auto [fn, pos] = inst_ids_[static_cast<std::size_t>(inst)];
  const auto& pt = insts_[fn][pos].param_types;
  return param < pt.size() ? pt[param] : nullptr;
}

}  // namespace mls
