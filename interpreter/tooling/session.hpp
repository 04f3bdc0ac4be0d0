// session.hpp — an interactive session (`mls repl`): a loaded program that grows one input at a
// time. Each input is one transaction of the session core (core.hpp) — parsed, declared, checked,
// configured and run, or undone; here is what the REPL adds: echoed definitions, `ans`, advice.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core.hpp"

namespace mls {

struct Probe;       // session_text.hpp: a checked expression, for tooling's inspectors
struct TableSlice;  // results/format.hpp

// A value defined at the prompt (`let x = ...`, `set x = ...`), printed after the input.
struct Definition {
  std::string label;     // "x", "H100.unit_cost"
  bool literal = false;  // `let x = 512`: the value is its own only assumption
  Value value;
  TypeP type;
  std::optional<Display> display;  // a literal echoes in the unit it was written in
  Span span;                       // the statement: assumptions written inside it are its own
};

// What one input did. The REPL prints it; nothing in here refers to a rolled-back input.
struct Outcome {
  enum class Status { ok, incomplete, failed };
  Status status = Status::ok;
  std::string diagnostics;           // rendered errors and warnings
  int exit_code = 0;                 // of the first error: 65 input, 66 unreadable file, ...
  std::vector<Definition> defined;   // the input's lets and sets, in order
  RunResult run;                     // its shows, tables and asserts
  std::vector<bool> bare;            // per run.results entry: shown by a bare expression
  std::vector<std::string> changes;  // "mtbf_model = gpu_only (was node_series)"
  std::string message;               // ":load" summary and similar
  [[nodiscard]] bool asserts_failed() const;
};

class ReplSession {
 public:
  // `input_name` names the pseudo-files of inputs in messages: "<repl>", "<stdin>". `core_opt`:
  // the front end's wording (how help names its `:conventions` command) and file reader.
  explicit ReplSession(RunOptions opt = {}, std::string input_name = "<repl>", Core::Options core_opt = {});
  ~ReplSession();
  ReplSession(const ReplSession&) = delete;
  ReplSession& operator=(const ReplSession&) = delete;

  // Loads the prelude and `files`: their definitions and choices join the session; their
  // statements are not run (`mls run` does that).
  [[nodiscard]] Outcome start(const std::vector<std::string>& files);
  // One input, numbered from `first_line`. `incomplete` when it ends inside a statement (read
  // another line), unless `final`. A bare expression is shown and becomes `ans`.
  // `command_line`: the front end's own choices (`mls repl --use ...`), named "<command line>" in
  // messages and placed on the command line in assumption lists.
  [[nodiscard]] Outcome submit(const std::string& text, std::uint32_t first_line, bool final = false,
                               bool command_line = false);
  // `:load FILE`: as a file given on the command line.
  [[nodiscard]] Outcome load(const std::string& path);
  // `:reset`: forgets every input; reloads the prelude and the loaded files from disk. If a
  // file no longer loads, the session is left as it was.
  [[nodiscard]] Outcome reset();

  // Parses and checks `text` as one expression, calls `inspect` (which may evaluate and must
  // format everything it needs), then undoes all of it. Errors, including runtime errors thrown
  // by `inspect`, are rendered into `errors`.
  bool probe(const std::string& text, std::uint32_t first_line, const std::function<void(const Probe&)>& inspect,
             std::string& errors);
  // Static type of an expression, or null if it does not check (tab completion).
  [[nodiscard]] TypeP type_of(const std::string& text);

  // What the REPL prints, as finished text (session_text.cpp, session_inspect.cpp).
  // An input's outcome: choice changes, definitions, answers, tables and assertions. Tables are
  // printed by `table_text` (the REPL pages long ones); nullptr prints them whole.
  using TableText = std::function<std::string(const Table&)>;
  [[nodiscard]] std::string format(const Outcome& o, const TableText& table_text = nullptr);
  // The rows of a table that `slice` asks for, as `mls run` prints them (the REPL's paging).
  [[nodiscard]] std::string table_text(const Table& t, TableSlice& slice);
  // The inspecting commands; each returns false (and fills `err`) when the argument does not
  // check or evaluation fails. `:explain EXPR`: the formula chain.
  bool explain(const std::string& text, std::uint32_t first_line, std::string& out, std::string& err);
  // `:assumptions EXPR`: every assumption the value depends on, with file:line.
  bool assumptions(const std::string& text, std::uint32_t first_line, std::string& out, std::string& err);
  // `:diff EXPR`: the value under the default choices and under the current ones.
  bool diff(const std::string& text, std::uint32_t first_line, std::string& out, std::string& err);
  // `:conventions [NAME...]`: every convention (or the named ones), its choices, the current one
  // and who chose it (tooling/listing).
  bool conventions(const std::vector<std::string>& names, std::string& out, std::string& err);
  // `:units [DIMENSION|UNIT]`: the dimensions, or the units of one.
  bool units(const std::string& arg, std::string& out, std::string& err);
  // `:preset` alone: the preset in force and every preset's name.
  [[nodiscard]] std::string presets_line();
  // A diagnostic raised outside an input (`:plot`), drawn by `renderer`.
  [[nodiscard]] std::string render_diagnostic(const Diagnostic& d) const;

  // The session core (tooling's completion and inspecting commands reach the program through it).
  [[nodiscard]] Core& core() { return *core_; }
  // The session's current choices; null (with diagnostics) if they cannot be built.
  [[nodiscard]] const Config* config();
  [[nodiscard]] const std::vector<std::string>& files() const { return files_; }
  [[nodiscard]] const RunOptions& options() const { return opt_; }

  // How diagnostics are rendered (the interactive REPL draws carets under the prompt line).
  std::function<std::string(const Sources&, const Diagnostic&)> renderer;

 private:
  [[nodiscard]] std::unique_ptr<Core> fresh_core();
  bool load_into(Core& core, const std::string& path, std::string& message);
  bool define_ans(const ShowItem& item);
  void explain_failure(std::size_t first_diag);
  std::string render_from(const Sources& src, const Diagnostics& diags, std::size_t first, int& exit_code) const;
  Outcome fail(Outcome out, Core::Transaction t, std::size_t first_diag);
  void evaluate_definitions(Core::Transaction t, std::size_t first_global, Outcome& out);
  void mark_bare(Core::Transaction t, Outcome& out, const ShowItem*& last);

  RunOptions opt_;
  std::string input_name_;
  Core::Options core_opt_;  // every core of the session (:reset makes a new one) gets these
  std::unique_ptr<Core> core_;
  std::vector<std::string> files_;
  std::uint64_t answers_ = 0;
};

}  // namespace mls
