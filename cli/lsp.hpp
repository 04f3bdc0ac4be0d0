// lsp.hpp — `mls lsp`: a Language Server Protocol server (JSON-RPC 2.0 with Content-Length
// framing) over the tooling layer's Workspace. The transport is abstract so that the fuzz target
// (tests/fuzz/fuzz_lsp.cpp) drives the same server from a byte string.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace mls {

class Workspace;

class LspInput {
 public:
  virtual ~LspInput() = default;
  // Up to `n` bytes into `buf`; 0 at the end of the input.
  virtual std::size_t read(char* buf, std::size_t n) = 0;
  // True when more input is already waiting (read() would not block): diagnostics wait until
  // the client pauses, so a burst of changes is checked once.
  [[nodiscard]] virtual bool pending() = 0;
};

struct LspOptions {
  std::string stdlib_dir;  // where definitions in the prelude jump ("": not reported)
  std::size_t max_message_bytes = std::size_t{64} << 20;
  unsigned hover_millis = 2000;
  // Serve from this workspace (its documents are closed first) instead of a new one: the fuzz
  // target keeps one, so the prelude is not loaded again for every input.
  Workspace* workspace = nullptr;
};

// Exit codes (docs/editors.md): 0 after `shutdown` then `exit`; 1 on `exit` without `shutdown`
// or at the end of the input without `exit` (the LSP specification's rule).
inline constexpr int kLspExitOk = 0;
inline constexpr int kLspExitUnclean = 1;

// Serves until `exit` or the end of the input; every message the server sends goes to `write`
// (framed). Never throws.
int serve_lsp(LspInput& in, const std::function<void(std::string_view)>& write, const LspOptions& opt);

}  // namespace mls
