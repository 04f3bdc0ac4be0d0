// run_result.hpp — the data model of a run's output: shown values, tables and their rows, asserts,
// the assumptions behind each, and the RunSink contract through which a run streams them. What
// every formatter (text, JSON, CSV, Markdown), diff and explain read; it holds no evaluator.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "interpreter/semantics/types.hpp"
#include "interpreter/semantics/value.hpp"

namespace mls {

class Program;

// What the results layer reads of a prepared program, and nothing more: the unit table (display
// units), the provenance atoms (the assumptions behind a value) and the sources (where each was
// written). A view, not the Program, so that a front end can format a run without holding the
// Program or the Checker (issue #20); it lives as long as the program it views.
struct ResultScope {
  const UnitTable& units;
  const Deps& deps;
  const Sources& sources;
};
[[nodiscard]] ResultScope scope_of(const Program& p);

// How a number is displayed: unit text, base units per unit, optional rounding resolution.
struct Display {
  std::string unit;  // "" for dimensionless
  Num factor = Num::of_int(1);
  std::optional<Num> resolution;
};

// A shown value's spread under `mls run --uncertainty N` (docs/uncertainty.md): percentiles of
// its N samples in base units, and the uncertain inputs it depends on, most influential first.
struct Driver {
  std::string name;             // the input's assumption name ("mttf.gpu")
  std::string value;            // as written ("50_000 h +- 30 %")
  double rank_correlation = 0;  // Spearman's rho between the input's draws and the result
};
struct Spread {
  double p10 = 0, p50 = 0, p90 = 0;
  std::size_t samples = 0;
  std::vector<Driver> drivers;  // beyond sampling noise, largest first
  // |rank correlation| below this (2/sqrt(samples): zero's two-sided 95 % band) is
  // indistinguishable from no correlation; so many inputs were left out of `drivers` for it.
  double noise_threshold = 0;
  std::size_t within_noise = 0;
};

struct Shown {
  std::string name;
  Value value;
  TypeP type;
  Display display;
  Span span;
  std::optional<Spread> spread;  // --uncertainty, when the value depends on an uncertain input
  std::string note;              // what the reader must know about how it was found (a solve's skipped points)
};

struct Column {
  std::string name;
  TypeP type;
  Display display;
  Span span;
};

struct Row {
  std::vector<Value> key;    // sweep variable values (the row key for diffs)
  std::vector<Value> cells;  // one per column
  std::size_t point = 0;     // index in enumeration order
};

struct Note {
  std::size_t row = 0;  // 0-based row of the table
  std::string column;
  std::string text;
  std::string key;  // the row's sweep-variable values, "gpus=32"
};

// A feasible point a search evaluated, kept for a picture of the search (RunOptions::
// keep_search_points): its objective values (binary64, SI) and its sweep-variable values.
struct SearchPoint {
  std::size_t point = 0;  // index in enumeration order (a ranked row's Row::point)
  std::vector<double> objectives;
  std::vector<Value> key;
};

struct Table {
  std::string name;
  Span span;
  bool search = false;
  std::vector<std::string> key_names;
  // Per key: its values read a solve's answer (they move with it, so a diff matches rows by the
  // other keys when they differ); empty when none does.
  std::vector<bool> key_solved;
  std::vector<Column> cols;
  std::vector<Row> rows;         // kept by collecting sinks; streamed otherwise
  std::vector<DepSet> col_deps;  // per column: union of its cells' dependencies (at table_end)
  std::vector<Note> notes;       // at table_end
  std::size_t row_count = 0;     // rows emitted
  std::size_t evaluated = 0, infeasible = 0, filtered = 0;
  // Searches: points infeasible because their evaluation failed, per reason ("runtime.error: ..."),
  // in order of first occurrence; they are counted in `infeasible` too.
  std::vector<std::pair<std::string, std::size_t>> errors;
  std::string objective;  // search: "maximize r.throughput"
  // Search with `top K per EXPR`: EXPR's text (its group column's name), K (0: a Pareto front per
  // group) and whether that column was added first (else the group is a shown column).
  std::string per;
  std::size_t per_top = 0;
  bool per_column = false;
  // Searches with keep_search_points: each objective's text and display unit, and the feasible
  // points in enumeration order, the first kMaxSearchPoints of them (the rest counted).
  std::vector<std::string> objective_names;
  std::vector<Display> objective_displays;
  std::vector<SearchPoint> points;
  std::size_t points_dropped = 0;
  std::string engine;  // "exact", "binary64 compiled", "binary64 evaluator (reason)"
  // A sweep that an error stopped after its first rows went out (RunOptions::keep_going): the
  // error's code and message; the rows are the ones before it, the run went on.
  std::string stopped;
};

inline constexpr std::size_t kMaxSearchPoints = 20000;

struct AssertOutcome {
  bool ok = true;
  Span span;
  std::string text;
  std::string detail;     // "left: 67.0 h, right: 66.9 h", "at gpus = 64"
  bool operands = false;  // the detail names a comparison's operands, "left" and "right"
  std::string message;
};

struct RunResult {
  std::vector<Shown> results;
  std::vector<Table> tables;
  std::vector<AssertOutcome> asserts;
  struct Item {
    enum class K { result, table, assertion } k;
    std::size_t index;
  };
  std::vector<Item> order;  // source order
  std::string preset;
  Via preset_via;
  std::vector<std::pair<std::string, std::string>> conventions;  // name -> choice, sorted by name
  std::size_t uncertainty_samples = 0;                           // --uncertainty N (0: off)
  std::uint64_t uncertainty_seed = 0;                            // --seed S
  std::size_t uncertain_inputs = 0;                              // uncertain literals the run could draw
  // Statements that failed at run time while the run went on (RunOptions::keep_going), in order.
  std::vector<Diagnostic> errors;
};

// Consecutive rows of a table held as binary64 numbers (a compiled sweep's chunk, runtime/
// sweep_points.hpp CompactRows): a sink that reads numbers (a checksum, a columnar store) takes
// them without a Value per cell; row() makes a row's Values for the rest.
class RowBlock {
 public:
  virtual ~RowBlock() = default;
  [[nodiscard]] virtual std::size_t size() const = 0;   // rows
  [[nodiscard]] virtual std::size_t width() const = 0;  // cells per row
  // Whether column c holds numbers (otherwise booleans as 0 or 1, or strings as ids: read
  // those through row()).
  [[nodiscard]] virtual bool number_column(std::size_t c) const = 0;
  // Row r's cells, width() of them; a number column's are the numbers themselves.
  [[nodiscard]] virtual const double* numbers(std::size_t r) const = 0;
  // Row r as table_row receives it (rows asked in order are made fastest).
  virtual void row(std::size_t r, Row& out) const = 0;
  // Every row's cells in one array, row r's at [r * width(), (r + 1) * width()) (numbers(r)),
  // when the rows lie so (a chunk none of whose rows was filtered out), else null: a sink that
  // only reads numbers then takes the whole block without a call per row.
  [[nodiscard]] virtual const double* contiguous() const { return nullptr; }
};

// Receives a run's output in source order; sweeps stream their rows, so a million-point
// table never has to be held in memory.
class RunSink {
 public:
  virtual ~RunSink() = default;
  virtual void begin(const RunResult& header) = 0;  // preset and conventions only
  virtual void result(const Shown& s) = 0;
  virtual void table_begin(const Table& t) = 0;  // columns with their display units
  virtual void table_row(const Table& t, const Row& r) = 0;
  // In place of table_row for each of a block's rows, in order. By default that is what it
  // does, each row's Values made in one Row.
  virtual void table_rows(const Table& t, const RowBlock& rows);
  virtual void table_end(const Table& t) = 0;  // counts, column deps, notes
  virtual void assertion(const AssertOutcome& a) = 0;
  // A shown value or assert failed at run time and the run went on (RunOptions::keep_going):
  // the sink may list it (JSON `errors`); the diagnostic itself is reported by the caller.
  virtual void error(const Diagnostic& d) { (void)d; }
  virtual void end() = 0;
};

// Replays a collected result into a sink (formatting a RunResult).
void replay(const RunResult& r, RunSink& sink);

// Display for a value of a static type (hint, else a human unit for `si`).
[[nodiscard]] Display display_for(const ResultScope& p, const TypeP& t, double si);
// Number in display units (exact when possible), and its text.
[[nodiscard]] Num in_unit(const Num& si, const Display& d);
[[nodiscard]] std::string format_value(const Value& v, const Display& d);
// A record's label, as rows keyed by it are labelled: the global it was bound to (`DGX_H100`),
// else its `name` field, else "" (an anonymous record).
[[nodiscard]] std::string record_label(const Value& v);

struct AssumptionView {
  AssumptionKind kind = AssumptionKind::default_;
  std::string name, value, at;  // at: "file:line", "command line"
  Via via;
  // A validation band (kind validation): its relative half-width (< 0: none), its domain and
  // whether it is extrapolated from another domain (docs/validation.md).
  double band = -1;
  std::string domain = {};
  bool extrapolated = false;
  // What a reader may call "validated": a band measured on the value's own domain.
  [[nodiscard]] bool in_domain() const { return kind == AssumptionKind::validation && band >= 0 && !extrapolated; }
  bool operator<(const AssumptionView& o) const;
  bool operator==(const AssumptionView& o) const;
};

// The assumptions in a dependency set, sorted (kind, name, at) and de-duplicated; of several sets,
// those of their union (read only: no union is interned).
[[nodiscard]] std::vector<AssumptionView> assumptions_of(const ResultScope& p, DepSet d);
// How a value's validation bands read in one line (the REPL, the editor hover): "validated on H100
// SXM dense fp8 (training, ±12.5 %)" for a band of its own domain, "extrapolated to B200 SXM MoE
// fp8 (training, ±35.0 %; not validated there)" for one carried over from the nearest validated
// domain; "" when the value depends on no band. Only an in-domain band says "validated".
[[nodiscard]] std::string band_summary(const std::vector<AssumptionView>& as);
[[nodiscard]] std::vector<AssumptionView> assumptions_of(const ResultScope& p, const std::vector<DepSet>& ds);

// A display that keeps a number of bytes in the prefix family it was written in (issue #12):
// when the value's type asks for no unit, it is a plain amount of bytes, and every byte
// quantity among the assumptions it depends on was written with a binary prefix (`80 GiB`),
// the binary unit of the same magnitude rule (85.9e9 B -> "80 GiB", not "85.9 GB"). Otherwise
// `d` itself. The REPL shows answers this way; `mls run` keeps its documented decimal units.
[[nodiscard]] Display display_in_written_family(const ResultScope& p, const Display& d, const TypeP& t, const Value& v);

}  // namespace mls
