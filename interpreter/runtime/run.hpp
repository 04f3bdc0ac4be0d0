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

namespace mls {

struct RunOptions {
  std::size_t max_points = 1'000'000;   // sweep/search cap (--max-points)
  unsigned threads = 0;                 // 0: all cores
  std::size_t exact_limit = 4096;       // sweeps above this many points run in binary64
  bool progress = false;                // progress bar on stderr (the CLI sets it for terminals)
  std::uint64_t max_steps = kMaxSteps;  // evaluation steps per shown value / assert / sweep point
  std::size_t max_results = 100'000;    // shown results of one run (a record shows one per field)
  // A shown value or assert that fails at run time goes to RunSink::error and the run continues
  // with the next one (`mls run` prints what was computed, then the errors). Sweeps still stop.
  bool keep_going = false;
};

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
