// core.hpp — the session core (issue #37): the one way in to the phases. Load the prelude, add
// inputs (a scenario file, source text, one REPL input at a time) as transactions, check, configure,
// run, then commit or roll back. `Scenario` (the command line), `ReplSession` (`mls repl`) and
// `Workspace` (`mls lsp`) are adapters over it, and so is a binding (issue #35); none of them
// strings the phases together itself. Results, tables and diagnostics come back as data.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "interpreter/results/run_result.hpp"
#include "interpreter/runtime/run_options.hpp"
#include "interpreter/semantics/selection.hpp"

namespace mls {

class Diagnostics;
class Sources;
struct Config;
struct Diagnostic;
struct Session;  // driver.hpp: the Program and the Checker, for tooling inside

// What an input is: a file read through the core's reader (no `text`), or `text` under `name`.
struct Input {
  std::string name;
  std::optional<std::string> text;
};

// A piece of source text added to a loaded program (a REPL input): numbered from `first_line`;
// `final` when no more text will follow (else an input that ends inside a statement is
// `incomplete`); `command_line` when it carries the front end's own choices (`mls repl --use`):
// their assumptions are placed on the command line, not in a file; `one_expression` when it must
// be one expression, which becomes a main statement `show EXPR` (the REPL's `:explain EXPR`).
struct TextInput {
  std::string name = "<input>";
  std::string text;
  std::uint32_t first_line = 1;
  bool final = true;
  bool command_line = false;
  bool one_expression = false;
};

class Core {
 public:
  // Reads a file for the scenario and its imports (default: the disk); editors read open
  // documents first.
  using Reader = std::function<std::optional<std::string>(const std::string& path)>;

  struct Options {
    Reader reader;  // empty: the disk
    // How help text names the listing of conventions: "`mls conventions`", "`:conventions`";
    // empty: help that would name one is left out (no front end's wording below the front end).
    std::string conventions_command;
  };

  explicit Core(Options opt = {});
  // The reader used when Options::reader is empty: a regular file from the disk.
  [[nodiscard]] static std::optional<std::string> read_disk(const std::string& path);
  ~Core();
  Core(const Core&) = delete;
  Core& operator=(const Core&) = delete;

  // ---- the phases, in order. Each returns false (nullopt) with its errors in diagnostics().

  // 1. The prelude (the embedded stdlib); loaded once, later calls return its outcome.
  bool load_prelude();
  // 2. An input. `add_main`: the scenario and its imports, whose statements a run executes;
  // `add_file` another file (`:load`) whose definitions join but whose statements are not run;
  // `add_text` one piece of text, whose statements are run by run_added().
  bool add_main(const Input& in);
  bool add_file(const std::string& path);
  enum class Added { ok, incomplete, failed };
  [[nodiscard]] Added add_text(const TextInput& in);
  // 3. Checks everything added since the last check (the whole program the first time).
  bool check();
  // 4. The choices: `sel` over the scenario's own. configure() always builds them anew;
  // ensure_configured() keeps the current ones unless an input since may have changed a choice
  // (a `use`, `set` or `preset`, a file), and then builds them under the last selection.
  bool configure(const Selection& sel);
  bool ensure_configured();
  // 5. Runs what was configured: every main statement, collected or streamed into `sink`
  // (errors of the sink's own pass through), or the statements added since transaction `t`.
  [[nodiscard]] std::optional<RunResult> run(const RunOptions& opt);
  [[nodiscard]] bool run(const RunOptions& opt, RunSink& sink);

  // 1-3 at once: the prelude and the scenario, checked. 1-5 at once: numbat's
  // `Context::interpret`, jsonnet's `jsonnet_evaluate_file`.
  bool prepare(const Input& in);
  [[nodiscard]] std::optional<RunResult> interpret(const Input& in, const Selection& sel, const RunOptions& opt);

  // ---- transactions: everything after begin() is undone by rollback() (the program, the
  // checker's memo, the choices, the diagnostics), or kept by commit(). Transactions nest;
  // rolling back to one forgets later ones, and one that was committed cannot be rolled back to.
  struct Transaction {
    std::size_t depth = 0;
  };
  [[nodiscard]] Transaction begin();
  void commit(Transaction t);
  void rollback(Transaction t);
  // The statements added since `t` run (the REPL runs each input's statements as it arrives).
  [[nodiscard]] std::optional<RunResult> run_added(Transaction t, const RunOptions& opt);
  [[nodiscard]] std::size_t statements_added(Transaction t) const;

  // ---- what the phases produced, as data
  [[nodiscard]] const Diagnostics& diagnostics() const;
  [[nodiscard]] const Sources& sources() const;
  [[nodiscard]] bool has_errors() const;
  // Errors since diagnostic number `from` (`diagnostics().size()` before a phase).
  [[nodiscard]] bool has_errors_since(std::size_t from) const;
  // A diagnostic of the caller's own, reported with the rest.
  void add(Diagnostic d);
  // What the results layer's sinks read of the program (valid as long as the core).
  [[nodiscard]] ResultScope scope() const;
  // The names `--table` can select: the scenario's sweeps and searches, then `show`.
  [[nodiscard]] std::vector<std::string> table_names() const;

  // Stops the run in progress (on any thread) with the error run.interrupted, as Ctrl-C does: one
  // flag for the process, polled by evaluation; safe in a signal handler. clear_interrupt() takes
  // back a request no run has served yet.
  static void interrupt();
  static void clear_interrupt();

  // For tooling inside, which includes driver.hpp: the program, the checker, the current choices
  // (null before configure), and the same shared (kept by a REPL input that compares them later).
  [[nodiscard]] Session& session();
  [[nodiscard]] const Session& session() const;
  [[nodiscard]] const Config* config() const;
  [[nodiscard]] std::shared_ptr<const Config> shared_config() const;

 private:
  struct State;
  std::unique_ptr<State> st_;
};

}  // namespace mls
