// driver.hpp — the phases in order (load prelude -> load scenario -> resolve -> check ->
// configure -> run), shared by the CLI, the REPL, diff, the tests and the fuzzer.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "interpreter/runtime/run.hpp"
#include "interpreter/semantics/check.hpp"
#include "interpreter/semantics/config.hpp"
#include "interpreter/semantics/program.hpp"

namespace mls {

struct Session {
  Program prog;
  Checker ck{prog};
};

// Loads the prelude and the scenario (a path, or text when `text` is given) and checks them.
// Returns false if any phase reported an error (see s.prog.diags).
[[nodiscard]] bool prepare(Session& s, const std::string& path, const std::optional<std::string>& text = std::nullopt);

// Configures and runs; runtime errors are added to s.prog.diags and yield nullopt.
[[nodiscard]] std::optional<RunResult> execute(Session& s, const Selection& sel, const RunOptions& opt,
                                               std::optional<Config>* cfg_out = nullptr);

// What a comparison reads of a configuration (results/diff.hpp): the assumption atoms `cfg` set
// (convention choices, overrides, printed-name settings) and those a later setting shadows.
struct ConfiguredAtoms;
[[nodiscard]] ConfiguredAtoms configured_atoms(const Config& cfg);

// The table names `--table` can select in a program: its sweeps and searches, then `show`.
[[nodiscard]] std::vector<std::string> csv_table_names(const Program& p);

}  // namespace mls
