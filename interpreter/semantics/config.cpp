// config.cpp — resolving presets, `use` and `set` from the prelude, the scenario and the command
// line into one Config, creating the convention and override assumptions on the way.
#include "config.hpp"

#include <algorithm>

#include "grammar/parse.hpp"
#include "grammar/symbols.hpp"
#include "resolve.hpp"

namespace mls {

std::vector<Sym> dotted_path(const std::string& name) {
  std::vector<Sym> path;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = name.find('.', start);
    path.push_back(intern(name.substr(start, dot - start)));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return path;
}

namespace {

bool reads_prior(const Expr& e) {
  bool found = e.kind == EK::name && e.ref.prior;
  for_each_child(e, [&found](const Expr& k) { found = found || reads_prior(k); });
  return found;
}

bool mark_prior(Expr& e, std::uint32_t g) {
  bool marked = false;
  if (e.kind == EK::name && e.ref.kind == RefKind::global && e.ref.index == g) marked = e.ref.prior = true;
  for_each_child(e, [g, &marked](Expr& k) { marked = mark_prior(k, g) || marked; });
  return marked;
}

// A `set` can make definitions depend on each other in a cycle that the checker, which sees
// definitions and not which sets a run applies, cannot: `set x = y` with `set y = x`, or
// `set x = f()` where f reads x. Evaluating such a global would wait for itself, so configure
// reports it (name.cycle). Nodes are globals (0..G-1) and functions (G..): a cycle through
// functions only is recursion, which is fine; one through a global is not.
class SetCycles {
 public:
  SetCycles(Program& p, const Config& cfg) : p_(p), cfg_(cfg), edges_(p.globals.size() + p.functions.size()) {}

  // Reports each cycle through a global that has a `set`; returns false if there was one.
  bool check() {
    bool ok = true;
    std::vector<bool> reported(p_.globals.size(), false);
    for (std::uint32_t g = 0; g < p_.globals.size(); ++g) {
      if (cfg_.overrides[g].empty() || reported[g]) continue;
      const std::vector<std::uint32_t> path = cycle_from(g);
      if (path.empty()) continue;
      for (std::uint32_t n : path)
        if (n < p_.globals.size()) reported[n] = true;
      report(path);
      ok = false;
    }
    return ok;
  }

 private:
  const std::vector<std::uint32_t>& edges(std::uint32_t node) {
    auto& e = edges_[node];
    if (e) return *e;
    std::vector<std::uint32_t> out;
    const auto G = static_cast<std::uint32_t>(p_.globals.size());
    if (node < G) {
      const auto& ovs = cfg_.overrides[node];
      const std::size_t first = replacing_override(ovs);
      if (first == 0 && p_.globals[node].stmt && p_.globals[node].stmt->value)
        collect(*p_.globals[node].stmt->value, out);
      for (std::size_t i = first == 0 ? 0 : first - 1; i < ovs.size(); ++i) collect(*ovs[i].value, out);
    } else {
      const Stmt* fn = p_.functions[node - G].stmt;
      if (fn && fn->value) collect(*fn->value, out);
      if (fn)
        for (const auto& prm : fn->params)
          if (prm.default_value) collect(*prm.default_value, out);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    e = std::move(out);
    return *e;
  }

  void collect(const Expr& e, std::vector<std::uint32_t>& out) {
    if (e.kind == EK::name && e.ref.kind == RefKind::global && !e.ref.prior) out.push_back(e.ref.index);
    if (e.kind == EK::call && e.ref.kind == RefKind::function)
      out.push_back(static_cast<std::uint32_t>(p_.globals.size()) + e.ref.index);
    for_each_child(e, [&](const Expr& k) { collect(k, out); });
  }

  // The nodes of a cycle g -> ... -> g (without the final g), or empty. Iterative: the graph
  // of the prelude is deep.
  std::vector<std::uint32_t> cycle_from(std::uint32_t g) {
    std::vector<bool> seen(edges_.size(), false);
    std::vector<std::pair<std::uint32_t, std::size_t>> stack{{g, 0}};
    seen[g] = true;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      const auto& out = edges(node);
      if (next == out.size()) {
        stack.pop_back();
        continue;
      }
      const std::uint32_t to = out[next++];
      if (to == g) {
        std::vector<std::uint32_t> path;
        for (const auto& fr : stack) path.push_back(fr.first);
        return path;
      }
      if (!seen[to]) {
        seen[to] = true;
        stack.emplace_back(to, 0);
      }
    }
    return {};
  }

  std::string node_name(std::uint32_t n) const {
    const auto G = static_cast<std::uint32_t>(p_.globals.size());
    return n < G ? sym_name(p_.globals[n].name) : sym_name(p_.functions[n - G].name) + "()";
  }

  // Where a global's value comes from: its last `set` (the one a run evaluates last), else its definition.
  Span source_of(std::uint32_t g) const {
    const auto& ovs = cfg_.overrides[g];
    return ovs.empty() ? p_.globals[g].stmt->name_span : ovs.back().value->span;
  }

  void report(const std::vector<std::uint32_t>& path) {
    std::string chain;
    std::size_t globals = 0;
    for (std::uint32_t n : path) {
      chain += node_name(n) + " -> ";
      globals += n < p_.globals.size() ? 1 : 0;
    }
    chain += node_name(path.front());
    const std::string root = sym_name(p_.globals[path.front()].name);
    auto& d =
        p_.diags.error(ErrorKind::name_cycle, source_of(path.front()),
                       globals == 1 ? "the value set for '" + root + "' depends on '" + root + "' itself: " + chain
                                    : "the values set make definitions depend on each other in a cycle: " + chain);
    d.label = "'" + root + "' is set here";
    for (std::size_t i = 1; i < path.size(); ++i) {
      if (path[i] >= p_.globals.size()) continue;
      const std::string name = sym_name(p_.globals[path[i]].name);
      d.notes.push_back(
          {source_of(path[i]), "'" + name + (cfg_.overrides[path[i]].empty() ? "' is defined here" : "' is set here")});
    }
    d.help.push_back(
        "in the value of a `set`, the name it sets means its value before the set (`set x = x * 2` "
        "doubles x); every other name, also inside functions, means the final value");
  }

  Program& p_;
  const Config& cfg_;
  std::vector<std::optional<std::vector<std::uint32_t>>> edges_;
};

struct Builder {
  Program& p;
  Checker& ck;
  Config cfg;
  bool ok = true;
  // Keeps command-line expressions alive for the evaluator.
  static std::vector<ExprP>& cli_exprs() {
    static std::vector<ExprP> v;
    return v;
  }

  std::string choices_of(const ConventionDef& c) {
    std::string s;
    for (const auto& ch : c.stmt->choices) s += (s.empty() ? "" : ", ") + sym_name(ch.name);
    return s;
  }

  void use(const std::string& conv, Span conv_span, const std::string& choice, Span choice_span, const Via& via,
           Span at) {
    const int ci = p.convention_index(intern(conv));
    if (ci < 0) {
      std::vector<std::string> names;
      for (const auto& c : p.conventions) names.push_back(sym_name(c.name));
      std::sort(names.begin(), names.end());
      auto& d = p.diags.error(ErrorKind::convention_unknown, conv_span, "unknown convention '" + conv + "'");
      suggest(d, conv, names);
      std::string all;
      for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
      d.help.push_back(names.empty() ? "no convention is declared" : "the conventions are: " + all);
      if (!p.conventions_command.empty()) d.help.push_back(p.conventions_command + " lists them with their choices");
      ok = false;
      return;
    }
    const ConventionDef& cd = p.conventions[static_cast<std::size_t>(ci)];
    const int ch = cd.choice_index(intern(choice));
    if (ch < 0) {
      std::vector<std::string> names;
      for (const auto& c : cd.stmt->choices) names.push_back(sym_name(c.name));
      auto& d = p.diags.error(ErrorKind::convention_choice, choice_span,
                              "convention '" + conv + "' has no choice '" + choice + "'");
      suggest(d, choice, names);
      d.help.push_back("the choices are: " + choices_of(cd));
      ok = false;
      return;
    }
    cfg.conv[static_cast<std::size_t>(ci)] = ConvSel{ch, via, at, 0};
  }

  void set(const std::vector<Sym>& path, Span path_span, const Expr* value, int nslots, const Via& via) {
    std::string name;
    for (Sym s : path) name += (name.empty() ? "" : ".") + sym_name(s);
    const Decl* d = p.lookup(path.front());
    const std::vector<Expr*> lits = set_replaced_literals(p, path, *value);
    if (lits.empty() && (!d || d->kind != RefKind::global)) return;  // reported by the checker
    Override o;
    o.path = path;
    o.value = value;
    o.nslots = nslots;
    Assumption a;
    a.kind = AssumptionKind::set;
    a.name = name;
    a.value = compact_text(p.sources.slice(value->span));
    a.at = value->span.valid() && p.sources.get(value->span.file).command_line ? Span{} : path_span;
    a.via = via;
    o.atom = p.deps.add_assumption(std::move(a));
    o.reads_prior = reads_prior(*value);
    if (!lits.empty()) {
      cfg.literal_override_atoms.push_back(o.atom);
      // A later setting of the same name (scenario over preset, command line over scenario) wins.
      for (const Expr* lit : lits) cfg.literal_overrides[lit->atom] = o;
      return;
    }
    cfg.overrides[d->index].push_back(std::move(o));
  }

  // Applies a preset and, first, the presets it extends.
  void apply_preset(int idx) {
    const PresetChain chain = preset_chain(p, idx);
    if (chain.cycle >= 0) {
      p.diags.error(ErrorKind::convention_decl, p.presets[static_cast<std::size_t>(chain.cycle)].stmt->name_span,
                    "preset '" + sym_name(p.presets[static_cast<std::size_t>(chain.cycle)].name) + "' extends itself");
      ok = false;
    } else if (chain.unknown_base) {
      const Stmt& last = *p.presets[static_cast<std::size_t>(chain.presets.back())].stmt;
      unknown_preset(sym_name(last.extends), last.extends_span);
    }
    for (auto it = chain.presets.rbegin(); it != chain.presets.rend(); ++it) {
      const PresetDef& pd = p.presets[static_cast<std::size_t>(*it)];
      const Via via = Via::of_preset(sym_name(pd.name));
      for (const auto& item : pd.stmt->items) {
        if (item.kind == SK::use)
          use(sym_name(item.name), item.name_span, sym_name(item.choice), item.choice_span, via, item.span);
        else
          set(item.path, item.name_span, item.value.get(), pd.stmt->nslots, via);
      }
    }
  }

  void unknown_preset(const std::string& name, Span at) {
    std::vector<std::string> names;
    for (const auto& q : p.presets) names.push_back(sym_name(q.name));
    std::sort(names.begin(), names.end());
    auto& d = p.diags.error(ErrorKind::preset_unknown, at, "unknown preset '" + name + "'");
    suggest(d, name, names);
    std::string all;
    for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
    d.help.push_back("the presets are: " + all);
    ok = false;
  }
};

}  // namespace

PresetChain preset_chain(const Program& p, int preset) {
  PresetChain c;
  for (int at = preset; at >= 0;) {
    if (std::find(c.presets.begin(), c.presets.end(), at) != c.presets.end()) {
      c.cycle = at;
      break;
    }
    c.presets.push_back(at);
    const Stmt& s = *p.presets[static_cast<std::size_t>(at)].stmt;
    if (s.extends == kNoSym) break;
    at = p.preset_index(s.extends);
    c.unknown_base = at < 0;
  }
  return c;
}

bool mark_set_reads_target(Program& p, const std::vector<Sym>& path, Expr& value) {
  const Decl* d = p.lookup(path.front());
  return d && d->kind == RefKind::global && mark_prior(value, d->index);
}

std::vector<Expr*> set_replaced_literals(Program& p, const std::vector<Sym>& path, const Expr& value) {
  if (reads_prior(value)) return {};
  return override_targets_literals(p, path);
}

std::size_t replacing_override(const std::vector<Override>& ovs) {
  std::size_t first = 0;
  for (std::size_t i = 0; i < ovs.size(); ++i)
    if (ovs[i].path.size() == 1 && !ovs[i].reads_prior) first = i + 1;
  return first;
}

std::optional<Config> configure(Program& p, Checker& ck, const Selection& sel) {
  Builder b{p, ck, {}};
  b.cfg.validation_summaries = sel.validation_summaries;
  b.cfg.conv.resize(p.conventions.size());
  b.cfg.overrides.resize(p.globals.size());
  for (std::size_t i = 0; i < p.conventions.size(); ++i) {
    const ConventionDef& c = p.conventions[i];
    b.cfg.conv[i] = ConvSel{c.default_choice, ViaKind::default_, c.stmt->default_span, 0};
  }
  // Which preset: command line, else the scenario's `preset NAME`, else mls.
  std::string preset = kDefaultPreset;
  Via via = ViaKind::default_;
  Span preset_at;
  for (Stmt* s : p.main_stmts)
    if (s->kind == SK::preset_select && sel.scenario_choices) {
      preset = sym_name(s->name);
      via = ViaKind::scenario;
      preset_at = s->name_span;
    }
  if (sel.preset) {
    preset = *sel.preset;
    via = ViaKind::command_line;
    preset_at = Span{};
  }
  const int pi = p.preset_index(intern(preset));
  if (pi < 0) {
    b.unknown_preset(preset, preset_at);
  } else {
    b.apply_preset(pi);
  }
  b.cfg.preset = preset;
  b.cfg.preset_via = via;
  // The scenario's own choices.
  for (Stmt* s : p.main_stmts) {
    if (s->kind == SK::use && sel.scenario_choices)
      b.use(sym_name(s->name), s->name_span, sym_name(s->choice), s->choice_span, ViaKind::scenario, s->span);
    if (s->kind == SK::set) b.set(s->path, s->name_span, s->value.get(), s->nslots, ViaKind::scenario);
  }
  // The command line wins.
  for (const auto& [name, choice] : sel.uses) b.use(name, Span{}, choice, Span{}, ViaKind::command_line, Span{});
  for (const auto& [name, text] : sel.sets) {
    std::vector<Sym> path = dotted_path(name);
    if (first_non_text(text) || first_non_text(name)) {
      // Never echoed: the bytes that are not UTF-8 would reach the terminal raw.
      p.diags.error(ErrorKind::load_binary, Span{}, "a --set argument is not UTF-8 text");
      b.ok = false;
      continue;
    }
    const FileId f = p.sources.add_command_line("<command line: --set " + name + ">", text);
    ExprP e = parse_expression(p.sources, f, p.diags);
    if (!e) {
      b.ok = false;
      continue;
    }
    int nslots = 0;
    const std::size_t before = p.diags.size();
    resolve_global_expr(p, *e, nslots);
    ck.check_override(path, Span{}, *e, nslots);
    if (p.diags.size() != before) {
      b.ok = false;
      continue;
    }
    b.set(path, Span{}, e.get(), nslots, ViaKind::command_line);
    Builder::cli_exprs().push_back(std::move(e));
  }
  if (b.ok && !SetCycles(p, b.cfg).check()) b.ok = false;
  // Convention atoms, now that every choice is final.
  for (std::size_t i = 0; i < p.conventions.size(); ++i) {
    auto& cs = b.cfg.conv[i];
    const ConventionDef& c = p.conventions[i];
    Assumption a;
    a.kind = AssumptionKind::convention;
    a.name = sym_name(c.name);
    a.value = sym_name(c.stmt->choices[static_cast<std::size_t>(cs.choice)].name);
    a.at = cs.at;
    a.via = cs.via;
    cs.atom = p.deps.add_assumption(std::move(a));
  }
  if (!b.ok) return std::nullopt;
  return std::move(b.cfg);
}

}  // namespace mls
