// session_inspect.cpp — the REPL's looking-glass commands: :explain (the formula chain, from
// tooling/explain), :diff (current vs default choices, from results/diff with two Configs of one
// Program), :assumptions, :conventions (tooling/listing), :units and :preset. Each expression
// runs inside a probe, so nothing it evaluates or configures outlives the command.
#include <fmt/format.h>

#include <algorithm>

#include "driver.hpp"
#include "explain.hpp"
#include "grammar/symbols.hpp"
#include "interpreter/results/diff.hpp"
#include "interpreter/runtime/eval.hpp"
#include "listing.hpp"
#include "session.hpp"
#include "session_text.hpp"

namespace mls {

namespace {

std::string shown(const Program& p, const Value& v, const TypeP& t) {
  if (v.k == Value::K::list) return "(a list of " + std::to_string(v.list().items.size()) + ")";
  std::vector<Leaf> leaves;
  flatten(v, t, "", leaves);
  if (leaves.size() == 1 && leaves[0].label.empty()) return answer_text(p, v, leaves[0].type, display_of(p, leaves[0]));
  std::string fields;
  for (const auto& l : leaves)
    fields +=
        (fields.empty() ? "" : ", ") + l.label.substr(1) + ": " + answer_text(p, l.value, l.type, display_of(p, l));
  return "{ " + fields + " }";
}

}  // namespace

bool ReplSession::explain(const std::string& text, std::uint32_t line, std::string& out, std::string& err) {
  return probe(
      text, line,
      [&](const Probe& pr) {
        // A global is explained as itself (a parameter or a computed value); any other
        // expression as a shown value, which is what the probe's statement is.
        if (pr.global) {
          out = format_explanation(mls::explain(pr.prog, pr.ck, pr.cfg, RunResult{}, text, options()));
          return;
        }
        const RunResult r = run_statements(pr.prog, pr.ck, pr.cfg, options(), {&pr.stmt});
        if (r.results.empty())
          throw_diagnostic(ErrorKind::type_mismatch, pr.expr.span,
                           "nothing to explain: the value has no fields to show");
        out = format_explanation(mls::explain(pr.prog, pr.ck, pr.cfg, r, r.results.front().name, options()));
        // A record: the chain above is the same for every field; list the others.
        for (std::size_t i = 1; i < r.results.size(); ++i)
          out += r.results[i].name + " = " +
                 answer_text(pr.prog, r.results[i].value, r.results[i].type, r.results[i].display) + "\n";
      },
      err);
}

bool ReplSession::assumptions(const std::string& text, std::uint32_t line, std::string& out, std::string& err) {
  return probe(
      text, line,
      [&](const Probe& pr) {
        Evaluator ev(pr.prog, pr.cfg, true);
        const Value v = ev.eval_in(pr.expr, pr.nslots);
        const std::string as = assumption_lines_text(pr.prog, deep_deps(v, pr.prog.deps), "  ");
        out = text + " = " + shown(pr.prog, v, pr.type) + "\n" + (as.empty() ? "  (depends on no assumption)\n" : as);
      },
      err);
}

bool ReplSession::diff(const std::string& text, std::uint32_t line, std::string& out, std::string& err) {
  return probe(
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
        // Left: the defaults; right: the session's choices — "what moved since the defaults".
        const RunResult left = run_statements(p, pr.ck, *dcfg, options(), {&pr.stmt});
        const RunResult right = run_statements(p, pr.ck, pr.cfg, options(), {&pr.stmt});
        const ConfiguredAtoms defaults_set = configured_atoms(*dcfg), current_set = configured_atoms(pr.cfg);
        const DiffReport d = diff_runs(DiffSide{scope_of(p), &defaults_set, &left, "<repl>", "the default choices"},
                                       DiffSide{scope_of(p), &current_set, &right, "<repl>", "the current choices"});
        out = format_diff_text(d);
        if (!d.differs())
          for (const auto& r : right.results)
            out += r.name + " = " + answer_text(p, r.value, r.type, r.display) + " under both\n";
      },
      err);
}

bool ReplSession::conventions(const std::vector<std::string>& names, std::string& out, std::string& err) {
  const Config* cfg = config();
  return cfg && current_conventions_listing(core_->session().prog, *cfg, names, out, err);
}

std::string ReplSession::presets_line() {
  const Config* cfg = config();
  std::string list;
  for (const auto& p : core_->session().prog.presets) list += " " + sym_name(p.name);
  return "preset " + (cfg ? cfg->preset : std::string("?")) + "; the presets are:" + list + "\n";
}

bool ReplSession::units(const std::string& arg, std::string& out, std::string& err) {
  const Program& p = core_->session().prog;
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
    TypeP t = type_of("1 " + arg);
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
