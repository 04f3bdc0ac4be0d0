// commands.hpp — parsed command-line arguments, the handlers of the command table
// (command_table.hpp) and what they share.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "command_table.hpp"
#include "interpreter/results/format.hpp"
#include "interpreter/tooling/scenario.hpp"

namespace mls {

// What the command line said, read by the flag table (command_table.cpp) and checked against the
// command's row (args.cpp) before its handler sees it.
struct Args {
  const Command* command = nullptr;     // the row of positional[0]
  std::array<int, kFlagCount> given{};  // how often each flag was given
  bool help = false, version = false;
  bool diff = false;   // report --diff: compare FILE as written with FILE under --use/--set
  std::string format;  // "" until checked: then the command's first format if none was given
  std::vector<std::pair<std::string, std::string>> uses, sets;
  std::vector<std::string> presets;
  std::string out;
  std::string where;                     // list --where EXPR
  std::string table;                     // run, merge: --table NAME (csv)
  std::string plot_x;                    // plot --x COL
  std::vector<std::string> plot_y;       // plot --y COL,...
  std::vector<std::string> sensitivity;  // report --sensitivity RESULT (repeatable)
  std::size_t top = SIZE_MAX;            // sensitivity --top K: entries listed (default: every one)
  // run, merge, text: --assumptions none|changed|all; a reader wants what this run changed.
  FormatOptions::Assumptions assumptions = FormatOptions::Assumptions::changed;
  std::size_t max_output = static_cast<std::size_t>(1) << 32;  // --max-output BYTES (4 GiB)
  RunOptions run;
  std::string stdlib;                   // lsp --stdlib DIR
  std::vector<std::string> positional;  // command first
  [[nodiscard]] bool has(Flag f) const { return given[static_cast<std::size_t>(f)] > 0; }
};

// What every session core of the command line is given: its wording (`mls conventions`).
Core::Options core_options();

// Writes a command's whole output to --out (atomically) or stdout. Control characters but tab and
// newline are escaped as text output escapes them (escape_controls), unless `binary` (a PNG).
int emit(const Args& a, const std::string& text, bool binary = false);
// Says what was wrong with the command line (exit 64): `mls: MSG`, then the command's usage lines
// when its row asks for them (the command in `a`), else a pointer to --help.
int usage_error(const std::string& msg);
int usage_error(const Args& a, const std::string& msg);
// Forwards a run to `inner` and sets `failed` when an assert fails (exit code 1).
std::unique_ptr<RunSink> watch_asserts(RunSink& inner, bool& failed);
int io_error(const std::string& message);
// Prints the diagnostics to stderr; their exit code (70 when none gave one).
int report(const Scenario& s);
// 0, or the usage exit code after saying why: --out names a file (the same file: links followed,
// compared by device and inode) that `s` read (scenario, import, config.json, trace) or one of
// `more` (merge's parts). Called before a command runs and again before it writes, as a run
// reads some files (traces) only while it evaluates.
int refuse_output_over_input(const Args& a, const Scenario& s, std::vector<std::string> more = {});
Selection selection_of(const Args& a);
// 0, or the usage exit code after saying why: --table without --format csv, or naming no table of `s`.
int check_table(const Args& a, const Scenario& s);
// The formatter options the command line chose.
FormatOptions format_options(const Args& a);

// Reads the command line through the tables and runs the command's handler (args.cpp).
int dispatch(int argc, char** argv);

int cmd_run(const Args& a);          // main.cpp
int cmd_check(const Args& a);        // main.cpp
int cmd_help(const Args& a);         // args.cpp
int cmd_lsp(const Args& a);          // lsp_stdio.cpp: `mls lsp` on stdin and stdout
int cmd_diff(const Args& a);         // diff.cpp
int cmd_explain(const Args& a);      // explain.cpp
int cmd_sensitivity(const Args& a);  // sensitivity.cpp
int cmd_conventions(const Args& a);  // listing.cpp
int cmd_presets(const Args& a);      // listing.cpp
int cmd_repl(const Args& a);         // repl.cpp
int cmd_validate(const Args& a);     // validate.cpp
int cmd_list(const Args& a);         // list.cpp
int cmd_merge(const Args& a);        // merge.cpp
int cmd_report(const Args& a);       // report.cpp
int cmd_plot(const Args& a);         // report.cpp
// The sink of `mls run --shard K/N`: a part for `mls merge` (merge.cpp); `shard` receives the
// sweeps' points.
std::unique_ptr<RunSink> make_part_writer(const ResultScope& scope, Writer& w, const Args& a, const std::string& file,
                                          ShardWriter*& shard);

}  // namespace mls
