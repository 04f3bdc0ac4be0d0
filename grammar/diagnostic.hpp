// diagnostic.hpp — the one diagnostic type shared by every phase, and its renderer.
// Rendered compiler-style: `file:line:col: error[code]: message`, source line, caret span, notes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "source.hpp"

namespace mls {

enum class ErrorKind {
#define X(id, code, exit, summary) id,
#include "error_kinds.def"
#undef X
};

struct ErrorKindInfo {
  ErrorKind kind;
  const char* code;
  int exit_code;
  const char* summary;
};
[[nodiscard]] const std::vector<ErrorKindInfo>& all_error_kinds();
[[nodiscard]] const ErrorKindInfo& info(ErrorKind k);

enum class Severity { error, warning };

// What a secondary place of a diagnostic is, so that a phase that adds notes on the way out can
// find its own without reading their text.
enum class LabelKind : std::uint8_t {
  place,  // a related place: "declared here", "this is Time (s)"
  call,   // a call that led to the error, innermost first: "in the call to 'f'", "in this call"
};

struct Label {
  Span span;
  std::string text;
  LabelKind kind = LabelKind::place;
};

struct Diagnostic {
  Severity severity = Severity::error;
  ErrorKind kind = ErrorKind::internal;
  std::string message;
  Span span;                 // primary location (may be invalid: command line)
  std::string label;         // text under the caret
  std::vector<Label> notes;  // secondary locations ("note: opened here")
  std::vector<std::string> help;
  // Structured fields, for front ends that act on a diagnostic (the REPL's advice, an editor's
  // quick fix) without reading its message; the message and help say the same in words.
  std::string subject;                   // the name it is about (unknown or duplicate name), or ""
  std::string expected, got;             // what was expected and what was found (types, dimensions)
  std::vector<std::string> suggestions;  // did-you-mean candidates, best first (also in help)

  Diagnostic& expecting(std::string want, std::string found) {
    expected = std::move(want);
    got = std::move(found);
    return *this;
  }
};

// Thrown to abort a phase (runtime errors, limits); caught at the CLI/REPL boundary.
struct DiagnosticError {
  Diagnostic diag;
};

// An error diagnostic from its kind, place (Span{}: none), message and help lines: the one way
// to build one, instead of the same field-by-field lines in every phase.
[[nodiscard]] Diagnostic make_diagnostic(ErrorKind k, Span at, std::string msg, std::vector<std::string> help = {});
// The same, thrown: aborts the phase (runtime errors, limits).
[[noreturn]] void throw_diagnostic(ErrorKind k, Span at, std::string msg, std::vector<std::string> help = {});

class Diagnostics {
 public:
  void add(Diagnostic d) { items_.push_back(std::move(d)); }
  Diagnostic& error(ErrorKind k, Span s, std::string msg);
  [[nodiscard]] bool has_errors() const;
  [[nodiscard]] const std::vector<Diagnostic>& items() const { return items_; }
  [[nodiscard]] std::size_t size() const { return items_.size(); }
  void truncate(std::size_t n) { items_.resize(n); }
  void clear() { items_.clear(); }
  // Exit code of the first error, or 0.
  [[nodiscard]] int exit_code() const;

 private:
  std::vector<Diagnostic> items_;
};

[[nodiscard]] std::string render(const Sources& src, const Diagnostic& d);
// At most `max_shown` diagnostics in source order, then a line counting the rest.
inline constexpr std::size_t kMaxShownDiagnostics = 50;
// Beyond this many diagnostics, costly help (did-you-mean over every name) is skipped.
inline constexpr std::size_t kMaxSuggestedDiagnostics = 1000;
[[nodiscard]] std::string render_all(const Sources& src, const Diagnostics& ds,
                                     std::size_t max_shown = kMaxShownDiagnostics);

// Did-you-mean: the closest candidate by edit distance, or "" if none is close enough (or the
// word is longer than kMaxSuggestLength).
inline constexpr std::size_t kMaxSuggestLength = 64;
[[nodiscard]] std::string closest(std::string_view word, const std::vector<std::string>& candidates);
[[nodiscard]] std::size_t edit_distance(std::string_view a, std::string_view b);
// Did-you-mean on a diagnostic: the closest candidate to `word`, kept in d.suggestions and shown
// as help "did you mean 'x'?" (`quote` '"' for JSON keys). Returns whether there was one.
bool suggest(Diagnostic& d, std::string_view word, const std::vector<std::string>& candidates, char quote = '\'');
// The same for a known candidate ("" adds nothing).
void add_suggestion(Diagnostic& d, const std::string& near, char quote = '\'');

// A diagnostic with no source behind it (REPL meta commands): `error[code]: message` and its
// help lines, as render() prints them after the place.
[[nodiscard]] std::string render_unplaced(const Diagnostic& d);

}  // namespace mls
