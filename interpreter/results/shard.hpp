// shard.hpp — the scale-out interfaces a sharded run writes its sweeps' points through and a
// merge reads them back from (runtime's sweeps call them; results/shard_part is their file format).
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "interpreter/semantics/value.hpp"

namespace mls {

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

}  // namespace mls
