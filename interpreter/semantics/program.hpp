// program.hpp — a loaded program: prelude + scenario files, their declarations, and the tables
// that every later phase reads (units, globals, functions, conventions, presets, sites, atoms).
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "deps.hpp"
#include "grammar/ast.hpp"
#include "grammar/diagnostic.hpp"
#include "hf_config.hpp"
#include "types.hpp"
#include "units.hpp"

namespace mls {

struct GlobalDef {
  Sym name = kNoSym;
  Stmt* stmt = nullptr;
  bool stdlib = false;
  bool literal = false;  // RHS is a literal: a parameter and an assumption of its own
  TypeP type;            // filled by the checker
  int check_state = 0;   // 0 unchecked, 1 checking (cycle detection), 2 done
};

struct FunctionDef {
  Sym name = kNoSym;
  Stmt* stmt = nullptr;
  bool stdlib = false;
};

struct NativeDef {
  Sym name = kNoSym;
  Stmt* stmt = nullptr;  // the prelude's `native` declaration (names and docs)
  int impl = -1;         // index into natives()
};

struct ConventionDef {
  Sym name = kNoSym;
  Stmt* stmt = nullptr;
  int default_choice = 0;
  [[nodiscard]] int choice_index(Sym s) const;
};

struct PresetDef {
  Sym name = kNoSym;
  Stmt* stmt = nullptr;
  int extends = -1;
};

struct Decl {
  RefKind kind = RefKind::none;  // global, function, native, convention
  std::uint32_t index = 0;
  Span span;
};

// Reads a file for `import` and for the main scenario; replaceable in tests and the fuzzer.
using FileReader = std::function<std::optional<std::string>(const std::string& path)>;
// The default reader: a regular file from the disk, cut after 16 MiB + 1 byte (enough to refuse it).
[[nodiscard]] std::optional<std::string> read_disk(const std::string& path);

class Program {
 public:
  Program();
  Sources sources;
  Diagnostics diags;
  UnitTable units;
  Deps deps;
  std::deque<Module> modules;
  std::vector<GlobalDef> globals;
  std::vector<FunctionDef> functions;
  std::vector<NativeDef> natives;
  std::vector<ConventionDef> conventions;
  std::vector<PresetDef> presets;
  FileId main_file = kNoFile;
  std::vector<Stmt*> main_stmts;  // statements of the main file, in order (run by `mls run`)
  // Families named by validated("family", ...) calls, with the first call's place (resolve).
  std::vector<std::pair<std::string, Span>> validated_families;
  // Validation bands made in this program (runtime/validation.cpp, Evaluator::validation_deps):
  // one atom per family, domain and configuration, made when a result of that domain is first
  // met; every evaluator — one per sweep, per REPL input, per side of a diff — reuses it. The keys
  // hold the addresses of `set` expressions, which rollback() may free: it empties the memo.
  struct ValidationMemo {
    std::mutex mu;
    std::unordered_map<std::string, AtomId> atoms;
  };
  std::unique_ptr<ValidationMemo> validation_memo = std::make_unique<ValidationMemo>();
  // Hugging Face configs read by model_from_hf("path"), keyed by the path literal (resolve).
  std::map<std::string, HfConfig> hf_configs;
  FileReader reader;
  bool loading_stdlib = false;

  // Loads every embedded stdlib file. Returns false (with diagnostics) if the prelude is broken.
  bool load_prelude();
  // Loads a scenario file and its imports; its statements become main_stmts.
  bool load_main(const std::string& path);
  // Loads source text as the main file (REPL inputs, tests).
  bool load_main_text(const std::string& name, std::string text);
  // Declares and resolves a module that was parsed separately (REPL); returns false on errors.
  bool add_module(Module m, bool is_main);

  // REPL: decides whether a new top-level definition may replace an existing one (`let x = 2`
  // after `let x = 1` at the prompt). Unset (files): every redefinition is an error.
  // `after_resolve` replaces it once the new module is resolved, so that the module's own
  // references — `let x = x + 1` — still read the previous definition.
  enum class Redefine { no, now, after_resolve };
  std::function<Redefine(const Stmt& replacement, const Decl& old, RefKind kind)> may_redefine;
  // How help text names the listing of conventions and their choices, in the front end's words
  // (`mls conventions`, the REPL's `:conventions`), handed down through the session core; empty:
  // that help is left out. No layer below the front ends holds their wording.
  std::string conventions_command;

  // Top-level names. Changed only through bind/unbind, which keep the undo log rollback() uses.
  [[nodiscard]] const std::unordered_map<Sym, Decl>& scope() const { return scope_; }
  void bind(Sym name, Decl d);
  void unbind(Sym name);
  // Call before changing an existing entry of `globals` (the checker fills in its type).
  void touch_global(std::uint32_t g);

  // Everything an input can change, for the REPL's transactional inputs: an input that fails in
  // any phase is undone with rollback(mark) and the session is exactly as before. Both cost in
  // proportion to what the input did, never to the size of the session (issue 19, item 9: a
  // copy of every table per input made a REPL run quadratic): append-only tables are cut back
  // to their length, and the few changes to existing entries (scope bindings, a global checked
  // for the first time) are undone from a log. Marks nest; rolling back to one forgets later ones.
  // An input that succeeds is committed: its log entries are dropped (a long session's logs stay
  // as small as one input), and neither its mark nor an earlier one may be rolled back to after.
  struct Mark {
    std::size_t sources, diags, modules, globals, functions, natives, conventions, presets, main_stmts, loaded_paths,
        validated_families, scope_log, global_log;
    FileId main_file;
    UnitTable::Mark units;
    Deps::Mark deps;
  };
  // Not const: from here on, changes to existing entries are logged.
  [[nodiscard]] Mark begin_input();
  void rollback(const Mark& m);
  void commit(const Mark& m);
  [[nodiscard]] std::size_t undo_entries() const { return scope_log_.size() + global_log_.size(); }

  [[nodiscard]] const Decl* lookup(Sym s) const;
  [[nodiscard]] int convention_index(Sym s) const;
  [[nodiscard]] int preset_index(Sym s) const;
  [[nodiscard]] std::vector<std::string> global_names() const;
  [[nodiscard]] bool is_stdlib(FileId f) const { return f != kNoFile && sources.get(f).is_stdlib; }

 private:
  bool load_file(const std::string& path, Span from, std::vector<std::string>& stack, bool is_main);
  void declare(Module& m);
  void refuse_run_statements(const Module& m);
  void declare_units(Module& m);
  std::vector<std::string> loaded_paths_;
  std::unordered_map<Sym, Decl> scope_;
  // Undo logs: a binding's previous state (nullopt: unbound), a global's previous entry. Only
  // changes below the last mark's sizes need an entry (later ones are cut off anyway).
  std::vector<std::pair<Sym, std::optional<Decl>>> scope_log_;
  std::vector<std::pair<std::uint32_t, GlobalDef>> global_log_;
  std::size_t global_floor_ = 0;                // globals.size() at the last begin_input()
  bool marked_ = false;                         // no input begun (`mls run`): nothing to log
  std::vector<std::pair<Sym, Decl>> deferred_;  // Redefine::after_resolve, within add_module
};

// Canonical text of a literal expression for assumption values ("50000 h", "-3", "true").
[[nodiscard]] bool is_literal(const Expr& e);

}  // namespace mls
