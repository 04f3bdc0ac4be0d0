// workspace_impl.hpp — the workspace's state, shared by workspace.cpp (documents, diagnostics,
// definitions, completion, symbols) and workspace_hover.cpp (hover and its bounded evaluation).
// Front ends include workspace.hpp only.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "driver.hpp"
#include "session.hpp"
#include "workspace.hpp"
#include "workspace_find.hpp"

namespace mls {

// One document's analysis: built on first use after a change, dropped by the next change.
struct Workspace::Analysis {
  std::unique_ptr<Session> s = std::make_unique<Session>();
  std::string path;
  bool ok = false;               // loaded and checked without errors
  std::optional<Config> cfg;     // the scenario's choices (configured with the analysis)
  const Module* main = nullptr;  // the document's statements (null: it did not load)
  [[nodiscard]] std::string_view text() const { return s->prog.sources.get(s->prog.main_file).text; }
};

struct Workspace::Doc {
  std::string text;
  std::unique_ptr<Analysis> an;
  // Completion: a REPL session holding the document's definitions, rebuilt after a change; the
  // last one that loaded is kept while the text does not (typing `H100.` is a parse error).
  std::unique_ptr<ReplSession> repl;
  bool repl_current = false;
};

// Editor positions of a span of a loaded file.
[[nodiscard]] TextRange range_of(const Program& p, Span s);
// The file a span's location is reported in: the document, an import, or stdlib_dir's copy of a
// prelude file ("" if the prelude's files are not on disk).
[[nodiscard]] std::string file_of(const Program& p, FileId f, const std::string& stdlib_dir);

// Hover for a hit in an analysed document (workspace_hover.cpp).
[[nodiscard]] std::optional<HoverInfo> hover_of(Workspace::Analysis& an, const Hit& h, const WorkspaceLimits& lim);

}  // namespace mls
