// repl_inspect.cpp — the REPL's looking-glass commands: :explain (formula chain with values),
// :assumptions, :diff (current vs default choices), :conventions and :units. A minimal version
// of its own, built on ReplSession::probe, the Tracer hook and two Configs; it can switch to
// interpreter/explain and interpreter/diff once those exist.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "../interpreter/format.hpp"
#include "../interpreter/resolve.hpp"
#include "../interpreter/symbols.hpp"
#include "repl.hpp"

namespace mls {

namespace {

constexpr std::size_t kMaxChainLines = 40;
constexpr std::size_t kMaxCallLines = 40;
constexpr int kMaxChainDepth = 4;

// Records each user-function call of one evaluation as a tree (depth-first order).
class CallTracer : public Tracer {
 public:
  explicit CallTracer(const Program& p, const Checker& ck) : p_(p), ck_(ck) {}
  void enter(const Stmt& fn, const Expr& call) override {
    ++calls;
    if (std::find(functions.begin(), functions.end(), &fn) == functions.end()) functions.push_back(&fn);
    if (nodes.size() < 4 * kMaxCallLines)
      nodes.push_back({stack.size(), compact_text(p_.sources.slice(call.span), 70), {}, ck_.call_type(&call), false});
    stack.push_back(nodes.size() - 1);
  }
  void leave(const Value& result) override {
    const std::size_t i = stack.back();
    stack.pop_back();
    if (i < nodes.size() && !nodes[i].done) {
      nodes[i].result = result;
      nodes[i].done = true;
    }
  }
  struct Node {
    std::size_t depth;
    std::string text;
    Value result;
    TypeP type;
    bool done;
  };
  std::vector<Node> nodes;
  std::vector<std::size_t> stack;
  std::vector<const Stmt*> functions;  // each called function once, in order of first call
  std::size_t calls = 0;

 private:
  const Program& p_;
  const Checker& ck_;
};

// Globals an expression refers to, in order of first appearance.
void globals_in(const Expr& e, std::vector<std::uint32_t>& out) {
  if (e.kind == EK::name && e.ref.kind == RefKind::global &&
      std::find(out.begin(), out.end(), e.ref.index) == out.end())
    out.push_back(e.ref.index);
  for (const auto& k : e.kids) globals_in(*k, out);
  for (const auto& it : e.items) globals_in(*it.value, out);
  for (const auto& w : e.with_items) globals_in(*w.value, out);
  for (const auto& a : e.args) globals_in(*a.value, out);
  for (const auto& arm : e.arms) globals_in(*arm.body, out);
}

std::string shown(const Program& p, const Value& v, const TypeP& t) {
  if (v.k == Value::K::list) return "(a list of " + std::to_string(v.list().items.size()) + ")";
  std::vector<Leaf> leaves;
  flatten(v, t, "", leaves);
  if (leaves.size() == 1 && leaves[0].label.empty()) return value_text(v, display_of(p, leaves[0]));
  std::string fields;
  for (const auto& l : leaves)
    fields += (fields.empty() ? "" : ", ") + l.label.substr(1) + ": " + value_text(l.value, display_of(p, l));
  return "{ " + fields + " }";
}

struct ChainLine {
  std::string text, where;
};

// name = formula = value, then the globals of the formula, indented.
void chain(Program& p, Checker& ck, Evaluator& ev, std::uint32_t g, int depth, std::vector<std::uint32_t>& seen,
           std::vector<ChainLine>& out) {
  if (out.size() >= kMaxChainLines) return;
  seen.push_back(g);
  const GlobalDef& gd = p.globals[g];
  const Value v = ev.global(g);
  std::string text = std::string(2 * static_cast<std::size_t>(depth), ' ') + sym_name(gd.name) + " = ";
  const bool literal = is_literal(*gd.stmt->value);
  if (!literal) text += compact_text(p.sources.slice(gd.stmt->value->span), 60) + " = ";
  text += shown(p, v, ck.global_type(g));
  if (g < ev.config().overrides.size() && !ev.config().overrides[g].empty()) text += "  (overridden by `set`)";
  out.push_back({text, p.sources.where_line(gd.stmt->name_span)});
  if (literal || depth >= kMaxChainDepth) return;
  std::vector<std::uint32_t> refs;
  globals_in(*gd.stmt->value, refs);
  for (std::uint32_t r : refs)
    if (std::find(seen.begin(), seen.end(), r) == seen.end()) chain(p, ck, ev, r, depth + 1, seen, out);
}

std::string chain_text(const std::vector<ChainLine>& lines) {
  std::size_t w = 0;
  for (const auto& l : lines) w = std::max(w, l.text.size());
  std::string out;
  for (const auto& l : lines) out += fmt::format("  {:<{}}  {}\n", l.text, w, l.where);
  if (lines.size() >= kMaxChainLines) out += "  ... (the chain goes on; :explain one of the names above)\n";
  return out;
}

}  // namespace

bool explain_expr(ReplSession& s, const std::string& text, std::uint32_t line, std::string& out, std::string& err) {
  return s.probe(
      text, line,
      [&](const Probe& pr) {
        Program& p = pr.prog;
        CallTracer tracer(p, pr.ck);
        Evaluator ev(p, pr.cfg, true);
        ev.tracer = &tracer;
        const Value v = ev.eval_in(pr.expr, pr.nslots);
        ev.tracer = nullptr;
        out = text + " = " + shown(p, v, pr.type) + "\n";
        std::vector<ChainLine> lines;
        std::vector<std::uint32_t> seen;
        if (pr.global) {
          chain(p, pr.ck, ev, *pr.global, 0, seen, lines);
        } else {
          std::vector<std::uint32_t> refs;
          globals_in(pr.expr, refs);
          for (std::uint32_t g : refs) chain(p, pr.ck, ev, g, 0, seen, lines);
        }
        if (!lines.empty()) out += "formula chain:\n" + chain_text(lines);
        if (!tracer.nodes.empty()) {
          out += "calls:\n";
          std::size_t shown_calls = 0;
          for (const auto& n : tracer.nodes) {
            if (shown_calls == kMaxCallLines) break;
            ++shown_calls;
            out += std::string(2 + 2 * n.depth, ' ') + n.text + " = " +
                   (n.done ? shown(p, n.result, n.type ? n.type : nullptr) : std::string("?")) + "\n";
          }
          if (tracer.calls > shown_calls) out += fmt::format("  ... and {} more calls\n", tracer.calls - shown_calls);
          std::vector<ChainLine> defs;
          for (const Stmt* fn : tracer.functions) {
            std::string params;
            for (const auto& prm : fn->params) params += (params.empty() ? "" : ", ") + sym_name(prm.name);
            defs.push_back(
                {sym_name(fn->name) + "(" + params + ") = " + compact_text(p.sources.slice(fn->value->span), 70),
                 p.sources.where_line(fn->name_span)});
          }
          out += "functions:\n" + chain_text(defs);
        }
        const std::string as = assumption_lines_text(p, deep_deps(v, p.deps), "  ");
        out += as.empty() ? "depends on no assumption\n" : "assumptions:\n" + as;
      },
      err);
}

bool assumptions_expr(ReplSession& s, const std::string& text, std::uint32_t line, std::string& out, std::string& err) {
  return s.probe(
      text, line,
      [&](const Probe& pr) {
        Evaluator ev(pr.prog, pr.cfg, true);
        const Value v = ev.eval_in(pr.expr, pr.nslots);
        const std::string as = assumption_lines_text(pr.prog, deep_deps(v, pr.prog.deps), "  ");
        out = text + " = " + shown(pr.prog, v, pr.type) + "\n" + (as.empty() ? "  (depends on no assumption)\n" : as);
      },
      err);
}

bool diff_expr(ReplSession& s, const std::string& text, std::uint32_t line, std::string& out, std::string& err) {
  return s.probe(
      text, line,
      [&](const Probe& pr) {
        Program& p = pr.prog;
        Selection defaults;
        defaults.scenario_choices = false;
        const std::size_t before = p.diags.size();
        auto dcfg = configure(p, pr.ck, defaults);
        if (!dcfg || p.diags.size() != before) {
          Diagnostic d = p.diags.size() != before ? p.diags.items()[before] : Diagnostic{};
          if (d.message.empty()) d.message = "the default choices cannot be configured";
          throw DiagnosticError{d};
        }
        Evaluator cur(p, pr.cfg, true);
        Evaluator def(p, *dcfg, true);
        const Value a = cur.eval_in(pr.expr, pr.nslots);
        const Value b = def.eval_in(pr.expr, pr.nslots);
        std::vector<Leaf> la, lb;
        flatten(a, pr.type, text, la);
        flatten(b, pr.type, text, lb);
        std::vector<std::array<std::string, 4>> rows{{"", "current", "default", "change"}};
        bool any = false;
        for (std::size_t i = 0; i < la.size() && i < lb.size(); ++i) {
          const Display d = display_of(p, la[i]);  // one unit for both sides: comparable
          std::string change = "same";
          if (la[i].value.k == Value::K::num) {
            if (compare(la[i].value.n, lb[i].value.n) != 0) {
              const double x = la[i].value.n.d, y = lb[i].value.n.d;
              change = y == 0 ? "(default is 0)" : fmt::format("{:+.3g}%", (x - y) / std::fabs(y) * 100);
            }
          } else if (value_text(la[i].value, d) != value_text(lb[i].value, d)) {
            change = "changed";
          }
          any = any || change != "same";
          rows.push_back({la[i].label, value_text(la[i].value, d), value_text(lb[i].value, d), change});
        }
        std::array<std::size_t, 4> w{};
        for (const auto& r : rows)
          for (std::size_t c = 0; c < 4; ++c) w[c] = std::max(w[c], r[c].size());
        for (const auto& r : rows) {
          std::string l = fmt::format("{:<{}}  {:>{}}  {:>{}}  {:>{}}", r[0], w[0], r[1], w[1], r[2], w[2], r[3], w[3]);
          while (!l.empty() && l.back() == ' ') l.pop_back();
          out += l + "\n";
        }
        // The choices that differ from the defaults, and whether this value depends on them.
        const DepSet deps = p.deps.unite(deep_deps(a, p.deps), deep_deps(b, p.deps));
        std::vector<std::string> differ;
        if (pr.cfg.preset != dcfg->preset)
          differ.push_back("preset " + pr.cfg.preset + " (default " + dcfg->preset + ")");
        for (std::size_t i = 0; i < p.conventions.size(); ++i) {
          const ConvSel& x = pr.cfg.conv[i];
          const ConvSel& y = dcfg->conv[i];
          if (x.choice == y.choice) continue;
          const auto& ch = p.conventions[i].stmt->choices;
          const auto& atoms = p.deps.atoms(deps);
          const bool used = std::find(atoms.begin(), atoms.end(), x.atom) != atoms.end() ||
                            std::find(atoms.begin(), atoms.end(), y.atom) != atoms.end();
          differ.push_back(sym_name(p.conventions[i].name) + " = " +
                           sym_name(ch[static_cast<std::size_t>(x.choice)].name) + " (default " +
                           sym_name(ch[static_cast<std::size_t>(y.choice)].name) + ")" +
                           (used ? "" : " — not used by this value"));
        }
        if (differ.empty()) {
          out +=
              "the current choices are the defaults (preset " + dcfg->preset + ", every convention at its default)\n";
        } else {
          out += "choices that differ from the defaults:\n";
          for (const auto& d : differ) out += "  " + d + "\n";
          if (!any) out += "the value is the same under both\n";
        }
      },
      err);
}

std::string conventions_text(ReplSession& s) {
  Program& p = s.program();
  const Config* cfg = s.config();
  if (!cfg) return "";
  std::string out = "preset " + cfg->preset + " (" + cfg->preset_via + ")\n";
  std::vector<std::size_t> order(p.conventions.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return sym_name(p.conventions[a].name) < sym_name(p.conventions[b].name);
  });
  if (order.empty()) out += "no conventions are declared\n";
  for (std::size_t i : order) {
    const ConventionDef& c = p.conventions[i];
    const ConvSel& sel = cfg->conv[i];
    const auto& choices = c.stmt->choices;
    std::string who = sel.via;
    if (sel.via == "scenario") who = "use at " + p.sources.where_line(sel.at);
    out += sym_name(c.name) + " = " + sym_name(choices[static_cast<std::size_t>(sel.choice)].name) + " (" + who +
           ") — " + c.stmt->str + "\n";
    std::size_t w = 0;
    for (const auto& ch : choices) w = std::max(w, sym_name(ch.name).size());
    for (std::size_t k = 0; k < choices.size(); ++k) {
      const bool current = static_cast<int>(k) == sel.choice;
      std::string l = fmt::format("  {} {:<{}}  {}{}", current ? '*' : ' ', sym_name(choices[k].name), w,
                                  choices[k].description, static_cast<int>(k) == c.default_choice ? " [default]" : "");
      out += l + "\n";
    }
  }
  return out;
}

bool units_text(ReplSession& s, const std::string& arg, std::string& out, std::string& err) {
  const Program& p = s.program();
  const UnitTable& u = p.units;
  if (arg.empty()) {
    std::size_t w = 0;
    for (const auto& d : u.dimensions()) w = std::max(w, d.name.size());
    for (const auto& d : u.dimensions())
      out += fmt::format("  {:<{}}  {:<12}  {}\n", d.name, w, u.base_units(d.dim), d.description);
    out += "(:units DIMENSION lists the units of one; a unit works too: `:units GB/s`)\n";
    return true;
  }
  Dim dim;
  std::string title = arg;
  std::string description;
  if (const DimensionDef* dd = u.dimension(arg)) {
    dim = dd->dim;
    description = dd->description;
  } else if (arg != "dimensionless") {
    // Not a dimension name: perhaps a unit, whose dimension we list.
    TypeP t = s.type_of("1 " + arg);
    if (!t || t->k != Type::K::num) {
      std::vector<std::string> names{"dimensionless"};
      for (const auto& d : u.dimensions()) names.push_back(d.name);
      err = "error: '" + arg + "' is neither a dimension nor a unit\n";
      const std::string near = closest(arg, names);
      if (!near.empty()) err += "  = help: did you mean '" + near + "'?\n";
      err += "  = help: `:units` lists the dimensions\n";
      return false;
    }
    dim = t->dim;
    title = u.dim_name(dim);
  }
  const std::string base = u.base_units(dim);
  out += title + (description.empty() ? "" : " — " + description) +
         (base.empty() ? "\n" : "; in base units " + base + "\n");
  std::vector<std::array<std::string, 3>> rows;
  for (const auto& name : u.units_of(dim)) {
    const UnitDef* ud = u.unit(name);
    if (!ud) continue;
    std::string prefixes;
    for (const auto& set : ud->prefix_sets)
      if (const PrefixSet* ps = u.prefix_set(set))
        for (const auto& [pre, f] : ps->prefixes) prefixes += (prefixes.empty() ? "" : " ") + pre;
    rows.push_back({name, "= " + format_sig(ud->factor, 12) + (base.empty() ? "" : " " + base),
                    ud->description + (prefixes.empty() ? "" : " (prefixes: " + prefixes + ")")});
  }
  std::size_t w0 = 0, w1 = 0;
  for (const auto& r : rows) {
    w0 = std::max(w0, r[0].size());
    w1 = std::max(w1, r[1].size());
  }
  for (const auto& r : rows) out += fmt::format("  {:<{}}  {:<{}}  {}\n", r[0], w0, r[1], w1, r[2]);
  if (rows.empty()) out += "  no unit is declared with this dimension; write one from its factors, e.g. " + base + "\n";
  return true;
}

}  // namespace mls
