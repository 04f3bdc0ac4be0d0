// run_options.hpp — how a run is asked for (RunOptions, with the scale-out interfaces of
// results/shard.hpp it hands sweeps to), apart from run.hpp so that a front end can fill it in
// without the Program and the Checker that run_program takes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "interpreter/results/shard.hpp"
#include "interpreter/semantics/value.hpp"

namespace mls {

// Evaluation steps allowed for one evaluation (a shown value, an assert, one sweep point, one
// global): stops runaway recursion such as `f(n - 1) + f(n - 1)` with an error, not a hang.
inline constexpr std::uint64_t kMaxSteps = 10'000'000;

// Most samples --uncertainty N may ask for (a front end checks its command line against it).
inline constexpr std::size_t kMaxUncertaintySamples = 100'000;

struct RunOptions {
  std::size_t max_points = 1'000'000;    // sweep/search cap (--max-points)
  unsigned threads = 0;                  // 0: all cores
  std::size_t exact_limit = 4096;        // sweeps above this many points run in binary64
  bool progress = false;                 // progress bar on stderr (the CLI sets it for terminals)
  std::uint64_t max_steps = kMaxSteps;   // evaluation steps per shown value / assert / sweep point
  std::size_t max_results = 100'000;     // shown results of one run (a record shows one per field)
  std::size_t shard_k = 0, shard_n = 0;  // --shard K/N (1 <= K <= N); N = 0: not sharded
  ShardWriter* shard_out = nullptr;      // a sharded run's sweeps go here, not to the sink
  ShardReader* shard_in = nullptr;       // a merge: sweeps read their points from the parts
  // A statement that fails at run time (a shown value, an assert, a solve, a sweep or search)
  // goes to RunSink::error and the run continues with the next one (`mls run` prints what was
  // computed, then the errors). A sweep stopped after its first rows went out ends its table
  // with Table::stopped. Not in a sharded run, whose parts are whole or an error.
  bool keep_going = false;
  // Searches also keep every feasible point's objectives (Table::points) for a picture of the
  // search among its evaluated points (`mls report`); off elsewhere, where nobody draws them.
  bool keep_search_points = false;
  // --uncertainty N --seed S: shown values get P10/P50/P90 over N seeded Monte Carlo samples of
  // the uncertain literals (runtime/uncertainty.hpp); 0: off.
  std::size_t uncertainty = 0;
  std::uint64_t seed = 1;
};

// Whether an error of kind k lets the run go on (keep_going): never Ctrl-C, the output cap or an
// internal error, which stop it.
[[nodiscard]] inline bool keeps_going(const RunOptions& opt, ErrorKind k) {
  return opt.keep_going && k != ErrorKind::interrupted && k != ErrorKind::limit_output && k != ErrorKind::internal;
}

}  // namespace mls
