// error_reach.hpp — what a document's errors reach (issue 36): the top-level statements that have
// an error, or depend on one through globals, functions, conventions and the choices that set them.
// An editor evaluates the rest exactly as in a document without the errors (as numbat does).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "interpreter/semantics/program.hpp"

namespace mls {

// The erroneous statement a value depends on.
struct ErrorCause {
  Span at;           // the statement, or the text that did not parse (invalid: no place)
  std::string what;  // "`b`" for a declaration, else the statement's first line: "`use precision = fp9`"
  // An error that may change any value (a `display` or `unit` statement, a `preset` that does not
  // parse, a `set` of an unknown name, an error with no place): it reaches every statement.
  bool everything = false;
};

class ErrorReach {
 public:
  // The errors are the program's diagnostics from number `first_diag` on; the statements are those
  // of the files that are not the prelude's (the prelude has no errors).
  ErrorReach(const Program& p, std::size_t first_diag);

  // Why the statement may not be evaluated: the nearest erroneous statement it depends on (itself,
  // when it has an error), or nullopt when it is clean.
  [[nodiscard]] std::optional<ErrorCause> cause(const Stmt& s) const;
  [[nodiscard]] std::optional<ErrorCause> cause_of_global(std::uint32_t g) const;
  // What a convention's choice depends on: its declaration and the `use`s and presets that choose.
  [[nodiscard]] std::optional<ErrorCause> cause_of_convention(std::uint32_t c) const;
  // The main file's `use`, `set` and `preset NAME` statements that are clean, in order: what the
  // editor configures with (the others are left out, and what they would set is not clean).
  [[nodiscard]] std::vector<Stmt*> clean_choices() const;

 private:
  // What a `use` or `set` (or a preset's item) names: a convention, global, function or native.
  struct Target {
    RefKind kind = RefKind::none;
    std::uint32_t index = 0;
    bool operator==(const Target&) const = default;
  };
  struct TargetHash {
    std::size_t operator()(const Target& t) const {
      return std::hash<std::uint64_t>{}((std::uint64_t{static_cast<std::uint8_t>(t.kind)} << 32) | t.index);
    }
  };
  void place(const Diagnostic& d);
  void skipped(const Module::Skipped& s);
  void choosers();
  void propagate();
  [[nodiscard]] std::optional<Target> target_of(Sym name) const;
  [[nodiscard]] ErrorCause cause_at(const Stmt& s) const;
  [[nodiscard]] const Stmt* decl_of(Target t) const;
  [[nodiscard]] std::optional<ErrorCause> cause_of_node(const Stmt* s) const;

  const Program& p_;
  std::unordered_map<const Stmt*, ErrorCause> bad_;             // statements with an error
  std::unordered_map<Sym, ErrorCause> broken_;                  // `let NAME` that did not parse
  std::unordered_map<Target, ErrorCause, TargetHash> tainted_;  // a `use`/`set` of it did not parse
  std::optional<ErrorCause> all_;                               // reaches everything
  std::optional<ErrorCause> all_conventions_;                   // a `use` of an unknown convention
  // The statements that choose a target's value: `use`/`set` in the main file, the presets selected.
  std::unordered_map<Target, std::vector<const Stmt*>, TargetHash> setters_;
  bool stdlib_matters_ = false;                          // a choice exists: a prelude declaration may lead to one
  std::unordered_map<const Stmt*, ErrorCause> reached_;  // every statement an error reaches
};

}  // namespace mls
