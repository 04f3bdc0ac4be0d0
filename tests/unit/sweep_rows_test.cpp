// sweep_rows_test.cpp — rows of a compiled sweep describe themselves as their cells are written
// (sweep_points.cpp, point_out: PointOut::described): whether they are displayable without a
// look, and how they differ from the chunk's previous row. The writer trusts both, so a row
// that is finite in base units but overflows in its column's display unit must still be
// refused, at the point where it happens, on every thread count. (The row deltas feed the
// regime notes and the column provenance: notes_test.cpp compares those with the reference.)
#include <doctest/doctest.h>

#include <string>

#include "interpreter/tooling/driver.hpp"

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
      Session s;
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
