// run.hpp — executing a scenario's statements: shown results, sweep/search tables, asserts.
// The output model here is what every formatter (text, JSON, CSV, Markdown) and `diff` read.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "eval.hpp"
#include "interpreter/semantics/check.hpp"
#include "interpreter/semantics/config.hpp"

namespace mls {

// How a number is displayed: unit text, base units per unit, optional rounding resolution.
struct Display {
  std::string unit;  // "" for dimensionless
  Num factor = Num::of_int(1);
  std::optional<Num> resolution;
};

struct Shown {
  std::string name;
  Value value;
  TypeP type;
  Display display;
  Span span;
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

struct Table {
  std::string name;
  Span span;
  bool search = false;
  std::vector<std::string> key_names;
  std::vector<Column> cols;
  std::vector<Row> rows;         // kept by collecting sinks; streamed otherwise
  std::vector<DepSet> col_deps;  // per column: union of its cells' dependencies (at table_end)
  std::vector<Note> notes;       // at table_end
  std::size_t row_count = 0;     // rows emitted
  std::size_t evaluated = 0, infeasible = 0, filtered = 0;
  std::string objective;  // search: "maximize r.throughput"
  std::string engine;     // "exact", "binary64 compiled", "binary64 evaluator (reason)"
};

struct AssertOutcome {
  bool ok = true;
  Span span;
  std::string text;
  std::string detail;  // "left: 67.0 h, right: 66.9 h"
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
  std::string preset, preset_via;
  std::vector<std::pair<std::string, std::string>> conventions;  // name -> choice, sorted by name
};

struct RunOptions {
  std::size_t max_points = 1'000'000;   // sweep/search cap (--max-points)
  unsigned threads = 0;                 // 0: all cores
  std::size_t exact_limit = 4096;       // sweeps above this many points run in binary64
  bool progress = false;                // progress bar on stderr (the CLI sets it for terminals)
  std::uint64_t max_steps = kMaxSteps;  // evaluation steps per shown value / assert / sweep point
  std::size_t max_results = 100'000;    // shown results of one run (a record shows one per field)
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
  virtual void table_end(const Table& t) = 0;  // counts, column deps, notes
  virtual void assertion(const AssertOutcome& a) = 0;
  virtual void end() = 0;
};

// Runs the main statements into a sink. Runtime errors are thrown as DiagnosticError.
void run_program(Program& p, Checker& ck, const Config& cfg, const RunOptions& opt, RunSink& sink);
// The same, collected in memory (diff, REPL, tests).
[[nodiscard]] RunResult run_program(Program& p, Checker& ck, const Config& cfg, const RunOptions& opt);
// Runs the given statements only (the REPL runs each input's statements as they arrive).
void run_statements(Program& p, Checker& ck, const Config& cfg, const RunOptions& opt, const std::vector<Stmt*>& stmts,
                    RunSink& sink);
[[nodiscard]] RunResult run_statements(Program& p, Checker& ck, const Config& cfg, const RunOptions& opt,
                                       const std::vector<Stmt*>& stmts);
// Replays a collected result into a sink (formatting a RunResult).
void replay(const RunResult& r, RunSink& sink);

// Display for a value of a static type (hint, else a human unit for `si`).
[[nodiscard]] Display display_for(const Program& p, const TypeP& t, double si);
// Number in display units (exact when possible), and its text.
[[nodiscard]] Num in_unit(const Num& si, const Display& d);
[[nodiscard]] std::string format_value(const Value& v, const Display& d);

// Regime notes, built row by row in bounded memory (notes.cpp).
class NotesBuilder {
 public:
  NotesBuilder(const Program& p, const Table& t);
  ~NotesBuilder();
  NotesBuilder(const NotesBuilder&) = delete;
  NotesBuilder& operator=(const NotesBuilder&) = delete;
  // Rows in table order. The row's key and cells become the previous row; `row` is left with
  // the storage (and stale values) of the row before, for the caller to refill.
  void add(Row& row, std::size_t index);
  [[nodiscard]] std::vector<Note> finish();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace mls
