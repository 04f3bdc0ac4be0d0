// driver.cpp — running the phases.
#include "driver.hpp"

#include <set>

#include "grammar/symbols.hpp"
#include "interpreter/results/diff.hpp"
#include "interpreter/results/format.hpp"
#include "interpreter/semantics/stack.hpp"

namespace mls {

bool prepare(Session& s, const std::string& path, const std::optional<std::string>& text) {
  // Every phase recurses over the input's structure: run them on the pipeline stack, whose
  // size the depth limits were chosen for (see stack.hpp).
  bool result = false;
  run_on_pipeline_stack([&] {
    if (!s.prog.load_prelude()) return;
    const bool ok = text ? s.prog.load_main_text(path, *text) : s.prog.load_main(path);
    // Check even after parse or name errors: every independent error is reported in one go
    // (unresolved names have the error type, which silences follow-on messages).
    if (s.prog.main_file != kNoFile) s.ck.check_program();
    result = ok && !s.prog.diags.has_errors();
  });
  return result;
}

std::optional<RunResult> execute(Session& s, const Selection& sel, const RunOptions& opt,
                                 std::optional<Config>* cfg_out) {
  std::optional<RunResult> result;
  run_on_pipeline_stack([&] {
    auto cfg = configure(s.prog, s.ck, sel);
    if (!cfg || s.prog.diags.has_errors()) return;
    try {
      result = run_program(s.prog, s.ck, *cfg, opt);
      if (cfg_out) *cfg_out = std::move(cfg);
    } catch (DiagnosticError& e) {
      s.prog.diags.add(std::move(e.diag));
    }
  });
  return result;
}

ConfiguredAtoms configured_atoms(const Config& cfg) {
  ConfiguredAtoms c;
  for (const auto& sel : cfg.conv) c.own.insert(sel.atom);
  for (const auto& ovs : cfg.overrides) {
    // Overrides before the last whole-value one never reach a value.
    const std::size_t first = replacing_override(ovs);
    for (std::size_t i = 0; i < ovs.size(); ++i) {
      c.own.insert(ovs[i].atom);
      if (first > 0 && i + 1 < first) c.dead.insert(ovs[i].atom);
    }
  }
  // Settings of a printed name (a default, a registry field): the last one of a name wins.
  std::set<AtomId> live;
  for (const auto& [lit, o] : cfg.literal_overrides) live.insert(o.atom);
  for (AtomId a : cfg.literal_override_atoms) {
    c.own.insert(a);
    if (!live.count(a)) c.dead.insert(a);
  }
  return c;
}

std::vector<std::string> csv_table_names(const Program& p) {
  std::vector<std::string> names;
  for (const Stmt* s : p.main_stmts)
    if (s->kind == SK::sweep || s->kind == SK::search) names.push_back(sym_name(s->name));
  names.emplace_back(kShowTable);
  return names;
}

}  // namespace mls
