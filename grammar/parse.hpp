// parse.hpp — source text to AST. The PEGTL grammar lives behind this header (parse.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

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

// How a statement failed to parse, decided where the parser raised the error (which must<>
// target was missing, the nesting limit, the operator-chain limit), never from its message.
// The REPL's "keep reading" and the diagnostic's kind switch on it.
enum class SyntaxFailure : std::uint8_t {
  expected,        // something required is missing: "expected '='" (parse.syntax)
  unclosed,        // a closer is missing: a bracket, a body's '}', a string's '"' (parse.unclosed)
  too_deep,        // nesting deeper than kMaxParseDepth (parse.too_deep)
  chain_too_long,  // an operator chain longer than kMaxExprDepth (parse.too_deep)
};
struct SyntaxError {
  SyntaxFailure failure = SyntaxFailure::expected;
  std::size_t pos = 0;  // byte offset in the file
  std::string message;  // as raised, before ", got ..." is added
};
// The first syntax error of a file parsed statement by statement as parse_module does, if any.
[[nodiscard]] std::optional<SyntaxError> first_syntax_error(const Sources& src, FileId file);

// Maximum nesting depth of expressions and statements (brackets, prefix operators, `^`).
inline constexpr std::size_t kMaxParseDepth = 96;
// Syntax errors reported per file before the parser gives up on it.
inline constexpr std::size_t kMaxParseErrors = 200;
// Maximum height of a lowered expression tree (operator chains, field and `with` chains).
inline constexpr std::uint32_t kMaxExprDepth = 1000;

}  // namespace mls
