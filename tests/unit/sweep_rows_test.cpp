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

namespace {

// A cell's atoms by name (branches by site and arm), but the binary64 approximation the
// compiled engine adds to every cell.
std::set<std::string> atom_names(const Deps& deps, DepSet d) {
  std::set<std::string> out;
  for (const AtomId a : deps.atoms(d)) {
    if (!deps.is_assumption(a)) {
      out.insert("branch " + std::to_string(deps.atom_site(a)) + ":" + std::to_string(deps.atom_arm(a)));
      continue;
    }
    const Assumption& as = deps.assumption(a);
    if (!(as.kind == AssumptionKind::approx && as.name == "arithmetic")) out.insert(as.name);
  }
  return out;
}

}  // namespace

// Two points on the same branches read different atoms when a sweep variable takes values with
// different provenance: records (A.peak, B.peak) and numbers from different parameters (a, b).
// The compiled engine's provenance, cached per branch signature, must keep them apart: every
// cell's atoms are the exact engine's, row for row, with the record outermost, in the middle and
// innermost (where lane blocks run over it), on one thread and two.
TEST_CASE("a compiled sweep over records keeps each record's assumptions, row for row") {
  const std::string src =
      "let A = { peak: 2, tax: 3 }\n"
      "let B = { peak: 5, tax: 7 }\n"
      "let a = 11\n"
      "let b = 13\n"
      "sweep s over n in 1..300, node in [A, B, A], x in [a, b, 17] {\n"
      "  let y = if n > 150 then node.peak else node.tax\n"
      "  show n, y, z = y * x, w = x + 1\n"
      "}\n"
      "sweep t over x in [a, b], n in 1..300, node in [A, B] {\n"
      "  show n, u = node.peak * n + x\n"
      "}\n"
      "sweep u over node in [A, B], n in 1..600 {\n"
      "  show v = if n > 300 then node.tax * n else n\n"
      "}\n";
  for (const unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    std::vector<std::vector<Table>> runs;
    std::vector<Harness> sessions(2);
    for (const std::size_t exact_limit : {std::size_t{16}, std::size_t{1u << 20}}) {  // compiled, exact
      Harness& s = sessions[runs.size()];
      REQUIRE(prepare(s, "records.mls", src));
      RunOptions opt;
      opt.exact_limit = exact_limit;
      opt.threads = threads;
      auto r = execute(s, Selection{}, opt);
      REQUIRE(r.has_value());
      runs.push_back(r->tables);
    }
    REQUIRE(runs[0].size() == 3);
    REQUIRE(runs[1].size() == 3);
    for (std::size_t t = 0; t < 3; ++t) {
      const Table &fast = runs[0][t], &exact = runs[1][t];
      CAPTURE(fast.name);
      CHECK(fast.engine == "binary64, compiled");
      REQUIRE(fast.rows.size() == exact.rows.size());
      std::size_t differ = 0;
      for (std::size_t i = 0; i < fast.rows.size(); ++i)
        for (std::size_t c = 0; c < fast.cols.size(); ++c)
          if (atom_names(sessions[0].prog.deps, fast.rows[i].cells.at(c).deps) !=
              atom_names(sessions[1].prog.deps, exact.rows[i].cells.at(c).deps))
            ++differ;
      CHECK(differ == 0);
      REQUIRE(fast.col_deps.size() == exact.col_deps.size());
      for (std::size_t c = 0; c < fast.col_deps.size(); ++c)
        CHECK(atom_names(sessions[0].prog.deps, fast.col_deps[c]) ==
              atom_names(sessions[1].prog.deps, exact.col_deps[c]));
    }
  }
}
