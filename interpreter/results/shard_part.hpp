// shard_part.hpp — the shard-part file format: `mls run FILE --shard K/N --format json` writes one
// shard's points as a part, `mls merge` reads the parts back (streamed, through nlohmann-json's SAX).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "format.hpp"
#include "shard.hpp"

namespace mls {

// A part is malformed or does not belong with the others (error[merge.part], exit 65).
struct PartError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The run a part belongs to: the scenario (its path and the hash of its bytes and this mls
// version), the selection, the engine limits and the shard K/N.
struct PartIdentity {
  std::string file, source_hash;
  std::optional<std::string> preset;  // --preset, if given
  std::vector<std::pair<std::string, std::string>> uses, sets;
  std::size_t k = 0, n = 0, exact_limit = 0, max_points = 0;
  // Whether `o` comes from the same run (all but the shard number K agree).
  [[nodiscard]] bool same_run(const PartIdentity& o) const;
};

// The scenario's identity: its bytes and this mls version.
[[nodiscard]] std::string part_source_hash(const std::string& file);

// Text of a part in a message: bounded, control characters shown as '?'.
[[nodiscard]] std::string part_excerpt(std::string_view t, std::size_t n = 40);

// The sink of a sharded run (its ShardWriter in `shard`): shown values and asserts are
// recomputed by the merge, so only the sweeps' points are written, with their dependency sets
// as atom ids (atoms are created before evaluation, in the same order for the same program and
// selection), then the counts and the failed asserts, and last a digest of every byte before it.
[[nodiscard]] std::unique_ptr<RunSink> make_part_writer(const ResultScope& scope, Writer& w, const PartIdentity& id,
                                                        ShardWriter*& shard);

// Throws PartError unless the part at `path` ends with the digest of the bytes before it:
// checked before the merge prints anything, so a changed value (a digit edited by hand, a part
// from a damaged disk) is refused, not printed. One read of the file, nothing held.
void check_part_digest(const std::string& path);

class PartStream;
struct PartItem;

// One part file being read: its identity at once, then its sweeps' points as the merge asks
// for them. The file is parsed by nlohmann-json's SAX parser on a thread of its own that hands
// over one item (a sweep's head, a dependency set, a point, a sweep's counts) at a time through a
// bounded queue, so a part of 10^8 points is never held whole.
class PartFile {
 public:
  explicit PartFile(std::string path);  // throws PartError
  ~PartFile();
  PartFile(const PartFile&) = delete;
  PartFile& operator=(const PartFile&) = delete;
  [[nodiscard]] const std::string& path() const;
  [[nodiscard]] const PartIdentity& identity() const { return id_; }
  // The next item of the part, in file order (an error the reader thread met is thrown here).
  PartItem next_item();

 private:
  std::unique_ptr<PartStream> stream_;
  PartIdentity id_;
};

// The parts of one sharded run (sorted by shard, K = 1..N) read back as the sweeps of a merge
// ask for them, each value checked as it is read: its kind against the column's, finite numbers,
// cell and objective counts, points and counts within the part's shard, atom ids the scenario
// has; at the end, each part's digest again (should the file have changed since it was checked).
class PartsReader : public ShardReader {
 public:
  // `deps`: the scenario's atoms (more may be made as it runs); `intern`: a set of them as a DepSet.
  PartsReader(std::vector<std::unique_ptr<PartFile>>& parts, const Deps& deps,
              std::function<DepSet(std::vector<AtomId>)> intern);
  void sweep(const std::string& name, std::size_t total, const ShardShape& shape) override;
  bool next(ShardPoint& sp) override;
  [[nodiscard]] const ShardCounts& counts() const override { return counts_; }
  // After the run: every part ends where the scenario's sweeps end.
  void finish();

 private:
  void define_deps(std::size_t p, const PartItem& item);
  void read_point(std::size_t p, PartItem& item, ShardPoint& sp);
  void trailer(std::size_t p, const PartItem& item);
  void values(std::size_t p, const PartItem& item, const std::vector<std::string>& texts, std::vector<Value>& out);

  std::vector<std::unique_ptr<PartFile>>& parts_;
  const Deps& deps_;
  std::function<DepSet(std::vector<AtomId>)> intern_;
  ShardCounts counts_;
  ShardShape shape_;  // of the current sweep
  std::string name_;
  std::size_t current_ = 0;
  // Per part, for the current sweep: its dependency sets, its points [begin, end), the points
  // read and the last index.
  struct Sweep {
    std::vector<DepSet> dep_sets;
    std::size_t begin = 0, end = 0, points = 0, last = 0;
  };
  std::vector<Sweep> sweeps_;
};

}  // namespace mls
