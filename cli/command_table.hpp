// command_table.hpp — the command line as data (issue #37): every flag with its value and how it
// is read, every subcommand with its usage, the flags it takes, its output formats, whether Ctrl-C
// stops it, and its handler. Parsing, the usage text (`mls --help`, `mls help COMMAND`), dispatch
// and every usage error are generated from these two tables (cli/args.cpp), and so are the golden
// tests of malformed command lines (tests/gen_usage_goldens.py reads them as `mls help --format
// json`). A new subcommand or flag is a row here and a handler (docs/contributing.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mls {

struct Args;

enum class Flag : std::uint8_t {
  format,
  use,
  set,
  preset,
  assumptions,
  table,
  out,
  max_output,
  threads,
  max_points,
  exact_limit,
  uncertainty,
  seed,
  shard,
  where,
  x,
  y,
  sensitivity,
  top,
  diff,
  cross_validate,
  fit,
  stdio,
  stdlib,
  help,
  version,
  none,  // in a FlagUse: no other flag
};
inline constexpr std::size_t kFlagCount = static_cast<std::size_t>(Flag::none);

struct FlagSpec {
  Flag id;
  const char* name;   // "--format"; matched whole, as `--format csv` or `--format=csv`
  const char* value;  // the value in usage text ("NAME=CHOICE"); nullptr: a switch, no value
  const char* help;   // what it does, for --help (lines after the first start with a space)
  // For the generated golden tests: a well-formed value, and a malformed one ("" when every
  // value is well-formed: a file name, a column name; both "" for a switch).
  const char* example;
  const char* bad_value;
  // Reads `v` into `a`: "" or what is wrong with it (the usage error's message).
  std::string (*apply)(Args& a, const std::string& v);
};

// A flag as one command takes it, with the rules that involve other flags.
struct FlagUse {
  Flag flag;
  int max = 0;                            // the most times it may be given (0: repeatable)
  const char* with = "";                  // it matters only with this flag ("--sensitivity"); said in errors
  Flag needs = Flag::none;                // another flag it needs
  Flag excludes = Flag::none;             // a flag it cannot be combined with
  const char* why = "";                   // why `excludes` or `formats` hold: "runs whole"
  std::vector<const char*> formats = {};  // the output formats it works with ({}: every one)
};

struct Command {
  const char* name;
  // Usage lines without the leading `mls `; "{formats}" stands for the formats ("text|json").
  std::vector<const char*> synopses;
  const char* summary;  // for --help; lines after the first start with a space
  std::vector<FlagUse> flags;
  std::vector<const char*> formats;  // --format values; the first is the default ({}: no --format)
  // The usage error of a --format value not in `formats`: "{formats}" ("text, json or md") and
  // "{got}" are filled in.
  const char* format_error = "--format must be {formats}, got '{got}'";
  bool synopsis_on_error = false;  // usage errors end with the synopses, else with a pointer to --help
  bool interruptible = false;      // Ctrl-C stops it as an error (run.interrupted, exit 130)
  // Flags refused with a message of the command's own (merge reads its choices from the parts).
  std::vector<Flag> refused = {};
  const char* refused_why = "";
  int (*handler)(const Args&) = nullptr;
};

[[nodiscard]] const std::vector<FlagSpec>& flag_table();
[[nodiscard]] const std::vector<Command>& command_table();
[[nodiscard]] const FlagSpec& spec(Flag f);
// The row named `name`, or null.
[[nodiscard]] const Command* find_command(const std::string& name);

}  // namespace mls
