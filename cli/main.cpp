// main.cpp — the `mls` command line: `run` and `check`, what every command shares (output, errors,
// the selection), and main(); the table of commands is in command_table.cpp, its reading in args.cpp.
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
#include "memory_limit.hpp"

namespace mls {

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

int emit(const Args& a, const std::string& raw, bool binary) {
  // JSON and CSV escape their strings themselves; what else a command prints (explain's and
  // diff's text, a report page) may hold a string of the scenario with a terminal escape in it.
  const std::string text = binary ? raw : escape_controls(raw);
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

int refuse_output_over_input(const Args& a, const Scenario& s, std::vector<std::string> more) {
  if (a.out.empty()) return 0;
  const Sources& src = s.sources();
  std::vector<std::string> inputs = s.inputs();
  for (std::size_t i = 0; i < src.size(); ++i) {
    const SourceFile& f = src.get(static_cast<FileId>(i));
    if (!f.is_stdlib && !f.name.empty() && f.name[0] != '<') inputs.push_back(f.name);
  }
  inputs.insert(inputs.end(), more.begin(), more.end());
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
  if (a.table.empty()) return 0;  // --format csv is the command table's rule
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
  if (a.positional[1].empty()) return usage_error("run expects a FILE");
  Scenario s(core_options());
  const std::string& file = a.positional[1];
  if (!s.prepare(file)) return report(s);
  if (const int rc = refuse_output_over_input(a, s)) return rc;
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
  // Files read while running (a serving_trace) are inputs too: checked again before the rename.
  if (const int rc = refuse_output_over_input(a, s)) return rc;
  if (!out.commit()) return io_error(out.error());
  if (had_errors) return report(s);
  // A failed assert (1) says more than an empty search (2): the model itself is questioned.
  if (failed_assert) return info(ErrorKind::assert_failed).exit_code;
  return no_feasible ? kExitNoFeasiblePoint : 0;
}

int cmd_check(const Args& a) {
  if (a.positional.size() != 2) return usage_error("check expects one FILE");
  Scenario s(core_options());
  if (!s.prepare(a.positional[1])) return report(s);
  // Conventions and overrides are validated too (an unknown --use is an input error).
  if (!s.configure(selection_of(a))) return report(s);
  std::printf("%s: ok\n", a.positional[1].c_str());
  return 0;
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
