// workspace.hpp — the facade for editor front ends (`mls lsp`, issue #17; issue #20 item 2): open
// documents and, for each, its diagnostics and what is at a position (hover, definition,
// references, completion, symbols). Positions are editor positions (line, UTF-16 column), so a
// front end only translates its protocol; it never reaches into Program or Checker. Each document
// is analysed by the session core (core.hpp) in a transaction over the prelude, rolled back next.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core.hpp"

namespace mls {

class ReplSession;

// 0-based line and 0-based column in UTF-16 code units, as the Language Server Protocol counts.
struct TextPos {
  std::uint32_t line = 0;
  std::uint32_t character = 0;
  bool operator==(const TextPos&) const = default;
};
struct TextRange {
  TextPos start, end;
  bool operator==(const TextRange&) const = default;
};

// Byte offset <-> editor position in `text`. Out-of-range positions are clamped (a line past
// the end is the end of the text, a column past the end of its line is the end of that line).
[[nodiscard]] TextPos text_pos(std::string_view text, std::size_t offset);
[[nodiscard]] std::size_t text_offset(std::string_view text, TextPos p);

struct Location {
  std::string file;  // a document's path, an imported file's path, or a stdlib file's path on disk
  TextRange range;
};

struct WsDiagnostic {
  bool error = true;  // else a warning
  std::string code;   // "name.unknown" (docs/errors.md)
  std::string message;
  TextRange range;  // in the document; a problem inside an imported file sits on its `import`
  std::vector<std::pair<Location, std::string>> related;  // notes with their places
  std::vector<std::string> help;
  std::vector<std::string> suggestions;  // did-you-mean replacements for the text at `range`
};

struct HoverInfo {
  TextRange range;       // the word hovered
  std::string markdown;  // kind, dimension, value in its display unit, assumptions
};

struct SymbolInfo {
  enum class Kind { variable, function, convention, preset, sweep, search, unit, dimension };
  std::string name;
  std::string detail;
  Kind kind = Kind::variable;
  TextRange range;      // the whole statement
  TextRange selection;  // its name
};

struct CompletionList {
  TextRange replace;  // the word being completed
  std::vector<std::string> labels;
};

struct WorkspaceLimits {
  std::size_t hover_points = 4096;     // a sweep with more points is not run on hover
  unsigned hover_millis = 2000;        // an evaluation for hover is stopped after this long
  std::size_t max_diagnostics = 1000;  // published per document
  // Polled (from another thread, every 10 ms) while a hover evaluates: true stops it (the
  // server: the client sent another message, such as the next keystroke). May be empty.
  std::function<bool()> cancelled;
};

class Workspace {
 public:
  Workspace();
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  // Documents are keyed by file path (imports resolve relative to it). Opening an open path
  // replaces its text. An open document is read instead of the disk when another one imports it.
  void open(const std::string& path, std::string text);
  void close(const std::string& path);
  void close_all();
  [[nodiscard]] bool is_open(const std::string& path) const;

  // Parse, name, dimension and convention errors of the document, in source order.
  [[nodiscard]] std::vector<WsDiagnostic> diagnostics(const std::string& path);
  // What the name or shown column at `p` is: its dimension, its value (evaluated now, bounded by
  // `limits`) and the assumptions behind that value.
  [[nodiscard]] std::optional<HoverInfo> hover(const std::string& path, TextPos p);
  // Where the name at `p` is declared (stdlib names: in stdlib_dir when it is set).
  [[nodiscard]] std::vector<Location> definition(const std::string& path, TextPos p);
  // Every use of the name at `p` in the document (and its declaration when `with_decl`).
  [[nodiscard]] std::vector<Location> references(const std::string& path, TextPos p, bool with_decl);
  // Completion on the line before `p`: the REPL's engine over the prelude, and the document's
  // own names and the fields of its values.
  [[nodiscard]] CompletionList completion(const std::string& path, TextPos p);
  // Top-level lets, functions, sweeps, searches, conventions, presets, units and dimensions.
  [[nodiscard]] std::vector<SymbolInfo> symbols(const std::string& path);

  // Where the prelude's files are on disk ("<dir>/units.mls" for "stdlib/units.mls"); empty:
  // definitions in the prelude are not reported.
  std::string stdlib_dir;
  WorkspaceLimits limits;
  // The front end's wording for the session core (how help names the listing of conventions);
  // its reader is the workspace's own (open documents, then the disk).
  Core::Options core_options;

  // Defined in workspace_impl.hpp (named here so the hover code there can take them).
  struct Doc;
  struct Analysis;
  struct Base;

 private:
  Analysis* analysis(const std::string& path);
  void changed();
  std::map<std::string, std::unique_ptr<Doc>> docs_;
  std::unique_ptr<Base> base_;
  std::unique_ptr<Analysis> current_;
  std::unique_ptr<ReplSession> repl_;  // the prelude, for the REPL's completion engine
};

// The stdlib/ directory whose files match the embedded prelude, searched at `candidates`
// in order ("" if none does): a definition can jump into a file only if it is the same text.
[[nodiscard]] std::string find_stdlib_dir(const std::vector<std::string>& candidates);

}  // namespace mls
