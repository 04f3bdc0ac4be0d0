// command_table.cpp — the rows of the command line's two tables: the flags (name, value, help, how
// a value is read and checked) and the subcommands (usage, flags, formats, Ctrl-C, handler).
#include "command_table.hpp"

#include <optional>

#include "commands.hpp"
#include "interpreter/tooling/controls.hpp"

namespace mls {

namespace {

// Largest values the number flags take: beyond them a value is a typo, not a wish.
constexpr unsigned long long kMaxOutputCap = 1ull << 50;  // 1 PiB
constexpr unsigned long long kMaxPointsCap = 1'000'000'000'000ull;
constexpr unsigned long long kMaxSeed = 18446744073709551615ULL;

// A number flag's value: decimal digits only (no sign, space or exponent; `-1` is not a huge
// number), no overflow, within [lo, hi].
std::optional<unsigned long long> whole_number(const std::string& v, unsigned long long lo, unsigned long long hi) {
  if (v.empty()) return std::nullopt;
  unsigned long long n = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto d = static_cast<unsigned>(c - '0');
    if (n > (hi - d) / 10) return std::nullopt;  // above hi (and so never wraps around)
    n = n * 10 + d;
  }
  if (n < lo) return std::nullopt;
  return n;
}

// "--top expects a whole number from 1 to 100000, got '0'", or "" with `out` set.
template <class T>
std::string number(const char* flag, const std::string& v, unsigned long long lo, unsigned long long hi, T& out,
                   const char* what = "a whole number") {
  const auto n = whole_number(v, lo, hi);
  if (!n)
    return std::string(flag) + " expects " + what + " from " + std::to_string(lo) + " to " + std::to_string(hi) +
           ", got '" + v + "'";
  out = static_cast<T>(*n);
  return "";
}

std::string pair(const char* flag, const std::string& v, std::vector<std::pair<std::string, std::string>>& out) {
  const auto eq = v.find('=');
  if (eq == std::string::npos || eq == 0) return std::string(flag) + " expects NAME=VALUE, got '" + v + "'";
  out.emplace_back(v.substr(0, eq), v.substr(eq + 1));
  return "";
}

std::string nonempty(const char* flag, const std::string& v, const char* what, std::string& out) {
  if (v.empty()) return std::string(flag) + " expects " + what + ", got ''";
  out = v;
  return "";
}

std::string read_format(Args& a, const std::string& v) {
  a.format = v;  // checked against the command's formats (args.cpp)
  return "";
}
std::string read_use(Args& a, const std::string& v) { return pair("--use", v, a.uses); }
std::string read_set(Args& a, const std::string& v) { return pair("--set", v, a.sets); }
std::string read_preset(Args& a, const std::string& v) {
  a.presets.push_back(v);
  return "";
}
std::string read_assumptions(Args& a, const std::string& v) {
  const auto m = parse_assumptions(v);
  if (!m) return "--assumptions must be none, changed or all, got '" + v + "'";
  a.assumptions = *m;
  return "";
}
std::string read_table(Args& a, const std::string& v) {
  a.table = v;
  return "";
}
std::string read_out(Args& a, const std::string& v) {
  // An empty name is a mistake (an unset shell variable), not a request for stdout.
  return nonempty("--out", v, "a file name", a.out);
}
std::string read_max_output(Args& a, const std::string& v) {
  return number("--max-output", v, 1, kMaxOutputCap, a.max_output, "a number of bytes");
}
std::string read_threads(Args& a, const std::string& v) { return number("--threads", v, 1, 1024, a.run.threads); }
std::string read_max_points(Args& a, const std::string& v) {
  return number("--max-points", v, 1, kMaxPointsCap, a.run.max_points);
}
std::string read_exact_limit(Args& a, const std::string& v) {
  // 0 forces the compiled fast path everywhere, which the tests use to compare the two engines.
  return number("--exact-limit", v, 0, kMaxPointsCap, a.run.exact_limit);
}
std::string read_uncertainty(Args& a, const std::string& v) {
  return number("--uncertainty", v, 1, kMaxUncertaintySamples, a.run.uncertainty);
}
std::string read_seed(Args& a, const std::string& v) { return number("--seed", v, 0, kMaxSeed, a.run.seed); }
std::string read_shard(Args& a, const std::string& v) {
  const auto slash = v.find('/');
  std::optional<unsigned long long> k, n;
  if (slash != std::string::npos) {
    k = whole_number(v.substr(0, slash), 1, 1'000'000);
    n = whole_number(v.substr(slash + 1), 1, 1'000'000);
  }
  if (!k || !n || *k > *n) return "--shard expects K/N with 1 <= K <= N <= 1000000 (for example 3/8), got '" + v + "'";
  a.run.shard_k = static_cast<std::size_t>(*k);
  a.run.shard_n = static_cast<std::size_t>(*n);
  return "";
}
std::string read_where(Args& a, const std::string& v) {
  a.where = v;
  return "";
}
std::string read_x(Args& a, const std::string& v) { return nonempty("--x", v, "a column name", a.plot_x); }
std::string read_y(Args& a, const std::string& v) {
  // --y a,b,c (and repeatable): column names, none empty.
  std::vector<std::string> names;
  for (std::size_t start = 0;;) {
    const auto comma = v.find(',', start);
    names.push_back(v.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (names.back().empty()) return "--y expects column names separated by commas, got '" + v + "'";
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  a.plot_y.insert(a.plot_y.end(), names.begin(), names.end());
  return "";
}
std::string read_sensitivity(Args& a, const std::string& v) {
  std::string name;
  if (auto err = nonempty("--sensitivity", v, "a result name", name); !err.empty()) return err;
  a.sensitivity.push_back(name);
  return "";
}
std::string read_top(Args& a, const std::string& v) { return number("--top", v, 1, 100000, a.top); }
std::string read_stdlib(Args& a, const std::string& v) { return nonempty("--stdlib", v, "a directory", a.stdlib); }
std::string read_switch(Args&, const std::string&) { return ""; }  // counted in Args::given

// A command's flags: those with rules of their own, then the plain ones.
std::vector<FlagUse> with(std::vector<FlagUse> own, std::initializer_list<Flag> plain) {
  for (Flag f : plain) own.push_back({f});
  return own;
}

}  // namespace

const std::vector<FlagSpec>& flag_table() {
  static const std::vector<FlagSpec> t = {
      {Flag::format, "--format", "FORMAT", "output format (each command's: mls help COMMAND)", "json", "yaml",
       read_format},
      {Flag::use, "--use", "NAME=CHOICE", "choose a convention (repeatable)", "mtbf_model=gpu_only", "mtbf_model",
       read_use},
      {Flag::set, "--set", "NAME=VALUE", "override a parameter, with units: --set checkpoint_time=141.2s", "gpus=512",
       "=5", read_set},
      {Flag::preset, "--preset", "NAME", "choose a preset (default: mls)", "mls", "", read_preset},
      {Flag::assumptions, "--assumptions", "none|changed|all",
       "text: the assumptions listed under each value and table\n (default changed: the ones a `set`, `use`, "
       "--use, --set or a\n non-default preset chose; the others are counted in one line)",
       "all", "some", read_assumptions},
      {Flag::table, "--table", "NAME",
       "with --format csv: print only table NAME (a sweep's or search's\n name, or `show` for the shown values), as "
       "plain CSV",
       "show", "", read_table},
      {Flag::out, "--out", "FILE", "write the output to FILE (atomically) instead of stdout", "out.txt", "", read_out},
      {Flag::max_output, "--max-output", "BYTES", "largest output allowed (default 4294967296)", "1000", "1e9",
       read_max_output},
      {Flag::threads, "--threads", "N", "worker threads for sweeps (default: all cores)", "1", "0", read_threads},
      {Flag::max_points, "--max-points", "N", "largest sweep or search allowed (default 1000000)", "10", "-5",
       read_max_points},
      {Flag::exact_limit, "--exact-limit", "N", "sweeps above N points run in binary64 (default 4096)", "0", "-1",
       read_exact_limit},
      {Flag::uncertainty, "--uncertainty", "N",
       "N seeded Monte Carlo samples of the uncertain literals\n (`x +- 30 %`, normal(m, s), ...): P50 [P10 – P90] "
       "of each shown\n value and its drivers (1 to 100000; docs/uncertainty.md)",
       "10", "0", read_uncertainty},
      {Flag::seed, "--seed", "S", "the Monte Carlo generator's seed (default 1)", "7", "x", read_seed},
      {Flag::shard, "--shard", "K/N",
       "evaluate only shard K of N of every sweep and search, and\n write a part for `mls merge` (needs --format "
       "json)",
       "1/2", "3/2", read_shard},
      {Flag::where, "--where", "EXPR", "keep the catalogue entries `it` for which EXPR holds", "true", "", read_where},
      {Flag::x, "--x", "COL", "the column along the x axis (default: the first swept one)", "gpus", "", read_x},
      {Flag::y, "--y", "COL,...", "the columns drawn (repeatable; default: every numeric one)", "cost", "a,,b", read_y},
      {Flag::sensitivity, "--sensitivity", "NAME", "add that result's tornado chart (repeatable)", "cost", "",
       read_sensitivity},
      {Flag::top, "--top", "K", "list (draw) the K largest entries only", "3", "0", read_top},
      {Flag::diff, "--diff", nullptr, "compare FILE as written with FILE under --use/--set", "", "", read_switch},
      {Flag::cross_validate, "--cross-validate", nullptr,
       "add the errors by source and of refits without whole domains\n (out of sample; docs/validation.md)", "", "",
       read_switch},
      {Flag::fit, "--fit", nullptr, "add the calibration fit iterated to its optimum (docs/validation.md)", "", "",
       read_switch},
      {Flag::stdio, "--stdio", nullptr, "serve on stdin/stdout (the only transport; editors pass it)", "", "",
       read_switch},
      {Flag::stdlib, "--stdlib", "DIR", "where the prelude's files are, for definitions in them", "stdlib", "",
       read_stdlib},
      {Flag::help, "--help", nullptr, "this text (mls help COMMAND: one command's)", "", "", read_switch},
      {Flag::version, "--version", nullptr, "the version", "", "", read_switch},
  };
  return t;
}

const std::vector<Command>& command_table() {
  // clang-format off
  static const std::vector<Command> t = {
      {"run", {"run FILE"}, "evaluate a scenario and print every result with its assumptions",
       with({{Flag::preset, 1},
             {Flag::table, 0, "", Flag::none, Flag::none, "selects one table of CSV output", {"csv"}},
             {Flag::seed, 0, "", Flag::uncertainty},
             {Flag::uncertainty, 0, "", Flag::none, Flag::shard, "runs whole"},
             {Flag::uncertainty, 0, "", Flag::none, Flag::none, "prints its percentiles in text and json", {"text", "json"}},
             {Flag::shard, 0, "", Flag::none, Flag::none, "writes a part for `mls merge`", {"json"}}},
            {Flag::use, Flag::set, Flag::assumptions, Flag::out, Flag::max_output, Flag::threads, Flag::max_points,
             Flag::exact_limit}),
       {"text", "json", "csv", "md"}, "--format must be {formats}, got '{got}'", false, true, {}, "", cmd_run},
      {"check", {"check FILE"}, "parse and dimension-check a scenario without evaluating it",
       with({{Flag::preset, 1}}, {Flag::use, Flag::set}), {}, "", false, false, {}, "", cmd_check},
      {"diff", {"diff FILE --use NAME=CHOICE [--set NAME=VALUE]...   (left: as written)",
                "diff FILE --preset A --preset B", "diff A.mls B.mls"},
       "evaluate under two sets of choices (or two files) and show what moved and why\n (--format {formats}; "
       "docs/diff.md)",
       with({{Flag::preset, 2}}, {Flag::use, Flag::set, Flag::out, Flag::threads, Flag::max_points, Flag::exact_limit}),
       {"text", "json"}, "diff --format must be {formats}, got '{got}'", true, true, {}, "", cmd_diff},
      {"explain", {"explain FILE NAME   (NAME: a shown label, TABLE.COLUMN[KEY=VALUE] or a global)"},
       "the formula chain behind one result",
       with({{Flag::preset, 1}}, {Flag::use, Flag::set, Flag::out, Flag::threads, Flag::max_points, Flag::exact_limit}),
       {"text"}, "explain prints {formats} only, got --format {got}", true, true, {}, "", cmd_explain},
      {"sensitivity", {"sensitivity FILE NAME [--top K] [--format {formats}]   (NAME: a shown label, "
                       "TABLE.COLUMN[KEY=VALUE] or a global, as for `mls explain`)"},
       "how much each assumption moves one result: elasticity and the\n change for -10 % / +10 %, each convention "
       "switched; largest\n first (docs/sensitivity.md)",
       with({{Flag::preset, 1}}, {Flag::top, Flag::use, Flag::set, Flag::out, Flag::threads, Flag::max_points,
                                  Flag::exact_limit}),
       {"text", "json"}, "sensitivity prints {formats}, got --format {got}", true, true, {}, "", cmd_sensitivity},
      {"report", {"report FILE [--sensitivity NAME]... [--top K]", "report A.mls B.mls",
                  "report FILE --preset A --preset B", "report FILE --diff --use NAME=CHOICE [--set NAME=VALUE]..."},
       "one self-contained HTML page: results with their assumptions, sortable\n tables, an SVG chart per sweep "
       "(--out report.html; docs/report.md);\n --sensitivity NAME adds that result's tornado chart (--top K bars, "
       "default 20);\n with two files, two presets or --diff: the page of a comparison",
       with({{Flag::preset, 2}, {Flag::top, 0, "--sensitivity"}},
            {Flag::use, Flag::set, Flag::diff, Flag::sensitivity, Flag::out, Flag::max_output, Flag::threads,
             Flag::max_points, Flag::exact_limit}),
       {"html"}, "report writes {formats}, got --format '{got}'", true, true, {}, "", cmd_report},
      {"plot", {"plot FILE TABLE [--x COL] [--y COL,...] [--out plot.svg|plot.png]"},
       "one chart of a table: braille text, or SVG (--format svg, --out X.svg), or PNG (--out X.png)",
       with({{Flag::preset, 1}}, {Flag::x, Flag::y, Flag::use, Flag::set, Flag::out, Flag::max_output, Flag::threads,
                                  Flag::max_points, Flag::exact_limit}),
       {"text", "svg", "png"}, "plot --format must be {formats}, got '{got}'", false, true, {}, "", cmd_plot},
      {"merge", {"merge PART..."},
       "the parts of a sharded run (run --shard) merged: prints exactly what\n one `mls run FILE` prints",
       with({{Flag::table, 0, "", Flag::none, Flag::none, "selects one table of CSV output", {"csv"}}},
            {Flag::assumptions, Flag::out, Flag::max_output, Flag::threads}),
       {"text", "json", "csv", "md"}, "--format must be {formats}, got '{got}'", false, true,
       {Flag::preset, Flag::use, Flag::set, Flag::shard}, "merge takes its preset, --use and --set from the parts",
       cmd_merge},
      {"validate", {"validate [--cross-validate] [--fit]"},
       "every published measurement of the validation set against its prediction, the\n out-of-sample "
       "(leave-one-source-out) errors and the band of each domain\n (exit 1 when a case is outside its band); "
       "--cross-validate adds the errors\n by source and of refits without whole domains, --fit the calibration fit "
       "iterated\n to its optimum (docs/validation.md)",
       with({{Flag::preset, 1}, {Flag::cross_validate, 1}, {Flag::fit, 1}},
            {Flag::use, Flag::set, Flag::out, Flag::threads, Flag::max_points, Flag::exact_limit}),
       {"text", "json", "md"}, "--format must be {formats}, got '{got}'", false, true, {}, "", cmd_validate},
      {"list", {"list [KIND]"},
       "the catalogue: accelerators, systems, fabrics, links, models or grids, one row per\n entry with its source "
       "(--where EXPR of `it`)",
       with({{Flag::preset, 1}}, {Flag::where, Flag::use, Flag::set, Flag::out, Flag::threads, Flag::max_points,
                                  Flag::exact_limit}),
       {"text", "json", "csv", "md"}, "--format must be {formats}, got '{got}'", false, false, {}, "", cmd_list},
      {"conventions", {"conventions"}, "list every convention, its choices and its default", {{Flag::out}}, {"text"},
       "--format must be {formats}, got '{got}'", false, false, {}, "", cmd_conventions},
      {"presets", {"presets"}, "list every preset and its choices", {{Flag::out}}, {"text"},
       "--format must be {formats}, got '{got}'", false, false, {}, "", cmd_presets},
      {"repl", {"repl [FILE...]"}, "interactive exploration",
       with({{Flag::preset, 1}}, {Flag::use, Flag::set, Flag::threads, Flag::max_points, Flag::exact_limit}),
       {"text"}, "repl prints to the terminal; --format and --out do not apply", false, false, {Flag::out},
       "repl prints to the terminal; --format and --out do not apply", cmd_repl},
      {"lsp", {"lsp [--stdio] [--stdlib DIR]"},
       "a Language Server Protocol server on stdin/stdout for editors (docs/editors.md;\n exit 0 after shutdown "
       "and exit, 1 without shutdown)",
       {{Flag::stdio}, {Flag::stdlib, 1}}, {}, "", false, false, {}, "", cmd_lsp},
      {"help", {"help [COMMAND]"}, "this text, or one command's usage and flags ({formats})", {}, {"text", "json"},
       "--format must be {formats}, got '{got}'", false, false, {}, "", cmd_help},
  };
  // clang-format on
  return t;
}

const FlagSpec& spec(Flag f) { return flag_table()[static_cast<std::size_t>(f)]; }

const Command* find_command(const std::string& name) {
  for (const Command& c : command_table())
    if (name == c.name) return &c;
  return nullptr;
}

}  // namespace mls
