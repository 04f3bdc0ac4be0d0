// sweep_lanes_test.cpp — the compiled sweep path's lane blocks (fastpath.cpp, run_lanes): up to
// kLanes points that differ only in the innermost sweep variable run each instruction together.
// Points whose branches, `where` or floating-point exceptions differ fall back to one by one;
// either way every cell is what the formula gives in binary64, bit for bit, and an error is
// reported at the same point, with the same message, as on the exact path.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "harness.hpp"

using namespace mls;

namespace {

struct Outcome {
  std::optional<RunResult> result;
  std::vector<Diagnostic> diags;
};

Outcome run(const std::string& src, std::size_t exact_limit, unsigned threads) {
  Harness s;
  s.prog.reader = [&](const std::string& path) -> std::optional<std::string> {
    if (path != "main.mls") return std::nullopt;
    return src;
  };
  REQUIRE(prepare(s, "main.mls"));
  RunOptions opt;
  opt.exact_limit = exact_limit;
  opt.threads = threads;
  Outcome o;
  o.result = execute(s, Selection{}, opt);
  o.diags = s.prog.diags.items();
  return o;
}

// The first table of `src` run on `threads` threads, compiled (binary64, every sweep past the
// exact limit) or exact; the run must succeed, on the engine asked for.
enum class Engine { compiled, exact };
Table table_of(const std::string& src, Engine engine, unsigned threads) {
  Outcome o = run(src, engine == Engine::compiled ? 0 : 100000, threads);
  REQUIRE(o.result.has_value());
  REQUIRE_FALSE(o.result->tables.empty());
  Table t = std::move(o.result->tables.front());
  CHECK(t.engine == (engine == Engine::compiled ? "binary64, compiled" : "exact"));
  return t;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

// The innermost variable y crosses the branch at 13, the `where` and the clamp's bounds inside
// blocks of 8, so some blocks run as lanes and some fall back; a, the outer variable, changes
// the threshold points between blocks.
TEST_CASE("lane blocks whose points take different branches give the formula's bits") {
  const std::string src =
      "sweep t over a in [1, 2, 3], y in 1..40 {\n"
      "  where y != 7 * a\n"
      "  show a, y, z = if y > 13 then y * a / 3 else y - a, m = max(y, 20 + a), c = clamp(y / a, 5, 17)\n"
      "}\n";
  for (unsigned threads : {1u, 2u}) {
    const Table t = table_of(src, Engine::compiled, threads), e = table_of(src, Engine::exact, threads);
    REQUIRE(t.rows.size() == 3 * 40 - 3);
    REQUIRE(e.rows.size() == t.rows.size());
    std::size_t i = 0;
    for (double a : {1.0, 2.0, 3.0})
      for (double y = 1; y <= 40; ++y) {
        if (y == 7 * a) continue;
        const std::vector<double> want = {a, y, y > 13 ? y * a / 3 : y - a, y > 20 + a ? y : 20 + a,
                                          y / a < 5    ? 5
                                          : y / a > 17 ? 17
                                                       : y / a};
        const auto& cells = t.rows.at(i).cells;
        const auto& exact_cells = e.rows.at(i).cells;
        ++i;
        REQUIRE(cells.size() == want.size());
        for (std::size_t k = 0; k < want.size(); ++k) {
          INFO("threads " << threads << " a " << a << " y " << y << " column " << k);
          CHECK(same_bits(cells[k].n.d, want[k]));
          CHECK(same_bits(cells[k].n.d, exact_cells[k].n.d));
        }
      }
  }
}

// exp(b * 40) overflows from b = 18 on, inside the block b = 17..24: that block's lanes raise
// the overflow flag and its points run one by one, so b = 17 is a row and b = 18 the error.
TEST_CASE("a lane block with an overflowing point reports the error at that point") {
  const std::string src =
      "sweep t over a in [1, 2], b in 1..20 {\n"
      "  show a, b, y = exp(b * 40) * a\n"
      "}\n";
  for (unsigned threads : {1u, 2u}) {
    const Outcome fast = run(src, 0, threads), exact = run(src, 100000, threads);
    CHECK_FALSE(fast.result.has_value());
    CHECK_FALSE(exact.result.has_value());
    REQUIRE(fast.diags.size() == 1);
    REQUIRE(exact.diags.size() == 1);
    const Diagnostic& f = fast.diags.front();
    const Diagnostic& x = exact.diags.front();
    CHECK(f.kind == x.kind);
    CHECK(f.message == x.message);
    REQUIRE_FALSE(f.help.empty());
    REQUIRE_FALSE(x.help.empty());
    CHECK(f.help.front() == x.help.front());  // the exact path adds the approximation it made
    CHECK(f.help.front() == "in sweep 't' at a = 1, b = 18");
  }
  // Below the overflow every row is the formula's, the block b = 9..16 and 17..20 as lanes.
  const Table t =
      table_of("sweep t over a in [1, 2], b in 1..17 {\n  show y = exp(b * 40) * a\n}\n", Engine::compiled, 1);
  REQUIRE(t.rows.size() == 34);
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const double a = static_cast<double>(i / 17 + 1), b = static_cast<double>(i % 17 + 1);
    INFO("a " << a << " b " << b);
    CHECK(same_bits(t.rows[i].cells.at(0).n.d, std::exp(b * 40) * a));
  }
}

// A lane block's innermost variable that no instruction reads (a shown key, a string) is still
// each point's own value, not the block's last.
TEST_CASE("a lane block shows each point's own innermost value") {
  const Table t =
      table_of("sweep t over a in [1, 2], x in 1..20, s in [\"p\", \"q\", \"r\"] {\n  show x, s, y = a * 2\n}\n",
               Engine::compiled, 1);
  REQUIRE(t.rows.size() == 2 * 20 * 3);
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    INFO("row " << i);
    CHECK(t.rows[i].cells.at(0).n.d == static_cast<double>(i / 3 % 20 + 1));
    CHECK(t.rows[i].cells.at(1).str() == std::string(1, "pqr"[i % 3]));
    CHECK(t.rows[i].cells.at(2).n.d == static_cast<double>(i / 60 + 1) * 2);
  }
}

// max, min and clamp take different arms in the lanes of one block (y crosses 20 + a, 9 and the
// clamp's bounds inside blocks of 8), with no branch to split the block: each point's cell
// has the provenance of its own arm (the same for every row that takes that arm, different
// from the other arms'), not that of the block's last point.
TEST_CASE("lanes of one block keep their own max/min/clamp arms") {
  const Table t = table_of(
      "sweep t over a in [1, 2, 3], y in 1..40 {\n"
      "  show m = max(y, 20 + a), n = min(y, 9), c = clamp(y / a, 5, 17)\n"
      "}\n",
      Engine::compiled, 1);
  REQUIRE(t.rows.size() == 120);
  std::vector<std::map<int, DepSet>> deps_of_arm(3);  // per column
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const double a = static_cast<double>(i / 40 + 1), y = static_cast<double>(i % 40 + 1);
    // The arm: whether max/min take their second argument; which bound clamp takes, if any.
    const int arm[3] = {20 + a > y, 9 < y, y / a < 5 ? 1 : y / a > 17 ? 2 : 0};
    const double want[3] = {arm[0] ? 20 + a : y, arm[1] ? 9 : y, arm[2] == 1 ? 5 : arm[2] == 2 ? 17 : y / a};
    for (std::size_t k = 0; k < 3; ++k) {
      INFO("a " << a << " y " << y << " column " << k);
      const Value& cell = t.rows[i].cells.at(k);
      CHECK(same_bits(cell.n.d, want[k]));
      const auto [it, first] = deps_of_arm[k].emplace(arm[k], cell.deps);
      if (!first) CHECK(cell.deps == it->second);
    }
  }
  for (std::size_t k = 0; k < 3; ++k) {
    INFO("column " << k);
    REQUIRE(deps_of_arm[k].size() == (k == 2 ? 3u : 2u));
    CHECK(deps_of_arm[k].begin()->second != std::next(deps_of_arm[k].begin())->second);
  }
}

// The compiler drops x * 1, 1 * x, x / 1 and x - 0 and turns a division by a power of two into a
// multiplication by its (exact) reciprocal: bit for bit what the formula gives, subnormals (y),
// signed zeros and divisions by other constants (x / 10 is not x * 0.1) included, in lanes and
// one point at a time (the `where` drops a point inside each block).
TEST_CASE("the compiler's arithmetic identities give the formula's bits") {
  const std::string src =
      "sweep t over a in [1, 3], x in [5, 3, 1e-300, 0.1, 7, 1e300, 1.5, 2.5, 9, 11] {\n"
      "  where x != 9 or a != 3\n"
      "  let y = x * 1e-300 * 1e-21\n"
      "  show p = x * 1 * a, q = 1 * y, r = y / 1, h = y / 2, k = x / 4 / a, m = y / -8, "
      "w = x * 1e-10 / 0.5, n = -(x * 0) - 0, u = x / 10, v = y / 3, g = y * a - 0\n"
      "}\n";
  const double xs[] = {5, 3, 1e-300, 0.1, 7, 1e300, 1.5, 2.5, 9, 11};
  for (unsigned threads : {1u, 2u}) {
    const Table t = table_of(src, Engine::compiled, threads);
    REQUIRE(t.rows.size() == 19);
    std::size_t i = 0;
    for (double a : {1.0, 3.0})
      for (double x : xs) {
        if (x == 9 && a == 3) continue;
        volatile double one = 1, two = 2, four = 4, m8 = -8, half = 0.5, ten = 10, three = 3, zero = 0;
        const double y = x * 1e-300 * 1e-21;
        const std::vector<double> want = {x * one * a,  one * y,   y / one,          y / two,
                                          x / four / a, y / m8,    x * 1e-10 / half, -(x * zero) - zero,
                                          x / ten,      y / three, y * a - zero};
        const auto& cells = t.rows.at(i++).cells;
        REQUIRE(cells.size() == want.size());
        for (std::size_t k = 0; k < want.size(); ++k) {
          INFO("threads " << threads << " a " << a << " x " << x << " column " << k);
          CHECK(same_bits(cells[k].n.d, want[k]));
        }
      }
  }
}

// Lane blocks do not copy the registers they wrote back (run_lanes): whatever runs next must
// not read them before writing them. Here m is written by the outer work (a <= 2) or by the
// lanes (a > 2), z's branch splits some blocks (their points then run one by one after a block
// that ran as lanes), and the `where` stops a point early (the next one runs from scratch).
TEST_CASE("what runs after a lane block reads no register the lanes left behind") {
  const std::string src =
      "sweep t over a in [1, 2, 3, 4, 2, 3, 1], y in 1..21 {\n"
      "  where y != 4 * a + 3\n"
      "  let m = if a > 2 then y * 3 else a + 1\n"
      "  let z = if y > 9 + a then m * 2 else m - y\n"
      "  show m, z, w = m + a, v = if a > 3 then z / y else z * a\n"
      "}\n";
  for (unsigned threads : {1u, 2u}) {
    const Table t = table_of(src, Engine::compiled, threads);
    std::size_t i = 0;
    for (double a : {1.0, 2.0, 3.0, 4.0, 2.0, 3.0, 1.0})
      for (double y = 1; y <= 21; ++y) {
        if (y == 4 * a + 3) continue;
        const double m = a > 2 ? y * 3 : a + 1, z = y > 9 + a ? m * 2 : m - y;
        const std::vector<double> want = {m, z, m + a, a > 3 ? z / y : z * a};
        REQUIRE(i < t.rows.size());
        const auto& cells = t.rows.at(i++).cells;
        REQUIRE(cells.size() == want.size());
        for (std::size_t k = 0; k < want.size(); ++k) {
          INFO("threads " << threads << " a " << a << " y " << y << " column " << k);
          CHECK(same_bits(cells[k].n.d, want[k]));
        }
      }
    CHECK(i == t.rows.size());
  }
}

// A lane block whose points share one signature: rows after the first take its provenance
// (block_point), each with its own feasibility.
TEST_CASE("a lane block's rows share provenance but keep their own feasibility") {
  const std::string src =
      "sweep t over a in [1, 2, 3], y in 1..24 {\n"
      "  subject to y * a != 12\n"
      "  subject to y + a < 20\n"
      "  show a, y, z = y * a + 1\n"
      "}\n";
  for (unsigned threads : {1u, 2u}) {
    const Table t = table_of(src, Engine::compiled, threads), e = table_of(src, Engine::exact, threads);
    REQUIRE(t.rows.size() == 72);
    REQUIRE(e.rows.size() == 72);
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const double a = static_cast<double>(i / 24 + 1), y = static_cast<double>(i % 24 + 1);
      INFO("threads " << threads << " a " << a << " y " << y);
      const auto& cells = t.rows[i].cells;
      REQUIRE(cells.size() == 4);
      CHECK(same_bits(cells[2].n.d, y * a + 1));
      CHECK(cells[3].b == (y * a != 12 && y + a < 20));
      CHECK(cells[3].b == e.rows[i].cells.at(3).b);
      for (std::size_t k = 0; k < 3; ++k) CHECK(cells[k].deps == t.rows[0].cells[k].deps);  // one signature
    }
  }
}

// The same max/min/clamp arms taken in lane blocks and by points run one by one (the `where`
// sends a block's points one by one: the first and last blocks of y for a = 1 and 2, lanes for
// a = 3): each arm's cells have one provenance wherever they were computed, so the lanes mark
// each arm as the scalar machine does (a mislabelled arm would share a signature with another
// arm, whose provenance differs: clamp's three arms read a, the constant 30 and y).
TEST_CASE("max/min/clamp arms marked alike in lanes and one by one") {
  const char* const shows[] = {"clamp(y, a + 4, 30)", "max(y, 20 + a)", "min(y, 20 + a)"};
  for (std::size_t f = 0; f < 3; ++f) {
    const std::string src = std::string("sweep t over a in [1, 2, 3], y in 1..40 {\n") +
                            "  where y != 6 * a - 4 and y != 35 - a\n  show c = " + shows[f] + "\n}\n";
    for (unsigned threads : {1u, 2u}) {
      const Table t = table_of(src, Engine::compiled, threads);
      REQUIRE(t.rows.size() == 114);
      std::map<int, DepSet> deps_of_arm;
      std::size_t i = 0;
      for (double a : {1.0, 2.0, 3.0})
        for (double y = 1; y <= 40; ++y) {
          if (y == 6 * a - 4 || y == 35 - a) continue;
          int arm = 0;
          double want = y;
          if (f == 0) {
            arm = y < a + 4 ? 1 : y > 30 ? 2 : 0;
            want = arm == 1 ? a + 4 : arm == 2 ? 30 : y;
          } else {
            arm = f == 1 ? 20 + a > y : 20 + a < y;
            want = arm ? 20 + a : y;
          }
          const Value& cell = t.rows.at(i++).cells.at(0);
          INFO(shows[f] << " threads " << threads << " a " << a << " y " << y);
          CHECK(same_bits(cell.n.d, want));
          const auto [it, first] = deps_of_arm.emplace(arm, cell.deps);
          if (!first) CHECK(cell.deps == it->second);
        }
      REQUIRE(deps_of_arm.size() == (f == 0 ? 3u : 2u));
      CHECK(deps_of_arm[0] != deps_of_arm[1]);
      if (f == 0) CHECK(deps_of_arm[1] != deps_of_arm[2]);
    }
  }
}

// Blocks over the two innermost variables (whole cycles of y within one cycle of b: 32, 30, 21
// or 15 points, run as 32 or 16 lanes): each lane's b and y, the outer work (a) once per block,
// the work on b in lanes. m's branch on b > a splits a block for a = 1, 2, 3 (it is retried as
// blocks over y alone), not for a = 5; the `where` stops points in some blocks; max and clamp
// take different arms in the lanes of one block; t is defined in each arm (both in the lanes)
// before anything reads it; u is defined by the lanes (a > 2) or by the outer work (a <= 2), which the lanes
// then read (its row starts as the register). Every cell is the formula's bits and the exact path's value, and has one
// provenance per arm its value took (the arms of m, t, z and c; the same for every row that took it).
TEST_CASE("lane blocks over the two innermost sweep variables give the formula's bits") {
  const int shapes[][2] = {{4, 8}, {5, 6}, {7, 3}, {3, 5}, {9, 4}};
  for (const auto& [nb, ny] : shapes)
    for (unsigned threads : {1u, 2u}) {
      const std::string src =
          "sweep t over a in [1, 2, 3, 5], b in 1.." + std::to_string(nb) + ", y in 1.." + std::to_string(ny) +
          " {\n"
          "  where y * a != 3 * b + 2\n"
          "  let m = if b > a then y * b else b - y\n"
          "  let t = if a > 2 then y / b else b * 3 - y\n"
          "  let u = if a > 2 then y * b else a + 1\n"
          "  show a, b, y, m, t, z = max(y * a, b * 3), c = clamp(b * y / a, 2, 9), q = b * a + 1,\n"
          "       v = u * y + 1\n"
          "}\n";
      const Table f = table_of(src, Engine::compiled, threads), e = table_of(src, Engine::exact, threads);
      REQUIRE(f.rows.size() == e.rows.size());
      std::size_t i = 0;
      std::vector<std::map<int, DepSet>> deps_of_arm(9);  // per column
      for (double a : {1.0, 2.0, 3.0, 5.0})
        for (double b = 1; b <= nb; ++b)
          for (double y = 1; y <= ny; ++y) {
            if (y * a == 3 * b + 2) continue;
            const double c = b * y / a;
            const std::vector<double> want = {a,
                                              b,
                                              y,
                                              b > a ? y * b : b - y,
                                              a > 2 ? y / b : b * 3 - y,
                                              b * 3 > y * a ? b * 3 : y * a,
                                              c < 2   ? 2
                                              : c > 9 ? 9
                                                      : c,
                                              b * a + 1,
                                              (a > 2 ? y * b : a + 1) * y + 1};
            const int arm[9] = {0, 0, 0, b > a, a > 2, b * 3 > y * a, c < 2 ? 1 : c > 9 ? 2 : 0, 0, a > 2};
            REQUIRE(i < f.rows.size());
            const auto& cells = f.rows[i].cells;
            const auto& exact_cells = e.rows[i].cells;
            ++i;
            REQUIRE(cells.size() == want.size());
            for (std::size_t k = 0; k < want.size(); ++k) {
              INFO("shape " << nb << "x" << ny << " threads " << threads << " a " << a << " b " << b << " y " << y
                            << " column " << k);
              CHECK(same_bits(cells[k].n.d, want[k]));
              CHECK(same_bits(cells[k].n.d, exact_cells[k].n.d));
              const auto [it, first] = deps_of_arm[k].emplace(arm[k], cells[k].deps);
              if (!first) CHECK(cells[k].deps == it->second);
            }
          }
      CHECK(i == f.rows.size());
    }
}

// Ten branch sites, one signature byte each: nine maxes that always take their first argument
// and, last, m's, whose arm changes inside blocks of y. Signatures that differ only in their
// last byte (not a multiple of 8 from the first) still tell the rows apart: each arm of m has
// its own provenance on every row that took it, in lanes and one by one (the `where`).
TEST_CASE("signatures that differ only in their last byte give each arm its own provenance") {
  std::string src = "sweep t over a in [1, 2, 3, 4], y in 1..40 {\n  where y != 3 * a\n  show ";
  for (int j = 1; j <= 9; ++j) src += "k" + std::to_string(j) + " = max(a + " + std::to_string(j) + ", 0), ";
  src += "m = max(y, 20 + a)\n}\n";
  for (unsigned threads : {1u, 2u}) {
    const Table t = table_of(src, Engine::compiled, threads);
    REQUIRE(t.rows.size() == 156);
    std::map<int, DepSet> deps_of_arm;
    std::size_t i = 0;
    for (double a = 1; a <= 4; ++a)
      for (double y = 1; y <= 40; ++y) {
        if (y == 3 * a) continue;
        const int arm = 20 + a > y;
        const Value& cell = t.rows.at(i++).cells.at(9);
        INFO("threads " << threads << " a " << a << " y " << y);
        CHECK(same_bits(cell.n.d, arm ? 20 + a : y));
        const auto [it, first] = deps_of_arm.emplace(arm, cell.deps);
        if (!first) CHECK(cell.deps == it->second);
      }
    REQUIRE(deps_of_arm.size() == 2u);
    CHECK(deps_of_arm[0] != deps_of_arm[1]);
  }
}
