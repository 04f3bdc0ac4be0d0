// workspace_impl.hpp — the workspace's state, shared by workspace.cpp (documents, diagnostics,
// definitions, completion, symbols) and workspace_hover.cpp (hover and its bounded evaluation).
// Front ends include workspace.hpp only.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "driver.hpp"
#include "error_reach.hpp"
#include "session.hpp"
#include "workspace.hpp"
#include "workspace_find.hpp"

namespace mls {

// The prelude, loaded and checked once: every analysis loads a document on top of it in a
// transaction of the core, rolled back before the next one (as the REPL undoes a failed input).
struct Workspace::Base {
  explicit Base(Core::Options opt) : core(std::move(opt)) {}
  Core core;
  std::optional<Core::Transaction> document;  // open while a document is loaded above the prelude
  bool ok = false;                            // the prelude loaded (else its diagnostics are every document's)
  std::size_t analyses = 0;                   // interned dependency sets outlive a rollback: renewed now and then
};

// The analysis of one document, valid until the next analysis or change (there is one at a time).
struct Workspace::Analysis {
  Session* s = nullptr;  // the base session, holding this document
  std::string path;
  bool ok = false;              // loaded and checked without errors
  const Config* cfg = nullptr;  // the scenario's choices (configured with the analysis; null: not)
  // A document with errors: what they reach (the rest is evaluated, under `cfg` built from the
  // clean choices only), and why there are no choices when none could be built.
  std::unique_ptr<ErrorReach> reach;
  std::string no_config;
  const Module* main = nullptr;  // the document's statements (null: it did not load)
  std::size_t first_diag = 0;    // the document's diagnostics start here (after the prelude's)
  [[nodiscard]] std::string_view text() const { return s->prog.sources.get(s->prog.main_file).text; }
};

struct Workspace::Doc {
  std::string text;
  std::optional<std::vector<WsDiagnostic>> diags;  // cached until a change
};

// Editor positions of a span of a loaded file.
[[nodiscard]] TextRange range_of(const Program& p, Span s);
// The file a span's location is reported in: the document, an import, or stdlib_dir's copy of a
// prelude file ("" if the prelude's files are not on disk).
[[nodiscard]] std::string file_of(const Program& p, FileId f, const std::string& stdlib_dir);

// Hover for a hit in an analysed document (workspace_hover.cpp).
[[nodiscard]] std::optional<HoverInfo> hover_of(Workspace::Analysis& an, const Hit& h, const WorkspaceLimits& lim);

}  // namespace mls
