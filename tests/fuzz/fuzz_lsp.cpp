// fuzz_lsp.cpp — libFuzzer target for `mls lsp`'s input (cli/lsp.cpp over the Workspace): the
// bytes a client writes to the server's stdin.
//
// Two shapes, chosen by the first byte, so the fuzzer reaches both the framing and the methods:
// - `R` then raw bytes: the stream exactly as read (headers, Content-Length, bodies);
// - anything else: one JSON-RPC body per line, each framed correctly, after an `initialize`
//   the target sends itself — so didOpen with mls text, hover, definition, completion, symbols
//   and code actions are reached without the fuzzer having to count bytes.
// The server must never throw, hang or crash; it must end with exit code 0 or 1 and every
// message it writes must be framed with a correct Content-Length.
// A recipe (structured.hpp) expands first to either shape, up to 16 MiB: bodies nested millions
// deep, documents of a hundred thousand lines; the message cap is then the real one (64 MiB).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <new>
#include <string>
#include <string_view>

#include "cli/lsp.hpp"
#include "cli/memory_limit.hpp"
#include "grammar/diagnostic.hpp"
#include "interpreter/tooling/workspace.hpp"
#include "structured.hpp"

namespace {

class BytesInput : public mls::LspInput {
 public:
  explicit BytesInput(std::string data) : data_(std::move(data)) {}
  std::size_t read(char* buf, std::size_t n) override {
    // Small reads: headers and bodies split across reads are fuzzed too.
    const std::size_t k = std::min({n, data_.size() - pos_, std::size_t{97}});
    data_.copy(buf, k, pos_);
    pos_ += k;
    return k;
  }
  bool pending() override { return pos_ < data_.size(); }

 private:
  std::string data_;
  std::size_t pos_ = 0;
};

std::string frame(std::string_view body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + std::string(body);
}

[[noreturn]] void broken(const char* what, std::string_view detail) {
  std::fprintf(stderr, "fuzz_lsp: %s\n%.*s\n", what, static_cast<int>(std::min<std::size_t>(detail.size(), 400)),
               detail.data());
  __builtin_trap();
}

// Every message the server writes: "Content-Length: N\r\n\r\n" and exactly N bytes of body.
void check_framed(std::string_view out) {
  while (!out.empty()) {
    const std::string_view head = "Content-Length: ";
    if (out.substr(0, head.size()) != head) broken("output without a Content-Length header", out);
    const std::size_t end = out.find("\r\n\r\n");
    if (end == std::string_view::npos) broken("output header without an empty line", out);
    const std::size_t n = std::stoul(std::string(out.substr(head.size(), end - head.size())));
    if (out.size() < end + 4 + n) broken("output body shorter than its Content-Length", out);
    const std::string_view body = out.substr(end + 4, n);
    if (body.empty() || body.front() != '{' || body.back() != '}') broken("output body is not a JSON object", body);
    out.remove_prefix(end + 4 + n);
  }
}

}  // namespace

namespace {

std::unique_ptr<mls::Workspace> ws;

void serve(std::string_view in, bool structured);

}  // namespace

// Under the memory limit (MLS_MAX_MEMORY; the structured run sets 512 MiB, tests/fuzz/CMakeLists.txt),
// as `mls lsp` runs: the server answers a request that runs out with an error and a document
// whose analysis runs out with a limit.memory diagnostic (lsp.cpp, workspace.cpp). Past the limit
// anywhere else (the target's own expansion, a message being read) the workspace is dropped and the
// next input gets a fresh one; a bad_alloc that is not the limit's stays a finding.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view raw(reinterpret_cast<const char*>(data), size);
  std::string_view recipe;
  const bool structured = mls_fuzz::recipe_of(raw, recipe);
  if (!structured && size > (std::size_t{1} << 15))
    return -1;  // keep each small-mode run fast: large inputs are the structured mode's
  try {
    std::string expanded;
    if (structured) expanded = mls_fuzz::expand(recipe);
    serve(structured ? std::string_view(expanded) : raw, structured);
  } catch (const std::bad_alloc&) {
    if (!mls::memory_limit_reached()) throw;
    ws.reset();
    std::fprintf(stderr, "fuzz_lsp: the input needs more than the %s memory limit\n", mls::memory_limit_text().c_str());
  }
  mls::clear_memory_limit_reached();  // also after the server's own recoveries
  return 0;
}

namespace {

void serve(std::string_view in, bool structured) {
  std::string stream;
  if (!in.empty() && in.front() == 'R') {
    stream = std::string(in.substr(1));
  } else {
    stream = frame(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{}}})");
    std::size_t pos = 0, messages = 0;
    // At most a few messages: each document version is checked against the whole prelude.
    while (pos < in.size() && messages++ < 12) {
      std::size_t end = in.find('\n', pos);
      if (end == std::string_view::npos) end = in.size();
      stream += frame(in.substr(pos, end - pos));
      pos = end + 1;
    }
  }
  BytesInput input(std::move(stream));
  // The prelude is loaded once per workspace: reuse one, fresh for the first input and every
  // 256th (as fuzz_pipeline does), so one crash file alone reproduces a fresh server.
  static std::size_t runs = 0;
  if (!ws || runs++ % 256 == 0) {
    ws.reset();  // first: two workspaces at once would count twice against the limit
    ws = std::make_unique<mls::Workspace>();
  }
  mls::LspOptions opt;
  opt.workspace = ws.get();
  opt.stdlib_dir = "";  // no disk reads for definitions
  opt.max_message_bytes = structured ? std::size_t{64} << 20 : std::size_t{1} << 16;
  opt.hover_millis = 500;
  std::string out;
  const int rc = mls::serve_lsp(
      input, [&](std::string_view s) { out.append(s); }, opt);
  // limit.memory's code: out of memory outside any one message (reading its bytes), only at the limit.
  const bool out_of_memory = rc == mls::info(mls::ErrorKind::limit_memory).exit_code && mls::memory_limit_reached();
  if (rc != mls::kLspExitOk && rc != mls::kLspExitUnclean && !out_of_memory)
    broken("exit code other than 0 or 1", std::to_string(rc));
  if (out_of_memory) ws.reset();
  check_framed(out);
}

}  // namespace
