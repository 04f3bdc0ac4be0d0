// compact_rows_test.cpp — a compiled sweep keeps its chunks' rows compact (binary64 numbers and
// a provenance pointer per row, sweep_points.hpp CompactRows) and makes Values only where a
// consumer takes them: a sink's table_row (through RunSink::table_rows' default), a sink that
// reads the numbers (RowBlock), the regime notes (notes_test.cpp compares those with the
// reference). Each consumer must see what the rows were, on every thread count.
#include <doctest/doctest.h>

#include <cmath>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "harness.hpp"
#include "interpreter/results/format.hpp"
#include "interpreter/results/row_text.hpp"

using namespace mls;

namespace {

// Filtered points (a row's previous row is not the previous point), a boolean column that
// flips, a feasibility column, numbers that are not whole, over three chunks of points.
const char* const kSource =
    "sweep s over n in 1..1100, m in [1, 2, 3] {\n"
    "  let k = min(n, 4)\n"
    "  where n < 20 or n > 21 or m == 1\n"
    "  subject to n * m != 30\n"
    "  show n, m, t = 100 s / n, u = k * max(m, 2), low = k < 4\n"
    "}\n";

// The rows as table_row receives them (RunSink::table_rows' default for a compiled sweep).
class RowsSink : public RunSink {
 public:
  void begin(const RunResult&) override {}
  void result(const Shown&) override {}
  void table_begin(const Table& t) override { engine = t.engine; }
  void table_row(const Table&, const Row& r) override { rows.push_back(r); }
  void table_end(const Table&) override {}
  void assertion(const AssertOutcome&) override {}
  void end() override {}
  std::string engine;
  std::vector<Row> rows;
};

// Reads blocks of rows as numbers, and every third row's Values (out of order: its key is then
// not one step from the row made before).
class BlockSink : public RunSink {
 public:
  void begin(const RunResult&) override {}
  void result(const Shown&) override {}
  void table_begin(const Table&) override {}
  void table_row(const Table&, const Row&) override { ++one_by_one; }
  void table_rows(const Table&, const RowBlock& b) override {
    ++blocks;
    // A block given as one array holds exactly its rows' numbers, one row after another.
    if (const double* flat = b.contiguous()) {
      ++contiguous;
      for (std::size_t i = 0; i < b.size(); ++i)
        for (std::size_t c = 0; c < b.width(); ++c) flat_differ += flat[i * b.width() + c] != b.numbers(i)[c];
    }
    for (std::size_t i = 0; i < b.size(); ++i) {
      numbers.emplace_back(b.numbers(i), b.numbers(i) + b.width());
      number_column.clear();
      for (std::size_t c = 0; c < b.width(); ++c) number_column.push_back(b.number_column(c));
      made.emplace_back();
      if (i % 3 == 2) b.row(i, made.back());
    }
  }
  void table_end(const Table&) override {}
  void assertion(const AssertOutcome&) override {}
  void end() override {}
  std::size_t one_by_one = 0, blocks = 0, contiguous = 0, flat_differ = 0;
  std::vector<std::vector<double>> numbers;
  std::vector<bool> number_column;
  std::vector<Row> made;  // every third row's Values, else empty
};

// A dependency set as what it holds (assumptions by name, branches by site and arm): set ids are
// interned in the order worker threads first make them, so two runs number them differently.
std::string dep_text(const Deps& d, DepSet set) {
  std::string s;
  for (const AtomId a : d.atoms(set))
    s += d.is_assumption(a) ? d.assumption(a).name + "=" + d.assumption(a).value + ";"
                            : std::to_string(d.atom_site(a)) + ":" + std::to_string(d.atom_arm(a)) + ";";
  return s;
}

std::string text(const std::vector<Value>& vs) {
  std::string s;
  for (const auto& v : vs) s += format_value(v, Display{}) + "|";
  return s;
}

}  // namespace

TEST_CASE("a compiled sweep's compact rows reach table_row as the exact engine's rows") {
  for (const unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    std::vector<std::vector<Row>> runs;
    for (const std::size_t exact_limit : {std::size_t{16}, std::size_t{1u << 20}}) {  // compiled, exact
      Harness s;
      REQUIRE(prepare(s, "compact.mls", std::string(kSource)));
      const auto cfg = configure(s.prog, s.ck, Selection{});
      REQUIRE(cfg);
      RunOptions opt;
      opt.exact_limit = exact_limit;
      opt.threads = threads;
      RowsSink sink;
      run_program(s.prog, s.ck, *cfg, opt, sink);
      CHECK(sink.engine == (exact_limit == 16 ? "binary64, compiled" : "exact"));
      runs.push_back(std::move(sink.rows));
    }
    const std::vector<Row>&fast = runs[0], &exact = runs[1];
    REQUIRE(fast.size() == 1100 * 3 - 4);  // (20, 2), (20, 3), (21, 2), (21, 3) filtered
    REQUIRE(fast.size() == exact.size());
    std::size_t differ = 0, infeasible = 0;
    for (std::size_t i = 0; i < fast.size(); ++i) {
      differ += fast[i].point != exact[i].point || text(fast[i].key) != text(exact[i].key) ||
                text(fast[i].cells) != text(exact[i].cells);
      infeasible += fast[i].cells.back().k == Value::K::boolean && !fast[i].cells.back().b;
    }
    CHECK(differ == 0);
    CHECK(infeasible == 3);  // n * m == 30: (30, 1), (15, 2), (10, 3)
  }
}

TEST_CASE("a sink that takes blocks of rows reads the numbers table_row would have received") {
  for (const unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    std::vector<Row> want;
    std::vector<std::vector<std::string>> want_deps;  // per row, per cell: dep_text
    std::vector<std::vector<std::string>> made_deps;
    BlockSink got;
    for (const bool blocks : {false, true}) {
      Harness s;
      REQUIRE(prepare(s, "compact.mls", std::string(kSource)));
      const auto cfg = configure(s.prog, s.ck, Selection{});
      REQUIRE(cfg);
      RunOptions opt;
      opt.exact_limit = 16;
      opt.threads = threads;
      RowsSink rows;
      run_program(s.prog, s.ck, *cfg, opt, blocks ? static_cast<RunSink&>(got) : rows);
      if (!blocks) want = std::move(rows.rows);
      // Read while this run's dependency table lives.
      for (const Row& r : blocks ? got.made : want) {
        auto& out = (blocks ? made_deps : want_deps).emplace_back();
        for (const Value& v : r.cells) out.push_back(dep_text(s.prog.deps, v.deps));
      }
    }
    CHECK(got.one_by_one == 0);
    CHECK(got.blocks == 4);  // one per chunk of 1024 points
    // The first chunk has filtered points (no one array of its rows), the others none.
    CHECK(got.contiguous == 3);
    CHECK(got.flat_differ == 0);
    REQUIRE(got.numbers.size() == want.size());
    REQUIRE(got.number_column == std::vector<bool>{true, true, true, true, false, false});
    std::size_t differ = 0, made = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
      const Row& w = want[i];
      for (std::size_t c = 0; c < w.cells.size(); ++c) {
        const Value& v = w.cells[c];
        const double x = got.numbers[i][c];
        differ += v.k == Value::K::num ? x != v.n.d : x != (v.b ? 1.0 : 0.0);
      }
      const Row& m = got.made[i];
      if (m.cells.empty()) continue;
      ++made;
      differ += m.point != w.point || text(m.key) != text(w.key) || text(m.cells) != text(w.cells);
      differ += made_deps[i] != want_deps[i];
    }
    CHECK(differ == 0);
    CHECK(made == want.size() / 3);
  }
}

// The rows before one that cannot be shown reach a block-taking sink, and none after it.
TEST_CASE("a compiled sweep refused mid-chunk hands a block sink the rows before the refused one") {
  const std::string src =
      "sweep s over x in 1..3000 {\n"
      "  show x, t = (if x > 2500 then 1e301 s else x * 1 s) -> ns\n"
      "}\n";
  for (const unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    Harness s;
    REQUIRE(prepare(s, "rows.mls", src));
    const auto cfg = configure(s.prog, s.ck, Selection{});
    REQUIRE(cfg);
    RunOptions opt;
    opt.exact_limit = 16;
    opt.threads = threads;
    BlockSink sink;
    bool refused = false;
    try {
      run_program(s.prog, s.ck, *cfg, opt, sink);
    } catch (const DiagnosticError& e) {
      refused = true;
      CHECK(e.diag.kind == ErrorKind::runtime_non_finite);
    }
    CHECK(refused);
    CHECK(sink.numbers.size() == 2500);
    CHECK(sink.numbers.back()[0] == 2500);
  }
}

// Workers format a compact row of numbers from the numbers (RowFormat::append_numbers): the
// bytes must be append's for the same cells as Values, in every format, in every display unit
// (each column's memo reused across rows, hits and misses alike).
TEST_CASE("a row of numbers formats from its numbers as from its Values") {
  const std::string src =
      "sweep s over n in 1..3000 {\n"
      "  show n, t = n * 1 ms -> ns, b = n * 1 GB, r = n / 7, p = n * 1 % \n"
      "}\n";
  Harness s;
  REQUIRE(prepare(s, "fmt.mls", src));
  RunOptions opt;
  opt.exact_limit = 16;
  auto r = execute(s, Selection{}, opt);
  REQUIRE(r.has_value());
  const Table& t = r->tables.at(0);
  const std::size_t w = t.cols.size();
  REQUIRE(w == 5);
  std::mt19937_64 rng(10);
  const double special[] = {0.0, -0.0, 1.0, -1.0, 0.5, 1e15, 999999999999999.0, 1e-300, 1e300, 123456.789, -2.5e-7};
  std::vector<std::vector<double>> rows;
  for (int i = 0; i < 3000; ++i) {
    std::vector<double> x(w);
    for (auto& v : x) {
      const auto pick = rng() % 4;
      v = pick == 0   ? special[rng() % std::size(special)]
          : pick == 1 ? static_cast<double>(rng() % 64)
          : pick == 2 ? static_cast<double>(rng() % 100000) / 8
                      : std::ldexp(static_cast<double>(rng() % (1u << 30)), static_cast<int>(rng() % 120) - 60);
    }
    rows.push_back(std::move(x));
  }
  for (const std::string format : {"csv", "json", "text", "md"}) {
    CAPTURE(format);
    std::string out;
    Writer writer(&out);
    auto sink = make_formatter(format, scope_of(s.prog), writer, "fmt.mls");
    REQUIRE(sink);
    auto* texts = dynamic_cast<RowTextSink*>(sink.get());
    REQUIRE(texts);
    sink->begin(RunResult{});
    sink->table_begin(t);
    std::shared_ptr<const RowFormat> f;
    for (std::size_t i = 0; i < t.rows.size() && !(f = texts->row_format(t)); ++i) sink->table_row(t, t.rows[i]);
    REQUIRE(f);
    CellMemo from_numbers, from_values;
    std::size_t differ = 0, direct = 0;
    std::vector<Value> cells(w);
    for (const auto& x : rows) {
      for (std::size_t c = 0; c < w; ++c) cells[c] = Value::number(Num::of_double(x[c]), DepSet{3});
      std::string a, b;
      const bool ok = f->append_numbers(x, a, from_numbers);
      f->append(cells, b, from_values);
      if (!ok) {
        CHECK(a.empty());
        continue;
      }
      ++direct;
      differ += a != b;
    }
    CHECK(differ == 0);
    CHECK(direct == (format == "md" ? 0 : rows.size()));  // Markdown makes the Values
  }
}
