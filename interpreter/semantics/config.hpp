// config.hpp — one side of a run: which choice each convention takes and which parameters are
// overridden, with who decided (command line > scenario > preset > convention default).
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "check.hpp"
#include "program.hpp"
#include "selection.hpp"

namespace mls {

struct ConvSel {
  int choice = 0;
  Via via;  // default, a preset, the scenario, the command line
  Span at;
  AtomId atom = 0;
};

struct Override {
  std::vector<Sym> path;  // global name, then fields
  const Expr* value = nullptr;
  int nslots = 0;
  AtomId atom = 0;
  bool reads_prior = false;  // the value names its own target: the value before this set
};

// `a.b.c` as the path a `set` or `--set a.b.c=...` names: one symbol per dot-separated part.
[[nodiscard]] std::vector<Sym> dotted_path(const std::string& name);

// 1 + the index of the last whole-value `set` of one global that does not read the previous
// value: it replaces the definition and every `set` before it, later ones apply on top. 0: the
// definition is evaluated and every override applies on top of it, in order.
[[nodiscard]] std::size_t replacing_override(const std::vector<Override>& ovs);

// The rule of a `set` whose value names the global it sets (item 1 of issue 19: `--set
// 'mttf.gpu=mttf.gpu * 2'` doubles it), in one place for the checker and configure():
// mark_set_reads_target marks those names in the value (they read the value before the set; only
// names written in the value itself: a function it calls reads the final value, which configure()
// reports as a cycle) and says whether there were any; set_replaced_literals gives the literals
// the set replaces where they are written (`H100.hbm.size`, a parameter default) — none when the
// value reads its target, which then overrides the global's field on the value before the set.
bool mark_set_reads_target(Program& p, const std::vector<Sym>& path, Expr& value);
[[nodiscard]] std::vector<Expr*> set_replaced_literals(Program& p, const std::vector<Sym>& path, const Expr& value);

// A preset and the presets it extends, the preset itself first and its furthest base last: the
// one reading of `extends` (configure() applies them base first; `mls conventions` looks for the
// nearest one that chooses). The walk stops at a base that is not a preset (`unknown_base`: the
// last preset in the chain names it) or at a preset already in the chain (`cycle`: its index).
struct PresetChain {
  std::vector<int> presets;
  bool unknown_base = false;
  int cycle = -1;
};
[[nodiscard]] PresetChain preset_chain(const Program& p, int preset);

struct Config {
  std::string preset;                            // "mls" unless chosen
  Via preset_via;                                // default, the scenario, the command line
  std::vector<ConvSel> conv;                     // per convention
  std::vector<std::vector<Override>> overrides;  // per global, applied in order
  // Dotted names that are not a global's own value (a parameter default `distributed.efficiency`,
  // a registry field `H100.hbm.size`): the override of each literal, keyed by the literal's atom.
  std::unordered_map<std::int32_t, Override> literal_overrides;
  std::vector<AtomId> literal_override_atoms;  // every such setting's atom, shadowed ones too (diff)
  bool validation_summaries = true;            // validated() attaches its family's summary
};

// Builds a Config; reports unknown conventions/choices/presets/parameters into p.diags.
[[nodiscard]] std::optional<Config> configure(Program& p, Checker& ck, const Selection& sel);

}  // namespace mls
