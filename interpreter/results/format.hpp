// format.hpp — rendering a run as text, JSON (the documented contract), CSV and Markdown.
// Formatters are RunSinks, so a sweep's rows are written as they are computed.
#pragma once

#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "run_result.hpp"

namespace mls {

inline constexpr const char* kVersion = "0.1.0";

// Where formatted text goes: a string, or a FILE* flushed in blocks. Output beyond
// `limit` bytes is an error (limit.output), so a runaway sweep cannot fill the disk.
class Writer {
 public:
  explicit Writer(std::string* into, std::size_t limit = kNoLimit) : into_(into), limit_(limit) {}
  explicit Writer(std::FILE* f, std::size_t limit = kNoLimit) : file_(f), limit_(limit) {}
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  void put(std::string_view s);
  void flush();
  [[nodiscard]] std::size_t written() const { return written_; }
  static constexpr std::size_t kNoLimit = static_cast<std::size_t>(-1);
  // Text and Markdown output show control characters escaped (see escape_controls).
  bool escape_controls = false;

 private:
  std::string* into_ = nullptr;
  std::FILE* file_ = nullptr;
  std::string buf_;
  std::size_t written_ = 0;
  std::size_t limit_;
};

// `s` with every control character except newline and tab written as `\xNN` (C0, DEL) or
// `\u00NN` (C1): a string holding a terminal escape (`show "\x1b]0;..."` typed raw) cannot
// drive the terminal that shows it. JSON and CSV quote instead.
[[nodiscard]] std::string escape_controls(std::string_view s);

// limit.output: more than `limit` bytes of output (--max-output), from a Writer or a whole page.
[[nodiscard]] Diagnostic output_limit_exceeded(std::size_t limit);

// Name of the CSV table that holds the shown values (a keyword, so no sweep can take it).
inline constexpr const char* kShowTable = "show";

// Options of a formatter beyond its format.
struct FormatOptions {
  // Text: which assumptions are listed under each value and table. `changed` lists those a
  // choice put there (a `set`, a convention not at the default preset's choice, an approximation)
  // and the validation band, and counts the rest (registry values, defaults) in one line.
  enum class Assumptions { none, changed, all } assumptions = Assumptions::all;
  // CSV: print only this table, as plain CSV (no `# table` line); "" prints every table.
  std::string table;
};

// A formatter for `--format`: "text", "json", "csv" or "md" (nullptr otherwise).
[[nodiscard]] std::unique_ptr<RunSink> make_formatter(const std::string& format, const ResultScope& p, Writer& out,
                                                      const std::string& file, const FormatOptions& opt = {});

// "none", "changed", "all" (nullopt otherwise).
[[nodiscard]] std::optional<FormatOptions::Assumptions> parse_assumptions(const std::string& s);

// Which part of a collected table to print as text: a front end that shows a long table page
// by page (the REPL caps the rows it prints) asks for rows [first, first + count) under the
// header, and for the footer (counts, failures, per-column assumptions, notes) once. `stop` is
// asked every kStopEvery rows; when it answers true the text so far is returned and `stopped`
// set, so Ctrl-C ends the formatting of a million rows at once.
struct TableSlice {
  std::size_t first = 0;
  std::size_t count = static_cast<std::size_t>(-1);
  bool footer = true;
  std::function<bool()> stop;
  bool stopped = false;  // out
  static constexpr std::size_t kStopEvery = 256;
};

// One collected table (or the slice asked for) as the text format prints it.
[[nodiscard]] std::string format_table_text(const ResultScope& p, const Table& t);
[[nodiscard]] std::string format_table_text(const ResultScope& p, const Table& t, TableSlice& slice);

// Convenience: a collected result rendered to a string.
[[nodiscard]] std::string format_result(const std::string& format, const ResultScope& p, const RunResult& r,
                                        const std::string& file);

[[nodiscard]] std::string json_string(const std::string& s);
[[nodiscard]] std::string json_number(const Num& n);
// A cell or result value as JSON: a number in the display unit, a bool, a string (else null).
[[nodiscard]] std::string json_cell(const Value& v, const Display& d);
// Column header with its unit: "step_ms [ms]".
[[nodiscard]] std::string header_text(const Column& c);
// A value with its unit: "67.0 h", "92.4%".
[[nodiscard]] std::string value_with_unit(const Value& v, const Display& d);
// "(preset mlsysim)" for a `via` worth showing, "" for the unsurprising ones (stdlib, scenario).
[[nodiscard]] std::string via_text(const AssumptionView& a);
// Assumption lines, aligned, for text output.
void assumption_block(std::string& out, const std::vector<AssumptionView>& as, const std::string& indent);

}  // namespace mls
