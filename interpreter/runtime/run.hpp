// run.hpp — executing a scenario's statements: shown results, sweep/search tables, asserts,
// streamed into a RunSink (the output model is results/run_result.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "eval.hpp"
#include "interpreter/results/run_result.hpp"
#include "interpreter/semantics/check.hpp"
#include "interpreter/semantics/config.hpp"
#include "run_options.hpp"

namespace mls {

// Runs the main statements into a sink. Runtime errors are thrown as DiagnosticError.
void run_program(Program& p, Checker& ck, const Config& cfg, const RunOptions& opt, RunSink& sink);
// The same, collected in memory (diff, REPL, tests).
[[nodiscard]] RunResult run_program(Program& p, Checker& ck, const Config& cfg, const RunOptions& opt);
// Runs the given statements only (the REPL runs each input's statements as they arrive).
void run_statements(Program& p, Checker& ck, const Config& cfg, const RunOptions& opt, const std::vector<Stmt*>& stmts,
                    RunSink& sink);
[[nodiscard]] RunResult run_statements(Program& p, Checker& ck, const Config& cfg, const RunOptions& opt,
                                       const std::vector<Stmt*>& stmts);

}  // namespace mls
