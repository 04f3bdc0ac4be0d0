// main.cpp — the `mls` command line: run, check, diff, explain, conventions, presets, repl.
// Exit codes (documented in README.md): 0 ok, 1 assertion failed / differences found,
// 64 usage, 65 input error, 66 input missing, 70 internal error, 73 cannot write output.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "atomic_file.hpp"
#include "commands.hpp"
#include "interpreter/results/format.hpp"
#include "interpreter/results/row_text.hpp"
#include "interpreter/tooling/controls.hpp"
#include "lsp.hpp"
#include "memory_limit.hpp"

namespace mls {
namespace {

const char* kUsage = R"(usage: mls COMMAND [ARGS]

commands:
  run FILE        evaluate a scenario and print every result with its assumptions
  check FILE      parse and dimension-check a scenario without evaluating it
  diff FILE --use NAME=CHOICE ...   evaluate under two sets of choices and show what moved and why
  diff FILE --preset A --preset B   compare two presets
  diff A.mls B.mls                  compare two scenario files
  explain FILE NAME                 the formula chain behind one result
  sensitivity FILE NAME             how much each assumption moves one result: elasticity and the
                                    change for -10 % / +10 %, each convention switched; largest
                                    first (--top K, --format text|json; docs/sensitivity.md)
  report FILE     one self-contained HTML page: results with their assumptions, sortable
                  tables, an SVG chart per sweep (--out report.html; docs/report.md);
                  --sensitivity NAME adds that result's tornado chart (--top K bars, default 20)
  report A.mls B.mls, report FILE --preset A --preset B, report FILE --diff --use NAME=CHOICE
                  the page of a comparison: what differs, what moved and why, both sides charted
  plot FILE TABLE one chart of a table: braille text, or SVG (--format svg, --out X.svg), or PNG (--out X.png)
                  (--x COL, --y COL,COL...)
  merge PART...    the parts of a sharded run (run --shard) merged: prints exactly what
                  one `mls run FILE` prints (--format text|json|csv|md)
  validate        every published measurement of the validation set against its prediction
                  (--format text|json|md; exit 1 when a case is outside its band)
  list [KIND]     the catalogue: accelerators, systems, fabrics, links, models or grids, one row per
                  entry with its source (--where EXPR of `it`, --format text|json|csv|md)
  conventions     list every convention, its choices and its default
  presets         list every preset and its choices
  repl [FILE...]  interactive exploration
  lsp             a Language Server Protocol server on stdin/stdout for editors (docs/editors.md;
                  exit 0 after shutdown and exit, 1 without shutdown)

options:
  --format text|json|csv|md   output format (run, diff: text|json)
  --use NAME=CHOICE           choose a convention (repeatable)
  --preset NAME               choose a preset (default: mls)
  --set NAME=VALUE            override a parameter, with units: --set checkpoint_time=141.2s
  --assumptions none|changed|all   text: the assumptions listed under each value and table
                              (default changed: the ones a `set`, `use`, --use, --set or a
                              non-default preset chose; the others are counted in one line)
  --table NAME                run, merge with --format csv: print only table NAME (a sweep's or
                              search's name, or `show` for the shown values), as plain CSV
  --out FILE                  write the output to FILE (atomically) instead of stdout
  --threads N                 worker threads for sweeps (default: all cores)
  --max-points N              largest sweep or search allowed (default 1000000)
  --max-output BYTES          largest output allowed (default 4294967296)
  --exact-limit N             sweeps above N points run in binary64 (default 4096)
  --uncertainty N             run: N seeded Monte Carlo samples of the uncertain literals
                              (`x +- 30 %`, normal(m, s), ...): P50 [P10 – P90] of each shown
                              value and its drivers (1 to 100000; docs/uncertainty.md)
  --seed S                    run --uncertainty: the generator's seed (default 1)
  --shard K/N                 run: evaluate only shard K of N of every sweep and search, and
                              write a part for `mls merge` (needs --format json)
  --help, --version

exit codes: 0 ok, 1 assertion failed (run) or differences found (diff), 64 usage,
            65 input error, 66 input missing, 70 internal error, 73 cannot write output
)";

}  // namespace

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "mls: %s\n(run `mls --help` for usage)\n", msg.c_str());
  return info(ErrorKind::usage).exit_code;
}

namespace {

// Largest values the number flags take: beyond them a value is a typo, not a wish.
constexpr unsigned long long kMaxOutputCap = 1ull << 50;  // 1 PiB
constexpr unsigned long long kMaxPointsCap = 1'000'000'000'000ull;

// A number flag's value: decimal digits only (no sign, space or exponent; `-1` is not a
// huge number), no overflow, within [lo, hi].
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

}  // namespace

int parse_args(int argc, char** argv, Args& a, std::string& error) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const char* flag) -> std::optional<std::string> {
      const std::string f = flag;
      if (arg.rfind(f + "=", 0) == 0) return arg.substr(f.size() + 1);
      if (arg == f) {
        if (i + 1 >= argc) {
          error = f + " needs a value";
          return std::nullopt;
        }
        return std::string(argv[++i]);
      }
      return std::nullopt;
    };
    auto pair = [&](const std::string& v, std::vector<std::pair<std::string, std::string>>& out, const char* flag) {
      const auto eq = v.find('=');
      if (eq == std::string::npos || eq == 0) {
        error = std::string(flag) + " expects NAME=VALUE, got '" + v + "'";
        return false;
      }
      out.emplace_back(v.substr(0, eq), v.substr(eq + 1));
      return true;
    };
    if (arg == "--help" || arg == "-h") {
      a.help = true;
    } else if (arg == "--version") {
      a.version = true;
    } else if (arg == "--diff") {
      a.diff = true;
    } else if (arg.rfind("--format", 0) == 0) {
      auto v = value("--format");
      if (!v) return 64;
      a.format = *v;
    } else if (arg.rfind("--use", 0) == 0) {
      auto v = value("--use");
      if (!v || !pair(*v, a.uses, "--use")) return 64;
    } else if (arg.rfind("--set", 0) == 0) {
      auto v = value("--set");
      if (!v || !pair(*v, a.sets, "--set")) return 64;
    } else if (arg.rfind("--preset", 0) == 0) {
      auto v = value("--preset");
      if (!v) return 64;
      a.presets.push_back(*v);
    } else if (arg.rfind("--assumptions", 0) == 0) {
      auto v = value("--assumptions");
      if (!v) return 64;
      const auto m = parse_assumptions(*v);
      if (!m) {
        error = "--assumptions must be none, changed or all, got '" + *v + "'";
        return 64;
      }
      a.assumptions = *m;
    } else if (arg == "--sensitivity" || arg.rfind("--sensitivity=", 0) == 0) {
      auto v = value("--sensitivity");
      if (!v) return 64;
      if (v->empty()) {
        error = "--sensitivity expects a result name, got ''";
        return 64;
      }
      a.sensitivity.push_back(*v);
    } else if (arg == "--top" || arg.rfind("--top=", 0) == 0) {
      auto v = value("--top");
      if (!v) return 64;
      const auto n = whole_number(*v, 1, 100000);
      if (!n) {
        error = "--top expects a whole number from 1 to 100000, got '" + *v + "'";
        return 64;
      }
      a.top = static_cast<std::size_t>(*n);
    } else if (arg.rfind("--table", 0) == 0) {
      auto v = value("--table");
      if (!v) return 64;
      a.table = *v;
    } else if (arg.rfind("--where", 0) == 0) {
      auto v = value("--where");
      if (!v) return 64;
      a.where = *v;
    } else if (arg == "--x" || arg.rfind("--x=", 0) == 0 || arg == "--y" || arg.rfind("--y=", 0) == 0) {
      const bool x = arg[2] == 'x';
      auto v = value(x ? "--x" : "--y");
      if (!v) return 64;
      if (x) {
        a.plot_x = *v;
      } else {
        // --y a,b,c (and repeatable): column names, none empty.
        std::size_t start = 0;
        for (;;) {
          const auto comma = v->find(',', start);
          const std::string name = v->substr(start, comma == std::string::npos ? std::string::npos : comma - start);
          if (name.empty()) {
            error = "--y expects column names separated by commas, got '" + *v + "'";
            return 64;
          }
          a.plot_y.push_back(name);
          if (comma == std::string::npos) break;
          start = comma + 1;
        }
      }
      if (x && v->empty()) {
        error = "--x expects a column name, got ''";
        return 64;
      }
    } else if (arg.rfind("--out", 0) == 0) {
      auto v = value("--out");
      if (!v) return 64;
      if (v->empty()) {
        // An empty name is a mistake (an unset shell variable), not a request for stdout.
        error = "--out expects a file name, got ''";
        return 64;
      }
      a.out = *v;
    } else if (arg.rfind("--max-output", 0) == 0) {
      auto v = value("--max-output");
      if (!v) return 64;
      const auto n = whole_number(*v, 1, kMaxOutputCap);
      if (!n) {
        error =
            "--max-output expects a number of bytes from 1 to " + std::to_string(kMaxOutputCap) + ", got '" + *v + "'";
        return 64;
      }
      a.max_output = static_cast<std::size_t>(*n);
    } else if (arg.rfind("--exact-limit", 0) == 0) {
      // Sweeps with more points than this run in binary64 (default 4096); 0 forces the
      // compiled fast path everywhere, which the tests use to compare the two engines.
      auto v = value("--exact-limit");
      if (!v) return 64;
      const auto n = whole_number(*v, 0, kMaxPointsCap);
      if (!n) {
        error =
            "--exact-limit expects a whole number from 0 to " + std::to_string(kMaxPointsCap) + ", got '" + *v + "'";
        return 64;
      }
      a.run.exact_limit = static_cast<std::size_t>(*n);
    } else if (arg.rfind("--uncertainty", 0) == 0 || arg.rfind("--seed", 0) == 0) {
      // Monte Carlo over the uncertain literals (docs/uncertainty.md); the seed fixes the bytes.
      const bool samples = arg.rfind("--uncertainty", 0) == 0;
      const char* flag = samples ? "--uncertainty" : "--seed";
      auto v = value(flag);
      if (!v) return 64;
      const unsigned long long hi = samples ? kMaxUncertaintySamples : 18446744073709551615ULL;
      const auto n = whole_number(*v, samples ? 1 : 0, hi);
      if (!n) {
        error = std::string(flag) + " expects a whole number from " + (samples ? "1" : "0") + " to " +
                std::to_string(hi) + ", got '" + *v + "'";
        return 64;
      }
      if (samples)
        a.run.uncertainty = static_cast<std::size_t>(*n);
      else {
        a.run.seed = *n;
        a.seed_given = true;
      }
    } else if (arg.rfind("--shard", 0) == 0) {
      auto v = value("--shard");
      if (!v) return 64;
      const auto slash = v->find('/');
      std::optional<unsigned long long> k, n;
      if (slash != std::string::npos) {
        k = whole_number(v->substr(0, slash), 1, 1'000'000);
        n = whole_number(v->substr(slash + 1), 1, 1'000'000);
      }
      if (!k || !n || *k > *n) {
        error = "--shard expects K/N with 1 <= K <= N <= 1000000 (for example 3/8), got '" + *v + "'";
        return 64;
      }
      a.run.shard_k = static_cast<std::size_t>(*k);
      a.run.shard_n = static_cast<std::size_t>(*n);
    } else if (arg.rfind("--threads", 0) == 0 || arg.rfind("--max-points", 0) == 0) {
      const bool threads = arg.rfind("--threads", 0) == 0;
      const char* flag = threads ? "--threads" : "--max-points";
      auto v = value(flag);
      if (!v) return 64;
      const unsigned long long hi = threads ? 1024 : kMaxPointsCap;
      const auto n = whole_number(*v, 1, hi);
      if (!n) {
        error = std::string(flag) + " expects a whole number from 1 to " + std::to_string(hi) + ", got '" + *v + "'";
        return 64;
      }
      if (threads)
        a.run.threads = static_cast<unsigned>(*n);
      else
        a.run.max_points = static_cast<std::size_t>(*n);
    } else if (arg.size() > 1 && arg[0] == '-' && arg != "-") {
      error = "unknown option '" + arg + "'";
      return 64;
    } else {
      a.positional.push_back(arg);
    }
  }
  return 0;
}

int io_error(const std::string& message) {
  const ErrorKindInfo& k = info(ErrorKind::io_write);
  std::fprintf(stderr, "mls: error[%s]: %s\n", k.code, message.c_str());
  return k.exit_code;
}

namespace {
class AssertWatch : public RunSink, public RowTextSink {
 public:
  // Errors of a run that keeps going are added to `errors_to` as they arrive, so they are
  // reported before the one that may stop the run later, in the order they happened.
  AssertWatch(RunSink& inner, bool& failed, Scenario* errors_to = nullptr)
      : in_(inner), failed_(failed), errors_to_(errors_to) {}
  void begin(const RunResult& h) override { in_.begin(h); }
  void result(const Shown& s) override { in_.result(s); }
  void table_begin(const Table& t) override { in_.table_begin(t); }
  void table_row(const Table& t, const Row& r) override { in_.table_row(t, r); }
  // Rows formatted on the sweep's threads, when the formatter inside can (row_text.hpp).
  std::shared_ptr<const RowFormat> row_format(const Table& t) override {
    return in_rows_ ? in_rows_->row_format(t) : nullptr;
  }
  void table_row_text(const Table& t, std::string_view text) override { in_rows_->table_row_text(t, text); }
  void table_end(const Table& t) override {
    if (t.search && t.row_count == 0) no_feasible_ = true;
    in_.table_end(t);
  }
  [[nodiscard]] bool no_feasible() const { return no_feasible_; }
  void assertion(const AssertOutcome& a) override {
    if (!a.ok) failed_ = true;
    in_.assertion(a);
  }
  // `mls merge` runs without keep_going, so no error reaches it there.
  void error(const Diagnostic& d) override {
    ++errors_;
    if (errors_to_) errors_to_->add(d);
    in_.error(d);
  }
  [[nodiscard]] bool had_errors() const { return errors_ > 0; }
  void end() override { in_.end(); }

 private:
  RunSink& in_;
  RowTextSink* in_rows_ = dynamic_cast<RowTextSink*>(&in_);  // null: the inner sink formats every row
  bool& failed_;
  Scenario* errors_to_;
  std::size_t errors_ = 0;
  bool no_feasible_ = false;
};
}  // namespace

std::unique_ptr<RunSink> watch_asserts(RunSink& inner, bool& failed) {
  return std::make_unique<AssertWatch>(inner, failed);
}

int emit(const Args& a, const std::string& text) {
  if (!a.out.empty()) {
    std::string err;
    if (!write_atomically(a.out, text, err)) {
      const ErrorKindInfo& k = info(ErrorKind::io_write);
      std::fprintf(stderr, "mls: error[%s]: %s\n", k.code, err.c_str());
      return k.exit_code;
    }
    return 0;
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  return 0;
}

int refuse_output_over_input(const Args& a, const Sources& src) {
  std::vector<std::string> inputs;
  for (std::size_t i = 0; i < src.size(); ++i) {
    const SourceFile& f = src.get(static_cast<FileId>(i));
    if (!f.is_stdlib && !f.name.empty() && f.name[0] != '<') inputs.push_back(f.name);
  }
  const std::string msg = same_file_as_input(a.out, inputs);
  return msg.empty() ? 0 : usage_error(msg);
}

namespace {

int report_diagnostics(const Sources& src, const Diagnostics& diags) {
  const std::string text = render_all(src, diags);
  std::fwrite(text.data(), 1, text.size(), stderr);
  const int code = diags.exit_code();
  return code == 0 ? 70 : code;
}

}  // namespace

int report(const Scenario& s) { return report_diagnostics(s.sources(), s.diagnostics()); }

Selection selection_of(const Args& a) {
  Selection sel;
  if (!a.presets.empty()) sel.preset = a.presets.front();
  sel.uses = a.uses;
  sel.sets = a.sets;
  return sel;
}

int check_table(const Args& a, const Scenario& s) {
  if (a.table.empty()) return 0;
  if (a.format != "csv") return usage_error("--table selects one table of CSV output: it needs --format csv");
  const auto names = s.table_names();
  if (std::find(names.begin(), names.end(), a.table) != names.end()) return 0;
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  const std::string near = closest(a.table, names);
  return usage_error("--table " + a.table + ": no such table" +
                     (near.empty() ? "" : " (did you mean '" + near + "'?)") + "; the tables are " + list);
}

FormatOptions format_options(const Args& a) {
  FormatOptions f;
  f.table = a.table;
  f.assumptions = a.assumptions;
  return f;
}

// `mls run`: a search found no point that satisfies its constraints (every point infeasible or
// filtered out). Not an error of the input, and not a failed assert: scripts can tell them apart.
constexpr int kExitNoFeasiblePoint = 2;

int cmd_run(const Args& a) {
  if (a.positional.size() != 2) return usage_error("run expects one FILE");
  if (a.format != "text" && a.format != "json" && a.format != "csv" && a.format != "md")
    return usage_error("--format must be text, json, csv or md, got '" + a.format + "'");
  if (a.presets.size() > 1) return usage_error("run takes one --preset (diff takes two)");
  if (a.positional[1].empty()) return usage_error("run expects a FILE");
  if (a.run.shard_n && a.format != "json")
    return usage_error("--shard writes a part for `mls merge`: it needs --format json");
  if (a.run.shard_n && a.run.uncertainty)
    return usage_error("--uncertainty runs whole: it cannot be combined with --shard");
  if (a.run.uncertainty && (a.format == "csv" || a.format == "md"))
    return usage_error("--uncertainty prints its percentiles in text and json: use --format text or json");
  Scenario s;
  const std::string& file = a.positional[1];
  if (!s.prepare(file)) return report(s);
  if (const int rc = refuse_output_over_input(a, s.sources())) return rc;
  if (const int rc = check_table(a, s)) return rc;
  if (!s.configure(selection_of(a))) return report(s);
  // Rows stream straight to the output; --out goes to a temporary file renamed at the end.
  RunOptions opt = a.run;
  opt.progress = ::isatty(2) != 0;
  AtomicFile out(a.out);
  if (!out.ok()) return io_error(out.error());
  bool failed_assert = false;
  // A shown value or assert that fails at run time does not discard the others: they are
  // printed, then the errors (exit code of the first); so does a failing solve, sweep or search.
  opt.keep_going = true;
  bool ok = false, had_errors = false, no_feasible = false;
  try {
    Writer w(out.file(), a.max_output);
    ShardWriter* shard = nullptr;
    auto sink = a.run.shard_n ? make_part_writer(s.scope(), w, a, file, shard)
                              : make_formatter(a.format, s.scope(), w, file, format_options(a));
    opt.shard_out = shard;
    AssertWatch watch(*sink, failed_assert, &s);
    ok = s.run(opt, watch);
    if (ok) w.flush();
    had_errors = watch.had_errors();
    no_feasible = watch.no_feasible();
  } catch (DiagnosticError& e) {  // the output over --max-output where the run is not (a part's header)
    s.add(std::move(e.diag));
    ok = false;
  }
  if (!ok) {
    out.abandon();
    return report(s);
  }
  if (!out.commit()) return io_error(out.error());
  if (had_errors) return report(s);
  // A failed assert (1) says more than an empty search (2): the model itself is questioned.
  if (failed_assert) return info(ErrorKind::assert_failed).exit_code;
  return no_feasible ? kExitNoFeasiblePoint : 0;
}

int cmd_check(const Args& a) {
  if (a.positional.size() != 2) return usage_error("check expects one FILE");
  Scenario s;
  if (!s.prepare(a.positional[1])) return report(s);
  // Conventions and overrides are validated too (an unknown --use is an input error).
  if (!s.configure(selection_of(a))) return report(s);
  std::printf("%s: ok\n", a.positional[1].c_str());
  return 0;
}

int dispatch(int argc, char** argv) {
  // `mls lsp` takes options of its own (--stdio, which editors pass, and --stdlib DIR).
  if (argc >= 2 && std::string_view(argv[1]) == "lsp") return cmd_lsp(argc, argv);
  Args a;
  std::string error;
  if (const int rc = parse_args(argc, argv, a, error)) return usage_error(error);
  if (a.version) {
    std::printf("mls %s\n", kVersion);
    return 0;
  }
  if (a.help || a.positional.empty()) {
    std::fputs(kUsage, a.help ? stdout : stderr);
    return a.help ? 0 : 64;
  }
  const std::string& cmd = a.positional[0];
  if (a.run.shard_n && cmd != "run") return usage_error("--shard applies to run only");
  if (!a.sensitivity.empty() && cmd != "report") return usage_error("--sensitivity applies to report only");
  if (a.top != SIZE_MAX && cmd != "sensitivity" && cmd != "report")
    return usage_error("--top applies to sensitivity and report --sensitivity only");
  if ((a.run.uncertainty || a.seed_given) && cmd != "run")
    return usage_error("--uncertainty and --seed apply to run only");
  if (a.seed_given && !a.run.uncertainty) return usage_error("--seed needs --uncertainty N");
  if (a.diff && cmd != "report") return usage_error("--diff applies to report only (mls diff compares on its own)");
  if (cmd == "run" || cmd == "diff" || cmd == "explain" || cmd == "validate" || cmd == "merge" || cmd == "report" ||
      cmd == "plot" || cmd == "sensitivity") {
    // Ctrl-C stops the evaluation as an error (run.interrupted, exit 130): `--out` files are
    // left as they were and the progress line is cleared.
    const InterruptScope ctrl_c;
    return cmd == "run"           ? cmd_run(a)
           : cmd == "merge"       ? cmd_merge(a)
           : cmd == "report"      ? cmd_report(a)
           : cmd == "plot"        ? cmd_plot(a)
           : cmd == "diff"        ? cmd_diff(a)
           : cmd == "validate"    ? cmd_validate(a)
           : cmd == "sensitivity" ? cmd_sensitivity(a)
                                  : cmd_explain(a);
  }
  if (cmd == "check") return cmd_check(a);
  if (cmd == "conventions") return cmd_conventions(a);
  if (cmd == "presets") return cmd_presets(a);
  if (cmd == "list") return cmd_list(a);
  if (cmd == "repl") return cmd_repl(a);
  return usage_error("unknown command '" + cmd + "'");
}

}  // namespace mls

int main(int argc, char** argv) {
  try {
    if (const std::string w = mls::memory_limit_warning(); !w.empty())
      std::fprintf(stderr, "mls: warning: %s\n", w.c_str());
    return mls::dispatch(argc, argv);
  } catch (const std::bad_alloc&) {
    // A limit of the machine or of mls's memory (cli/memory_limit.hpp), reached by the input (a
    // list of millions of literals, a huge sweep table), not a bug: said as such, with the
    // input-error exit code. What was held is released by the unwinding, so printing needs no
    // allocation beyond stdio's.
    const mls::ErrorKindInfo& k = mls::info(mls::ErrorKind::limit_memory);
    if (mls::memory_limit_reached())
      std::fprintf(stderr,
                   "mls: error[%s]: out of memory: the input needs more than the %s mls may use\n"
                   "  = help: split large literal lists or tables over several files, or narrow the sweep\n"
                   "  = help: %s=BYTES sets the limit (K, M, G suffixes; 'off': the machine's)\n",
                   k.code, mls::memory_limit_text().c_str(), mls::kMemoryLimitVariable);
    else
      std::fprintf(stderr,
                   "mls: error[%s]: out of memory: the input needs more memory than this machine allows\n"
                   "  = help: split large literal lists or tables over several files, or narrow the sweep\n",
                   k.code);
    return k.exit_code;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mls: error[internal]: %s\nThis is a bug in mls; please report it with the input.\n",
                 e.what());
    return 70;
  } catch (...) {
    std::fprintf(stderr, "mls: error[internal]: unknown exception\n");
    return 70;
  }
}
