// workspace_find.hpp — what is at a byte offset of a checked file (the name, field, unit, shown
// column or declaration under the cursor) and every use of a declaration: the syntax-tree walks
// behind the workspace's hover, definition and references.
#pragma once

#include <cstdint>
#include <functional>

#include "interpreter/semantics/program.hpp"

namespace mls {

struct Hit {
  enum class K {
    none,
    name,        // a name or the name of a call: `expr` (ref filled by the resolver)
    field,       // `.name` of a field access: `expr`
    decl,        // the declared name of a top-level statement: `stmt`
    local_decl,  // a sweep variable, sweep `let`, parameter or record `let`: `slot` in `stmt`
    show_label,  // the label of a shown value or sweep column: `show` (in `stmt`)
    unit,        // a unit in a literal or conversion: `unit`
    use,         // `use NAME = CHOICE`: convention `name` (or its choice `choice_name` when `choice`)
    preset,      // `preset NAME` or `extends NAME`: `name`
  };
  K k = K::none;
  const Stmt* stmt = nullptr;  // the top-level statement holding the offset
  const Expr* expr = nullptr;
  const ShowItem* show = nullptr;  // the innermost shown item holding the offset
  const UnitTerm* unit = nullptr;
  bool choice = false;
  Sym choice_name = kNoSym;
  int slot = -1;
  Sym name = kNoSym;
  Span span;  // the word itself
};

// `stmts` are one file's top-level statements; `text` is that file's text.
[[nodiscard]] Hit find_at(const std::vector<Stmt>& stmts, std::string_view text, std::uint32_t offset);

// The name of a sweep body's `let NAME = ...` (the parser keeps only the item's span).
[[nodiscard]] Span body_let_name(const BodyItem& b, std::string_view text);

// Where local `slot` of top-level statement `s` is declared (a parameter, sweep variable,
// sweep `let` or record `let`); an invalid span if it is not found.
[[nodiscard]] Span local_decl_span(const Stmt& s, int slot, std::string_view text);

// Calls `f` for every name and call expression in the statements (nested preset items too).
void each_name_expr(const std::vector<Stmt>& stmts, const std::function<void(const Stmt&, const Expr&)>& f);

}  // namespace mls
