// run.hpp — executing a scenario's statements: shown results, sweep/search tables, asserts.
// The output model here is what every formatter (text, JSON, CSV, Markdown) and `diff` read.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "check.hpp"
#include "config.hpp"
#include "eval.hpp"

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
  std::size_t row = 0;
  std::string column;
  std::string text;
};

struct Table {
  std::string name;
  Span span;
  bool search = false;
  std::vector<std::string> key_names;
  std::vector<Column> cols;
  std::vector<Row> rows;
  std::vector<Note> notes;
  std::size_t evaluated = 0, infeasible = 0, filtered = 0;
  std::string objective;  // search: "maximize r.throughput"
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
  std::size_t max_points = 1'000'000;  // sweep/search cap (--max-points)
  unsigned threads = 0;                // 0: all cores
  std::size_t exact_limit = 4096;      // sweeps above this many points run in binary64
};

// Runs the main statements. Runtime errors are thrown as DiagnosticError.
[[nodiscard]] RunResult run_program(Program& p, Checker& ck, const Config& cfg, const RunOptions& opt);
// Runs the given statements only (the REPL runs each input's statements as they arrive).
[[nodiscard]] RunResult run_statements(Program& p, Checker& ck, const Config& cfg, const RunOptions& opt,
                                       const std::vector<Stmt*>& stmts);

// Display for a value of a static type (hint, else a human unit for `si`).
[[nodiscard]] Display display_for(const Program& p, const TypeP& t, double si);
// Number in display units (exact when possible), and its text.
[[nodiscard]] Num in_unit(const Num& si, const Display& d);
[[nodiscard]] std::string format_value(const Value& v, const Display& d);

// Regime notes for a table (notes.cpp).
void regime_notes(const Program& p, Table& t);

}  // namespace mls
