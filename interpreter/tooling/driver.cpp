// driver.cpp — what tooling reads of a configuration and a program: the atoms a comparison needs,
// the table names `--table` selects.
#include "driver.hpp"

#include <set>

#include "grammar/symbols.hpp"
#include "interpreter/results/diff.hpp"
#include "interpreter/results/format.hpp"

namespace mls {

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
