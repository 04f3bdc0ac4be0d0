// shard_part_format.hpp — what the shard-part writer and reader share (internal to results/):
// the format's version and bounds, its digest (FNV-1a over every byte before the trailer), and the
// items a part's reader thread hands over.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shard_part.hpp"

namespace mls::part_format {

// 2: the digest at the end.
inline constexpr int kPartVersion = 2;
// A string in a part is a cell's text: no mls string is near this long.
inline constexpr std::size_t kMaxPartString = std::size_t{64} << 20;
// Containers nest at most this deep in a part: the root, its sweeps, a sweep, its points, a
// point, a point's cells.
inline constexpr std::size_t kMaxPartDepth = 6;

inline constexpr std::uint64_t kFnvOffset = 1469598103934665603ull;
inline constexpr std::uint64_t kFnvPrime = 1099511628211ull;

inline std::uint64_t fnv1a(std::string_view s, std::uint64_t h = kFnvOffset) {
  for (unsigned char c : s) h = (h ^ c) * kFnvPrime;
  return h;
}

inline std::string hex16(std::uint64_t h) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace mls::part_format

namespace mls {

// What a part's reader thread hands the merge, in file order: its identity, then per sweep its
// head, dependency sets and points, and its counts; the end (with whether the digest matched
// the bytes read) or an error. `pos`: bytes read when the item was complete.
struct PartItem {
  enum class Kind { header, sweep, deps, point, counts, end, error } kind = Kind::error;
  std::size_t pos = 0;
  std::string text;                        // header: nothing; sweep: its name; error: the message
  std::size_t a = 0, b = 0, c = 0, d = 0;  // sweep: total, begin, end; deps: id; point: index; counts: ...
  bool flag = false;                       // point: feasible; end: the digest matched
  std::vector<std::size_t> atoms;          // deps
  std::vector<std::string> cells, objectives;
  std::vector<std::pair<std::size_t, std::size_t>> failed;  // counts
  PartIdentity id;                                          // header
};

}  // namespace mls
