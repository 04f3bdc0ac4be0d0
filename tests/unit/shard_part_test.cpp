// shard_part_test.cpp — the shard-part reader (results/shard_part): a part written by hand, read
// through nlohmann-json's SAX parser on its own thread, and each way a part can be malformed that
// the hand-written parser it replaced refused (key order, nesting, trailing text, kinds, counts,
// the digest). tests/check_shard.py covers parts written by `mls run --shard` and merged.
#include "interpreter/results/shard_part.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

using namespace mls;

namespace {

std::string hex_fnv(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// A part of shard 1/1 whose sweeps are `sweeps` (the text inside the list), with its digest.
std::string part_text(const std::string& sweeps, const std::string& use = "[]") {
  const std::string body = std::string("{\"mls_part\": 2,\n \"mls\": \"") + kVersion +
                           "\",\n \"file\": \"f.mls\",\n \"source_hash\": \"0\",\n \"shard\": [1, 1],\n \"preset\": [],"
                           "\n \"use\": " +
                           use + ",\n \"set\": [],\n \"exact_limit\": 4096,\n \"max_points\": 1000,\n \"sweeps\": [" +
                           sweeps + "]";
  return body + ",\n \"digest\": \"" + hex_fnv(body) + "\"}\n";
}

// One sweep `s` of one point: a dependency set without atoms, the point, its counts.
std::string one_point(const std::string& cells, const std::string& counts = "1, \"infeasible\": 0, \"filtered\": 0") {
  return "\n  {\"name\": \"s\", \"total\": 1, \"begin\": 0, \"end\": 1,\n   \"points\": [\n    {\"deps\": 0, "
         "\"atoms\": []},\n    [0, true, " +
         cells + ", []]\n   ],\n   \"evaluated\": " + counts + ", \"failed\": []}\n ";
}

class TempPart {
 public:
  explicit TempPart(const std::string& text) {
    path_ = (std::filesystem::temp_directory_path() / ("mls_part_test_" + std::to_string(++count_) + ".json")).string();
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~TempPart() { std::filesystem::remove(path_); }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
  static inline int count_ = 0;
};

// Reads the part at `path` (one sweep of one number column) to the end as the merge does: its
// identity, then (`digest`) the whole part's digest, then the points; throws PartError.
void drain(const std::string& path, std::vector<ShardPoint>* points = nullptr, bool digest = true) {
  std::vector<std::unique_ptr<PartFile>> parts;
  parts.push_back(std::make_unique<PartFile>(path));
  if (digest) check_part_digest(path);
  Deps deps;
  PartsReader reader(parts, deps, [](std::vector<AtomId>) { return DepSet{0}; });
  ShardShape shape;
  shape.cells = {Value::K::num};
  reader.sweep("s", 1, shape);
  ShardPoint sp;
  while (reader.next(sp))
    if (points) points->push_back(sp);
  reader.finish();
}

// The error's text reading `text` to the end (drain), or "".
std::string read_all(const std::string& text, std::vector<ShardPoint>* points = nullptr, bool digest = true) {
  TempPart file(text);
  try {
    drain(file.path(), points, digest);
  } catch (const PartError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("shard part: a well-formed part is read point by point") {
  std::vector<ShardPoint> points;
  CHECK(read_all(part_text(one_point("[\"d:1.5@0\"]")), &points) == "");
  REQUIRE(points.size() == 1);
  CHECK(points[0].index == 0);
  CHECK(points[0].feasible);
  REQUIRE(points[0].cells.size() == 1);
  CHECK(points[0].cells[0].n.d == 1.5);
}

TEST_CASE("shard part: the identity is read before any point") {
  TempPart file(part_text("", "[[\"precision\", \"fp8\"]]"));
  PartFile part(file.path());
  CHECK(part.identity().file == "f.mls");
  CHECK(part.identity().k == 1);
  CHECK(part.identity().n == 1);
  REQUIRE(part.identity().uses.size() == 1);
  CHECK(part.identity().uses[0].second == "fp8");
  CHECK_FALSE(part.identity().preset);
}

TEST_CASE("shard part: malformed parts are refused with the place and what is wrong") {
  // Keys in another order than the writer's.
  std::string swapped = part_text(one_point("[\"d:1.5@0\"]"));
  const auto at = swapped.find("\"file\": \"f.mls\",\n \"source_hash\": \"0\"");
  swapped.replace(at, 36, "\"source_hash\": \"0\",\n \"file\": \"f.mls\"");
  CHECK(has(read_all(swapped), "expected the key \"file\""));
  // Nesting deeper than a part has, in a header field.
  CHECK(has(read_all(part_text("", "[[[[[[[[\"a\"]]]]]]]]")), "nesting deeper than a part has"));
  // A cell of the wrong kind, a number that is not finite, a dependency set never defined.
  CHECK(has(read_all(part_text(one_point("[\"s:x@0\"]"))), "cell 1 is a string where its column holds a number"));
  CHECK(has(read_all(part_text(one_point("[\"d:1e999@0\"]"))), "malformed number"));
  CHECK(has(read_all(part_text(one_point("[\"d:1.5@7\"]"))), "names no dependency set"));
  // Points and dependency sets not of the writer's shape (the SAX reader alone: no digest first).
  std::string point = part_text(one_point("[\"d:1@0\"]"));
  const std::string five = point;
  CHECK(
      has(read_all(point.replace(point.find("[0, true, "), 10, "[0, true, 7, "), nullptr, false), "a point is [INDEX"));
  point = five;
  CHECK(has(read_all(point.replace(point.find("{\"deps\": 0, \"atoms\": []}"), 25, "{\"atoms\": [], \"deps\": 0}"),
                     nullptr, false),
            "a dependency set is"));
  point = five;
  CHECK(has(read_all(point.replace(point.find("[\"d:1@0\"]"), 9, "[1]"), nullptr, false),
            "expected a string for a value"));
  // A missing cell, counts that do not fit the points.
  CHECK(has(read_all(part_text(one_point("[]"))), "has 0 cells where the table has 1 columns"));
  CHECK(has(read_all(part_text(one_point("[\"d:1@0\"]", "0, \"infeasible\": 0, \"filtered\": 1"))),
            "do not fit its 1 points"));
  // Not JSON at all, and text after the part's end.
  CHECK(has(read_all("{\"mls_part\": 2,"), "byte"));
  CHECK(has(read_all(part_text(one_point("[\"d:1@0\"]")) + "x"), "its digest does not match"));
  CHECK(has(read_all(part_text(one_point("[\"d:1@0\"]")) + "x", nullptr, false), "expected end of input"));
  // A part with no sweep where the scenario has one.
  CHECK(has(read_all(part_text("")), "fewer sweeps than the scenario"));
}

TEST_CASE("shard part: a part changed after its digest was checked is refused at the end") {
  // The digest of other bytes: the reader's own hash of what it read disagrees.
  std::string text = part_text(one_point("[\"d:1.5@0\"]"));
  const auto at = text.find("\"digest\": \"") + 11;
  text[at] = text[at] == '0' ? '1' : '0';
  TempPart file(text);
  CHECK_THROWS_WITH_AS(drain(file.path(), nullptr, false), doctest::Contains("changed while it was merged"), PartError);
}

TEST_CASE("shard part: a reader left early stops its thread") {
  // Many points, none read: the reader thread blocks on its full queue and is cancelled.
  std::string points;
  for (int i = 0; i < 5000; ++i)
    points += std::string(i ? "," : "") + "\n    [" + std::to_string(i) + ", true, [], []]";
  const std::string sweep = "\n  {\"name\": \"s\", \"total\": 5000, \"begin\": 0, \"end\": 5000,\n   \"points\": [" +
                            points +
                            "\n   ],\n   \"evaluated\": 5000, \"infeasible\": 0, \"filtered\": 0, \"failed\": []}\n ";
  TempPart file(part_text(sweep));
  auto part = std::make_unique<PartFile>(file.path());
  CHECK(part->identity().n == 1);
  part.reset();  // joins the thread: a hang here fails the test by its timeout
}
