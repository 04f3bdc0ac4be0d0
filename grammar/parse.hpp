// parse.hpp — source text to AST. The PEGTL grammar lives behind this header (parse.cpp).
#pragma once

#include "ast.hpp"
#include "diagnostic.hpp"

namespace mls {

// Parses a whole file statement by statement; after a syntax error it skips to the next line
// that starts a statement, so independent errors are all reported.
[[nodiscard]] Module parse_module(const Sources& src, FileId file, Diagnostics& diags);

// REPL: parse one input. `incomplete` is set when the only error is at end of input (the
// statement continues on the next line); diagnostics are then not added. With `final` (no more
// lines will come: end of stdin) such an error is reported like any other.
[[nodiscard]] Module parse_repl(const Sources& src, FileId file, Diagnostics& diags, bool& incomplete,
                                bool final = false);

// A standalone expression (command-line `--set NAME=VALUE`).
[[nodiscard]] ExprP parse_expression(const Sources& src, FileId file, Diagnostics& diags);

// Maximum nesting depth of expressions and statements (brackets, prefix operators, `^`).
inline constexpr std::size_t kMaxParseDepth = 96;
// Syntax errors reported per file before the parser gives up on it.
inline constexpr std::size_t kMaxParseErrors = 200;
// Maximum height of a lowered expression tree (operator chains, field and `with` chains).
inline constexpr std::uint32_t kMaxExprDepth = 1000;

}  // namespace mls
