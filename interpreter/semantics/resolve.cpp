// resolve.cpp — binds names to slots/declarations, numbers frames, creates branch sites and
// the assumptions of literals (parameters, registry fields, parameter defaults).
#include "resolve.hpp"

#include <algorithm>
#include <unordered_set>

#include "grammar/symbols.hpp"
#include "natives.hpp"

namespace mls {

std::string utf8_prefix(std::string_view s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return std::string(s);
  // Cut on a character boundary: never between the bytes of one UTF-8 sequence.
  std::size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return std::string(s.substr(0, cut));
}

std::string compact_text(std::string_view s, std::size_t max) {
  std::string out;
  bool space = false;
  bool in_comment = false;
  for (char c : s) {
    if (in_comment) {
      if (c == '\n') in_comment = false;
      continue;
    }
    if (c == '#') {
      in_comment = true;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  if (out.size() > max) out = utf8_prefix(out, max - 3) + "...";
  return out;
}

namespace {

// Variables one sweep or search binds (each name of a zipped tuple counts): more is a generated
// file, and the cost of each is paid at every point (sweep.decl).
constexpr std::size_t kMaxSweepVariables = 100;

class Resolver {
 public:
  Resolver(Program& p, bool stdlib, const std::vector<Sym>* broken = nullptr)
      : p_(p), stdlib_(stdlib), broken_(broken) {}

  int nslots() const { return max_; }

  int push(Sym name, Span span) {
    locals_.push_back({name, next_, span});
    const int slot = next_++;
    max_ = std::max(max_, next_);
    return slot;
  }
  std::size_t mark() const { return locals_.size(); }
  void pop_to(std::size_t m) { locals_.resize(m); }

  // Literal leaves of a value bound to `path` become assumptions.
  void literal_atoms(Expr& e, const std::string& path, AssumptionKind kind) {
    if (is_literal(e)) {
      Assumption a;
      a.kind = kind;
      a.name = path;
      a.value = compact_text(p_.sources.slice(e.span));
      a.at = e.span;
      a.via = stdlib_ ? ViaKind::stdlib : ViaKind::scenario;
      e.atom = static_cast<std::int32_t>(p_.deps.add_assumption(std::move(a)));
      return;
    }
    if (e.kind == EK::record) {
      for (auto& it : e.items)
        if (!it.is_let) literal_atoms(*it.value, path + "." + sym_name(it.name), kind);
    } else if (e.kind == EK::with) {
      for (auto& w : e.with_items) {
        std::string sub = path;
        for (Sym s : w.path) sub += "." + sym_name(s);
        literal_atoms(*w.value, sub, kind);
      }
    } else if (e.kind == EK::convert) {
      literal_atoms(*e.kids[0], path, kind);
    } else if (e.kind == EK::call && stdlib_) {
      // A stdlib registry entry built by a constructor (`let Llama3_70B = transformer(layers = 80,
      // ...)`): its named literal arguments are its assumptions, named after the entry and parameter.
      for (auto& a : e.args)
        if (a.name != kNoSym) literal_atoms(*a.value, path + "." + sym_name(a.name), kind);
    }
  }

  // Every uncertain literal is an assumption, also where no name binds it (a function body, a
  // `set` value, a show): named after its statement, so a run without --uncertainty lists it.
  void uncertain_atoms(Stmt& s) {
    std::string name = sym_name(s.name);
    if (s.kind == SK::set) {
      name.clear();
      for (Sym x : s.path) name += (name.empty() ? "" : ".") + sym_name(x);
    }
    auto walk = [&](auto& self, Expr& e, const std::string& at) -> void {
      if (e.kind == EK::uncertain && e.atom < 0) {
        Assumption a;
        a.kind = stdlib_ ? AssumptionKind::default_ : AssumptionKind::set;
        a.name = at.empty() ? "uncertain literal" : at;
        a.value = compact_text(p_.sources.slice(e.span));
        a.at = e.span;
        a.via = stdlib_ ? ViaKind::stdlib : ViaKind::scenario;
        e.atom = static_cast<std::int32_t>(p_.deps.add_assumption(std::move(a)));
      }
      for_each_child(e, [&](Expr& k) { self(self, k, at); });
    };
    // The value first: its literals are numbered before any parameter default's.
    if (s.value) walk(walk, *s.value, name);
    for_each_stmt_expr(s, [&](Expr& e) {
      if (&e == s.value.get()) return;
      std::string at;
      for (const auto& prm : s.params)
        if (prm.default_value.get() == &e) at = name + "." + sym_name(prm.name);
      walk(walk, e, at);
    });
    for (auto& it : s.items) {
      std::string path;
      for (Sym x : it.path) path += (path.empty() ? "" : ".") + sym_name(x);
      if (it.value) walk(walk, *it.value, path);
    }
  }

  void params(std::vector<Param>& ps, const std::string& fname) {
    // Defaults see the parameters before them, so push as we go.
    for (auto& prm : ps) {
      if (prm.default_value) {
        expr(*prm.default_value);
        literal_atoms(*prm.default_value, fname + "." + sym_name(prm.name),
                      stdlib_ ? AssumptionKind::default_ : AssumptionKind::set);
      }
      for (std::size_t i = 0; i < locals_.size(); ++i)
        if (locals_[i].name == prm.name)
          p_.diags.error(ErrorKind::name_duplicate, prm.span, "parameter '" + sym_name(prm.name) + "' is listed twice");
      prm.slot = push(prm.name, prm.span);
    }
  }

  void expr(Expr& e) {
    switch (e.kind) {
      case EK::num:
      case EK::boolean:
      case EK::str: return;
      case EK::name: name(e); return;
      case EK::call: call(e); return;
      case EK::record: {
        const std::size_t m = mark();
        for (auto& it : e.items) {
          expr(*it.value);
          it.slot = push(it.name, it.name_span);
        }
        pop_to(m);
        return;
      }
      case EK::with:
        expr(*e.kids[0]);
        for (auto& w : e.with_items) expr(*w.value);
        return;
      case EK::if_:
        for (auto& k : e.kids) expr(*k);
        e.site = p_.deps.add_site(Site{
            e.span,
            "if " + compact_text(p_.sources.slice(e.kids[0]->span)),
            {compact_text(p_.sources.slice(e.kids[1]->span), 40), compact_text(p_.sources.slice(e.kids[2]->span), 40)},
            {compact_text(p_.sources.slice(e.kids[1]->span), 1000),
             compact_text(p_.sources.slice(e.kids[2]->span), 1000)}});
        return;
      case EK::match: {
        expr(*e.kids[0]);
        std::vector<std::string> arms;
        for (auto& a : e.arms) {
          expr(*a.body);
          std::string label;
          for (const auto& pat : a.patterns) {
            if (!label.empty()) label += " | ";
            label += compact_text(p_.sources.slice(pat.span), 30);
          }
          arms.push_back(label);
        }
        e.site = p_.deps.add_site(Site{e.span, "match " + compact_text(p_.sources.slice(e.kids[0]->span)), arms, {}});
        return;
      }
      default:
        for (auto& k : e.kids) expr(*k);
        return;
    }
  }

  void stmt(Stmt& s) {
    switch (s.kind) {
      case SK::let:
        if (s.has_params) {
          params(s.params, sym_name(s.name));
          expr(*s.value);
        } else {
          expr(*s.value);
          if (s.literals_are_assumptions)
            literal_atoms(*s.value, sym_name(s.name),
                          stdlib_
                              ? (s.value->kind == EK::record || s.value->kind == EK::with || s.value->kind == EK::call
                                     ? AssumptionKind::registry
                                     : AssumptionKind::default_)
                              : AssumptionKind::set);
        }
        break;
      case SK::native: {
        params(s.params, sym_name(s.name));
        const int impl = find_native(sym_name(s.name));
        // Only the prelude declares natives (declare() rejects them elsewhere).
        if (stdlib_ && impl >= 0 && native_arity(impl) != s.params.size())
          p_.diags.error(
              ErrorKind::internal, s.name_span,
              "native '" + sym_name(s.name) + "' takes " + std::to_string(native_arity(impl)) + " parameters in C++");
        break;
      }
      case SK::show:
      case SK::assert_:
        for (auto& it : s.shows) expr(*it.expr);
        break;
      case SK::set: expr(*s.value); break;
      case SK::preset_def:
        for (auto& it : s.items)
          if (it.kind == SK::set) expr(*it.value);
        break;
      case SK::sweep:
      case SK::search:
        for (auto& b : s.bindings) {
          for (auto& d : b.domains) expr(*d);
          if (b.range_to) expr(*b.range_to);
          if (b.step) expr(*b.step);
        }
        // Domains are evaluated outside the sweep; variables are visible only in the body.
        // Each name once, through a set: N bindings of one name made N^2/2 errors (5000 took
        // 4.8 GB; found by the structured fuzz mode), and a scan of the bindings before each
        // is quadratic in a 16 MiB file's million of them.
        {
          std::size_t variables = 0;
          for (const auto& b : s.bindings) variables += b.names.size();
          if (variables > kMaxSweepVariables) {
            // No sweep of the study has more than a handful; each variable costs every point.
            std::size_t n = 0;
            for (const auto& b : s.bindings)
              for (std::size_t i = 0; i < b.names.size() && n <= kMaxSweepVariables; ++i)
                if (++n > kMaxSweepVariables)
                  p_.diags
                      .error(ErrorKind::sweep_decl, b.name_spans[i],
                             "a sweep or search binds at most " + std::to_string(kMaxSweepVariables) +
                                 " variables, this one " + std::to_string(variables))
                      .help.push_back("zip lists into one variable tuple, or split the sweep");
          }
          std::unordered_set<Sym> bound;
          for (const auto& l : locals_) bound.insert(l.name);
          for (auto& b : s.bindings)
            for (std::size_t i = 0; i < b.names.size(); ++i) {
              if (!bound.insert(b.names[i]).second)
                p_.diags.error(ErrorKind::name_duplicate, b.name_spans[i],
                               "sweep variable '" + sym_name(b.names[i]) + "' is bound twice");
              b.slots.push_back(push(b.names[i], b.name_spans[i]));
            }
        }
        for (auto& item : s.body) {
          for (auto& x : item.exprs) expr(*x);
          for (auto& sh : item.shows) expr(*sh.expr);
          if (item.kind == BK::let) item.slot = push(item.name, item.span);
        }
        break;
      case SK::solve: {
        // The range is evaluated outside; NAME is a local of the comparison only (elsewhere
        // NAME is the global the solve declares: its answer).
        Binding& b = s.bindings.at(0);
        expr(*b.domains.at(0));
        if (b.range_to) expr(*b.range_to);
        if (b.step) expr(*b.step);
        b.slots.push_back(push(s.name, s.name_span));
        expr(*s.value);
        break;
      }
      default: break;
    }
    s.nslots = max_;
    uncertain_atoms(s);
  }

 private:
  struct Local {
    Sym name;
    int slot;
    Span span;
  };

  void name(Expr& e) {
    if (e.name == kNoSym) return;  // the parser's stand-in for a cut expression (reported there)
    for (auto it = locals_.rbegin(); it != locals_.rend(); ++it)
      if (it->name == e.name) {
        e.ref = Ref{RefKind::local, static_cast<std::uint32_t>(it->slot)};
        return;
      }
    if (const Decl* d = p_.lookup(e.name)) {
      e.ref = Ref{d->kind, d->index};
      return;
    }
    unknown(e.name, e.span, "name");
  }

  void call(Expr& e) {
    for (auto& a : e.args) expr(*a.value);
    for (const auto& l : locals_)
      if (l.name == e.name) {
        auto& d = p_.diags.error(ErrorKind::type_mismatch, e.name_span,
                                 "'" + sym_name(e.name) + "' is a value, not a function");
        d.notes.push_back({l.span, "defined here"});
        return;
      }
    const Decl* d = p_.lookup(e.name);
    if (!d) {
      unknown(e.name, e.name_span, "function");
      return;
    }
    e.ref = Ref{d->kind, d->index};
    if (d->kind != RefKind::function && d->kind != RefKind::native) {
      auto& dg = p_.diags.error(ErrorKind::type_mismatch, e.name_span, "'" + sym_name(e.name) + "' is not a function");
      dg.notes.push_back({d->span, "defined here"});
      return;
    }
    // model_from_hf("path") (or hf_config("path")): the file is read now, before evaluation, so that
    // its keys are assumptions placed in it and its errors are input errors (hf_config.cpp).
    if ((sym_name(e.name) == "model_from_hf" || sym_name(e.name) == "hf_config") && !stdlib_ && !e.args.empty() &&
        e.args[0].value->kind == EK::str)
      load_hf_config(p_, e.args[0].value->str, e.args[0].value->span);
    if (d->kind == RefKind::native) {
      const int impl = p_.natives[d->index].impl;
      if ((impl == static_cast<int>(NativeId::validated) || impl == static_cast<int>(NativeId::validated_in)) &&
          !e.args.empty() && e.args[0].value->kind == EK::str) {
        const std::string& family = e.args[0].value->str;
        bool known = false;
        for (const auto& f : p_.validated_families) known = known || f.first == family;
        if (!known) p_.validated_families.emplace_back(family, e.span);
      }
      if (impl == static_cast<int>(NativeId::note) && e.args.size() == 2 && e.args[0].value->kind == EK::str) {
        Assumption a;
        a.kind = AssumptionKind::note;
        a.name = "note";
        a.value = e.args[0].value->str;
        a.at = e.span;
        a.via = stdlib_ ? ViaKind::stdlib : ViaKind::scenario;
        e.call_atom = static_cast<std::int32_t>(p_.deps.add_assumption(std::move(a)));
      }
      // borrowed("B200.matmul_efficiency.bf16", "why", value): an `approx` assumption named by the
      // entry that borrows, its value the reason.
      if (impl == static_cast<int>(NativeId::borrowed) && e.args.size() == 3 && e.args[0].value->kind == EK::str &&
          e.args[1].value->kind == EK::str) {
        Assumption a;
        a.kind = AssumptionKind::approx;
        a.name = e.args[0].value->str;
        a.value = e.args[1].value->str;
        a.at = e.span;
        a.via = stdlib_ ? ViaKind::stdlib : ViaKind::scenario;
        e.call_atom = static_cast<std::int32_t>(p_.deps.add_assumption(std::move(a)));
      }
      if (native_branchy(impl)) {
        std::vector<std::string> arms, full;
        for (const auto& a : e.args) {
          arms.push_back(compact_text(p_.sources.slice(a.value->span), 40));
          full.push_back(compact_text(p_.sources.slice(a.value->span), 1000));
        }
        e.site = p_.deps.add_site(Site{e.span, compact_text(p_.sources.slice(e.span)), arms, full});
      }
      if (native_approximates(impl)) {
        Assumption a;
        a.kind = AssumptionKind::approx;
        a.name = sym_name(e.name);
        a.value = "binary64";
        a.at = e.span;
        a.via = ViaKind::arithmetic;
        e.call_atom = static_cast<std::int32_t>(p_.deps.add_assumption(std::move(a)));
      }
    }
  }

  void unknown(Sym s, Span span, const char* what) {
    // A definition in this file that failed to parse was reported already (so the file fails
    // anyway); its uses would only repeat it.
    if (broken_ && std::find(broken_->begin(), broken_->end(), s) != broken_->end()) return;
    auto& d = p_.diags.error(ErrorKind::name_unknown, span, std::string("unknown ") + what + " '" + sym_name(s) + "'");
    d.subject = sym_name(s);
    // Suggestions scan every name: after many errors (a file of unknown names) they stop.
    if (p_.diags.size() > kMaxSuggestedDiagnostics) return;
    std::vector<std::string> cands;
    for (const auto& l : locals_) cands.push_back(sym_name(l.name));
    std::sort(cands.begin(), cands.end());
    if (!suggest(d, sym_name(s), cands)) suggest(d, sym_name(s), p_.global_names());
    if (p_.units.lookup_atom(sym_name(s)))
      d.help.push_back("'" + sym_name(s) + "' is a unit; units follow a number: `1 " + sym_name(s) + "`");
  }

  Program& p_;
  bool stdlib_;
  const std::vector<Sym>* broken_;
  std::vector<Local> locals_;
  int next_ = 0;
  int max_ = 0;
};

}  // namespace

void resolve_module(Program& p, Module& m) {
  const bool stdlib = p.is_stdlib(m.file);
  for (Stmt& s : m.stmts) {
    Resolver r(p, stdlib, &m.broken);
    r.stmt(s);
  }
}

namespace {
void collect_literals(Program& p, Expr& e, const std::string& name, std::vector<Expr*>& out) {
  if (e.atom >= 0 && p.deps.is_assumption(static_cast<AtomId>(e.atom)) &&
      p.deps.assumption(static_cast<AtomId>(e.atom)).name == name) {
    out.push_back(&e);
    return;
  }
  // (Match arms hold no assumption literals: literal_atoms stops at a match.)
  for_each_child(e, [&](Expr& k) { collect_literals(p, k, name, out); });
}
}  // namespace

std::vector<Expr*> literals_named(Program& p, const std::string& name) {
  std::vector<Expr*> out;
  // Literal assumptions are made only for `let` values and parameter defaults (Resolver::stmt).
  for (auto& g : p.globals)
    if (g.stmt && g.stmt->value) collect_literals(p, *g.stmt->value, name, out);
  for (auto& f : p.functions)
    if (f.stmt)
      for (auto& prm : f.stmt->params)
        if (prm.default_value) collect_literals(p, *prm.default_value, name, out);
  for (auto& n : p.natives)
    if (n.stmt)
      for (auto& prm : n.stmt->params)
        if (prm.default_value) collect_literals(p, *prm.default_value, name, out);
  return out;
}

std::vector<Expr*> override_targets_literals(Program& p, const std::vector<Sym>& path) {
  if (path.size() == 1) return {};
  std::string name;
  for (Sym s : path) name += (name.empty() ? "" : ".") + sym_name(s);
  return literals_named(p, name);
}

void resolve_global_expr(Program& p, Expr& e, int& nslots) {
  Resolver r(p, false);
  r.expr(e);
  nslots = r.nslots();
}

}  // namespace mls
