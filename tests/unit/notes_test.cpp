// notes_test.cpp — the per-row shortcuts of a sweep's writer: regime notes built incrementally
// (a row whose branches match the previous row's costs only its cell comparisons) equal the
// notes of the reference that recomputes every row, and each column's provenance is the union
// of every row's deps even where the deps change mid-sweep.
#include "interpreter/runtime/notes.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "harness.hpp"

using namespace mls;

namespace {

// Branches that switch at a few rows only (k at n = 4, v at n = 45, j with the inner m), a
// column that drifts in one regime and is pinned in another (k), booleans that flip (big, a
// function of n alone: a row label; low, of k's branch: a noted flip), and filtered points (a
// row's previous row is then not the previous point), over two chunks.
const char* const kSource =
    "sweep s over n in 1..600, m in [1, 2, 3] {\n"
    "  let k = min(n, 4)\n"
    "  where n < 20 or n > 21 or m == 1\n"
    "  let j = max(m, 2)\n"
    "  show n, m, k, t = 100 s / n, u = k * j, big = n > 30, low = k < 4,\n"
    "       v = if n > 45 then n * m else 7\n"
    "}\n";

std::vector<std::string> texts(const std::vector<Note>& notes) {
  std::vector<std::string> out;
  for (const auto& n : notes) out.push_back(std::to_string(n.row) + " " + n.column + " " + n.key + ": " + n.text);
  return out;
}

std::set<AtomId> atom_set(const Deps& deps, DepSet d) {
  const auto& a = deps.atoms(d);
  return {a.begin(), a.end()};
}

}  // namespace

TEST_CASE("regime notes: the incremental builder equals the reference on every engine") {
  for (const std::size_t exact_limit : {std::size_t{16}, std::size_t{4096}}) {  // binary64 compiled, exact
    CAPTURE(exact_limit);
    Harness s;
    REQUIRE(prepare(s, "notes.mls", std::string(kSource)));
    RunOptions opt;
    opt.threads = 2;
    opt.exact_limit = exact_limit;
    auto r = execute(s, Selection{}, opt);
    REQUIRE(r.has_value());
    const Table& t = r->tables.at(0);
    REQUIRE(t.rows.size() == 1796);  // two chunks of points: two threads
    // The compiled sweep's notes are built from its compact rows (Values made only for a note).
    CHECK(t.engine == (exact_limit == 16 ? "binary64, compiled" : "exact"));
    NotesBuilder inc(s.prog, t, NotesBuilder::Mode::incremental);
    NotesBuilder ref(s.prog, t, NotesBuilder::Mode::reference);
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      Row a = t.rows[i], b = t.rows[i];
      inc.add(a, i);
      ref.add(b, i);
    }
    const auto want = texts(ref.finish());
    // Flips of both branch sites, the boolean's flip and k's drift are all there.
    REQUIRE(want.size() >= 4);
    CHECK(std::any_of(want.begin(), want.end(), [](const std::string& n) {
      return n.find("low changes from true to false") != std::string::npos;
    }));
    CHECK(texts(inc.finish()) == want);
    CHECK(texts(t.notes) == want);  // the run's own notes, built as its rows streamed
  }
}

TEST_CASE("column provenance is the union of every row's deps, where they change mid-sweep too") {
  Harness s;
  REQUIRE(prepare(s, "notes.mls", std::string(kSource)));
  RunOptions opt;
  opt.threads = 2;
  opt.exact_limit = 16;
  auto r = execute(s, Selection{}, opt);
  REQUIRE(r.has_value());
  const Table& t = r->tables.at(0);
  REQUIRE(t.col_deps.size() == t.cols.size());
  for (std::size_t c = 0; c < t.cols.size(); ++c) {
    CAPTURE(t.cols[c].name);
    std::set<AtomId> want;
    for (const auto& row : t.rows) {
      const auto a = atom_set(s.prog.deps, row.cells[c].deps);
      want.insert(a.begin(), a.end());
    }
    CHECK(atom_set(s.prog.deps, t.col_deps[c]) == want);
  }
  // v's deps change at n = 46: both arms of its `if` are in its provenance.
  std::size_t v = 0;
  while (t.cols[v].name != "v") ++v;
  std::set<std::uint32_t> arms;
  for (const AtomId a : s.prog.deps.atoms(t.col_deps[v]))
    if (!s.prog.deps.is_assumption(a)) arms.insert(s.prog.deps.atom_arm(a));
  CHECK(arms.size() == 2);
}

TEST_CASE("regime notes of compact rows read the previous chunk's last row where a chunk begins") {
  // Chunks of 1024 points: hi flips and w moves on the first row of the second chunk (row 1024),
  // and w again on the first row of the third (2048); w is pinned at 7 in its other arm. The
  // notes compare those rows with the previous chunk's last row, whose storage the next chunk
  // has reused by then (one thread: the same buffer; two: buffers passed between threads).
  const char* const src =
      "sweep s over n in 1..5000 {\n"
      "  let k = if n > 1024 then 1 else 0\n"
      "  show n, hi = k > 0, w = if n <= 3000 then floor((n - 1) / 1024) else 7, x = n * k\n"
      "}\n";
  for (const unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    Harness s;
    REQUIRE(prepare(s, "chunks.mls", std::string(src)));
    RunOptions opt;
    opt.threads = threads;
    opt.exact_limit = 16;
    auto r = execute(s, Selection{}, opt);
    REQUIRE(r.has_value());
    const Table& t = r->tables.at(0);
    REQUIRE(t.rows.size() == 5000);
    CHECK(t.engine == "binary64, compiled");
    NotesBuilder ref(s.prog, t, NotesBuilder::Mode::reference);
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      Row a = t.rows[i];
      ref.add(a, i);
    }
    const auto want = texts(ref.finish());
    auto has = [&](const std::string& prefix, const std::string& part) {
      return std::any_of(want.begin(), want.end(), [&](const std::string& n) {
        return n.rfind(prefix, 0) == 0 && n.find(part) != std::string::npos;
      });
    };
    CHECK(has("1024 hi ", "hi changes from false to true"));
    CHECK(has("1024 w ", "w 0 -> 1"));
    CHECK(has("2048 w ", "w 1 -> 2"));
    CHECK(texts(t.notes) == want);
  }
}

TEST_CASE("regime notes of compact rows: rows that step only frozen branch sites are counted, not stepped") {
  // a's `max` and b's `if` change arms on every n (four rows): past 64 regimes and 20 flips they
  // are frozen, and rows whose deps change only in them are then counted (NotesBuilder's quiet
  // changes). b's `max` is reached on every other row only, so its regimes pass the limit long
  // before it first flips (n = 2000, m = 2): its flips from there on must all still be noted.
  const char* const src =
      "sweep s over n in 1..3000, m in [1, 2, 3, 4] {\n"
      "  let a = max(m, 3)\n"
      "  let b = if m <= 2 then max(n * m, 4000) else 0\n"
      "  show n, m, a, b, c = a * n\n"
      "}\n";
  for (const unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    Harness s;
    REQUIRE(prepare(s, "quiet.mls", std::string(src)));
    RunOptions opt;
    opt.threads = threads;
    opt.exact_limit = 16;
    auto r = execute(s, Selection{}, opt);
    REQUIRE(r.has_value());
    const Table& t = r->tables.at(0);
    REQUIRE(t.rows.size() == 12000);
    CHECK(t.engine == "binary64, compiled");
    NotesBuilder ref(s.prog, t, NotesBuilder::Mode::reference);
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      Row a = t.rows[i];
      ref.add(a, i);
    }
    const auto want = texts(ref.finish());
    const auto late = std::count_if(want.begin(), want.end(), [](const std::string& n) {
      return n.find(": `max(n * m, 4000)`") != std::string::npos;
    });
    CHECK(late == 21);  // 20 flips from row 7998 on, and "keeps changing branch"
    CHECK(texts(t.notes) == want);
  }
}

TEST_CASE("column provenance includes the deps of a branch arm taken on a single row") {
  // v takes its `then` arm at n = 1500 only: that row's deps differ from the rows before and
  // after it, and no other row has them; the column's provenance must still include them.
  Harness s;
  REQUIRE(prepare(s, "single.mls",
                  std::string("sweep s over n in 1..3000 {\n"
                              "  show n, v = if n == 1500 then n * 2 else n\n"
                              "}\n")));
  RunOptions opt;
  opt.threads = 1;
  opt.exact_limit = 16;
  auto r = execute(s, Selection{}, opt);
  REQUIRE(r.has_value());
  const Table& t = r->tables.at(0);
  CHECK(t.engine == "binary64, compiled");
  REQUIRE(t.rows.size() == 3000);
  std::set<AtomId> want;
  for (const auto& row : t.rows) {
    const auto a = atom_set(s.prog.deps, row.cells[1].deps);
    want.insert(a.begin(), a.end());
  }
  std::set<std::uint32_t> arms;
  for (const AtomId a : want)
    if (!s.prog.deps.is_assumption(a)) arms.insert(s.prog.deps.atom_arm(a));
  REQUIRE(arms.size() == 2);
  CHECK(atom_set(s.prog.deps, t.col_deps[1]) == want);
}
