// run_options.hpp — how a run is asked for (RunOptions) and the scale-out interfaces it hands
// sweeps to, apart from run.hpp so that a front end can fill them in without the Program and the
// Checker that run_program takes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "interpreter/semantics/value.hpp"

namespace mls {

// Evaluation steps allowed for one evaluation (a shown value, an assert, one sweep point, one
// global): stops runaway recursion such as `f(n - 1) + f(n - 1)` with an error, not a hang.
inline constexpr std::uint64_t kMaxSteps = 10'000'000;

// Scale-out (`mls run --shard K/N`, `mls merge`). A sharded run evaluates only its share of
// every sweep's points — a contiguous range of chunks, the same for any thread count — and hands
// them to a ShardWriter instead of printing a table; a merge reads every shard's points back,
// in enumeration order, through the same table path a single run takes (display units, regime
// notes, ranking), so it prints exactly what one run prints.
struct ShardPoint {
  std::size_t index = 0;          // in enumeration order
  bool feasible = true;           // searches: the `subject to` conditions held
  std::vector<Value> cells;       // with their deps
  std::vector<Value> objectives;  // searches
};
struct ShardCounts {
  std::size_t evaluated = 0, infeasible = 0, filtered = 0;
  std::vector<std::pair<std::size_t, std::size_t>> failed;  // (point, body item) of failed asserts
};
class ShardWriter {
 public:
  virtual ~ShardWriter() = default;
  // A sweep or search begins: its points [begin, end) of `total` belong to this shard.
  virtual void sweep(const std::string& name, std::size_t total, std::size_t begin, std::size_t end) = 0;
  virtual void point(const ShardPoint& p) = 0;  // sweeps: every kept point; searches: the shard's best
  virtual void sweep_end(const ShardCounts& c) = 0;
};
// Points per unit of a sweep's work (and of its display sampling); a shard is a range of them.
inline constexpr std::size_t kSweepChunk = 1024;
// The points [first, second) of `total` that shard k of n (1 <= k <= n) evaluates: a contiguous
// range of whole chunks, the same for any thread count.
[[nodiscard]] inline std::pair<std::size_t, std::size_t> shard_points(std::size_t k, std::size_t n, std::size_t total) {
  const std::size_t nchunks = (total + kSweepChunk - 1) / kSweepChunk;
  const std::size_t c0 = (k - 1) * nchunks / n, c1 = k * nchunks / n;
  return {std::min(total, c0 * kSweepChunk), std::min(total, c1 * kSweepChunk)};
}
// What every point of a sweep holds, for a merge to check each part's points against: the kind
// of each cell (nullopt: not checked), and the number of objectives (searches).
struct ShardShape {
  std::vector<std::optional<Value::K>> cells;
  std::size_t objectives = 0;
  bool search = false;
};
class ShardReader {
 public:
  virtual ~ShardReader() = default;
  // Positions every part at the sweep `name` of `total` points whose points have `shape`
  // (throws if a part does not have it next).
  virtual void sweep(const std::string& name, std::size_t total, const ShardShape& shape) = 0;
  // The next point in enumeration order across the parts; false after the last one.
  virtual bool next(ShardPoint& p) = 0;
  // Once next() returned false: the parts' counts summed, failed asserts in point order.
  [[nodiscard]] virtual const ShardCounts& counts() const = 0;
};

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
