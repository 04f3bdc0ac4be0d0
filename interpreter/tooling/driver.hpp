// driver.hpp — the state the session core (core.hpp) works on, for tooling inside: the Program and
// its Checker. Front ends never see it (the include check refuses this header in cli/); they hold a
// Core, or an adapter over one (Scenario, ReplSession, Workspace).
#pragma once

#include <string>
#include <vector>

#include "core.hpp"
#include "interpreter/runtime/run.hpp"
#include "interpreter/semantics/check.hpp"
#include "interpreter/semantics/config.hpp"
#include "interpreter/semantics/program.hpp"

namespace mls {

struct Session {
  Program prog;
  Checker ck{prog};
};

// What a comparison reads of a configuration (results/diff.hpp): the assumption atoms `cfg` set
// (convention choices, overrides, printed-name settings) and those a later setting shadows.
struct ConfiguredAtoms;
[[nodiscard]] ConfiguredAtoms configured_atoms(const Config& cfg);

// The table names `--table` can select in a program: its sweeps and searches, then `show`.
[[nodiscard]] std::vector<std::string> csv_table_names(const Program& p);

}  // namespace mls
