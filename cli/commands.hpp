// commands.hpp — parsed command-line arguments and the subcommands beside `run` and `check`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "interpreter/results/format.hpp"
#include "interpreter/tooling/scenario.hpp"

namespace mls {

struct Args {
  bool help = false, version = false;
  bool diff = false;  // report --diff: compare FILE as written with FILE under --use/--set
  std::string format = "text";
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
  bool seed_given = false;              // --seed (only meaningful with --uncertainty)
  std::vector<std::string> positional;  // command first
};

// Writes a command's whole output to --out (atomically) or stdout. Control characters but tab and
// newline are escaped as text output escapes them (escape_controls), unless `binary` (a PNG).
int emit(const Args& a, const std::string& text, bool binary = false);
int usage_error(const std::string& msg);
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
