// sweep_rows_test.cpp — rows of a compiled sweep describe themselves as their cells are written
// (sweep_points.cpp, point_out: PointOut::described): whether they are displayable without a
// look, and how they differ from the chunk's previous row. The writer trusts both, so a row
// that is finite in base units but overflows in its column's display unit must still be
// refused, at the point where it happens, on every thread count. (The row deltas feed the
// regime notes and the column provenance: notes_test.cpp compares those with the reference.)
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "harness.hpp"

using namespace mls;

namespace {

// Counts the rows it is handed (in table order) until the run fails.
class CountSink : public RunSink {
 public:
  void begin(const RunResult&) override {}
  void result(const Shown&) override {}
  void table_begin(const Table&) override {}
  void table_row(const Table&, const Row&) override { ++rows; }
  void table_end(const Table&) override {}
  void assertion(const AssertOutcome&) override {}
  void end() override {}
  std::size_t rows = 0;
};

}  // namespace

// t is finite in seconds everywhere; from x = 2501 on (the third chunk, after the table's units
// were fixed) it overflows in nanoseconds.
TEST_CASE("a compiled sweep's row that overflows in its display unit is refused after the table has begun") {
  const std::string src =
      "sweep s over x in 1..3000 {\n"
      "  show x, t = (if x > 2500 then 1e301 s else x * 1 s) -> ns\n"
      "}\n";
  for (const std::size_t exact_limit : {std::size_t{16}, std::size_t{4096}}) {  // compiled, exact
    for (const unsigned threads : {1u, 2u}) {
      CAPTURE(exact_limit);
      CAPTURE(threads);
      Harness s;
      REQUIRE(prepare(s, "rows.mls", src));
      const auto cfg = configure(s.prog, s.ck, Selection{});
      REQUIRE(cfg);
      RunOptions opt;
      opt.exact_limit = exact_limit;
      opt.threads = threads;
      CountSink sink;
      bool refused = false;
      try {
        run_program(s.prog, s.ck, *cfg, opt, sink);
      } catch (const DiagnosticError& e) {
        refused = true;
        CHECK(e.diag.kind == ErrorKind::runtime_non_finite);
        CHECK(e.diag.message == "this value overflows binary64 when shown in 'ns'");
      }
      CHECK(refused);
      CHECK(sink.rows == 2500);  // every row before x = 2501, none after
    }
  }
}

namespace {

std::set<AtomId> branch_atoms(const Deps& deps, DepSet d) {
  std::set<AtomId> out;
  for (const AtomId a : deps.atoms(d))
    if (!deps.is_assumption(a)) out.insert(a);
  return out;
}

}  // namespace

// A compiled row's provenance comes from its branch signature, looked up among the worker's
// last signature, its few recent ones and the cache of all: consecutive points here cycle
// through three signatures (j's branch with the inner m) and switch at n = 4 and n = 45, so
// every path is taken. Each cell's branches must be the exact engine's, row for row.
TEST_CASE("a compiled sweep's cells carry the branches the exact engine gives, row for row") {
  const std::string src =
      "sweep s over n in 1..600, m in [1, 2, 3] {\n"
      "  let k = min(n, 4)\n"
      "  where n < 20 or n > 21 or m == 1\n"
      "  let j = max(m, 2)\n"
      "  show n, m, k, u = k * j, low = k < 4, v = if n > 45 then n * m else 7\n"
      "}\n";
  for (const unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    std::vector<Table> tables;
    std::vector<Harness> sessions(2);
    for (const std::size_t exact_limit : {std::size_t{16}, std::size_t{4096}}) {  // compiled, exact
      Harness& s = sessions[tables.size()];
      REQUIRE(prepare(s, "rows.mls", src));
      RunOptions opt;
      opt.exact_limit = exact_limit;
      opt.threads = threads;
      auto r = execute(s, Selection{}, opt);
      REQUIRE(r.has_value());
      tables.push_back(r->tables.at(0));
    }
    const Table &fast = tables[0], &exact = tables[1];
    CHECK(fast.engine == "binary64, compiled");
    REQUIRE(fast.rows.size() == exact.rows.size());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < fast.rows.size(); ++i)
      for (std::size_t c = 0; c < fast.cols.size(); ++c)
        if (branch_atoms(sessions[0].prog.deps, fast.rows[i].cells.at(c).deps) !=
            branch_atoms(sessions[1].prog.deps, exact.rows[i].cells.at(c).deps))
          ++differ;
    CHECK(differ == 0);
  }
}
