// lsp.cpp — the server behind `mls lsp`: Content-Length framing, JSON-RPC dispatch and the
// translation between LSP messages and the Workspace (interpreter/tooling/workspace.hpp).
// nlohmann::json is confined to this file (and semantics/hf_config.cpp), read through
// grammar/json_bounded.hpp (nesting bounded while parsing). Every message is handled on its own:
// malformed framing or JSON, unknown methods and bad parameters get an error reply (or are
// dropped, for notifications) and the server carries on.
#include "lsp.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "commands.hpp"
#include "grammar/diagnostic.hpp"
#include "grammar/json_bounded.hpp"
#include "interpreter/results/format.hpp"
#include "interpreter/tooling/controls.hpp"
#include "interpreter/tooling/workspace.hpp"

namespace mls {

namespace {

using json = nlohmann::json;

// JSON-RPC and LSP error codes.
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;
constexpr int kServerNotInitialized = -32002;

constexpr std::size_t kMaxHeaderBytes = 8192;
constexpr std::size_t kMaxCompletionItems = 1000;

// ---- framing ----------------------------------------------------------------------------------

class Framer {
 public:
  Framer(LspInput& in, std::size_t max_body) : in_(in), max_body_(max_body) {}
  enum class R { message, bad, eof };

  // The next message's body; `bad` (with `why`) for a header that cannot be read, after which
  // reading goes on with the bytes that follow it.
  R next(std::string& body, std::string& why) {
    std::size_t end;
    while ((end = buf_.find("\r\n\r\n", pos_)) == std::string::npos) {
      if (buf_.size() - pos_ > kMaxHeaderBytes) {
        buf_.clear();
        pos_ = 0;
        why = "header longer than " + std::to_string(kMaxHeaderBytes) + " bytes without an empty line";
        return R::bad;
      }
      if (!fill()) return R::eof;
    }
    const std::string header = buf_.substr(pos_, end - pos_);
    pos_ = end + 4;
    const std::optional<std::size_t> length = content_length(header);
    if (!length) {
      why = "no valid Content-Length header";
      return R::bad;
    }
    if (*length > max_body_) {
      why = "message of " + std::to_string(*length) + " bytes is larger than the limit";
      return skip(*length) ? R::bad : R::eof;
    }
    while (buf_.size() - pos_ < *length)
      if (!fill()) return R::eof;
    body.assign(buf_, pos_, *length);
    pos_ += *length;
    return R::message;
  }

  // Also asked from the hover watchdog's thread: safe, because the server's thread is then
  // inside the hover and changes nothing here (and started the watchdog after its last change).
  [[nodiscard]] bool pending() { return pos_ < buf_.size() || in_.pending(); }

 private:
  bool fill() {
    if (pos_ > (1u << 20)) {  // drop what was consumed, now and then
      buf_.erase(0, pos_);
      pos_ = 0;
    }
    char chunk[1 << 16];
    const std::size_t n = in_.read(chunk, sizeof chunk);
    if (n == 0) return false;
    buf_.append(chunk, n);
    return true;
  }

  // Discards `n` body bytes without holding them.
  bool skip(std::size_t n) {
    while (n > 0) {
      if (pos_ == buf_.size() && !fill()) return false;
      const std::size_t k = std::min(n, buf_.size() - pos_);
      pos_ += k;
      n -= k;
    }
    return true;
  }

  static std::optional<std::size_t> content_length(const std::string& header) {
    std::optional<std::size_t> out;
    std::size_t i = 0;
    while (i <= header.size()) {
      std::size_t e = header.find("\r\n", i);
      if (e == std::string::npos) e = header.size();
      const std::string line = header.substr(i, e - i);
      i = e + 2;
      const std::size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string name = line.substr(0, colon);
      std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
      if (name != "content-length") continue;
      std::size_t a = colon + 1, b = line.size();
      while (a < b && (line[a] == ' ' || line[a] == '\t')) ++a;
      while (b > a && (line[b - 1] == ' ' || line[b - 1] == '\t')) --b;
      if (a == b || b - a > 18) return std::nullopt;
      std::size_t v = 0;
      for (std::size_t k = a; k < b; ++k) {
        if (line[k] < '0' || line[k] > '9') return std::nullopt;
        v = v * 10 + static_cast<std::size_t>(line[k] - '0');
      }
      out = v;
    }
    return out;
  }

  LspInput& in_;
  std::size_t max_body_;
  std::string buf_;
  std::size_t pos_ = 0;
};

// ---- URIs -------------------------------------------------------------------------------------

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// file:///a/b%20c.mls -> /a/b c.mls; other schemes (untitled:) are kept as the document's key.
std::string path_of_uri(const std::string& uri) {
  if (uri.rfind("file://", 0) != 0) return uri;
  std::string rest = uri.substr(7);
  const std::size_t slash = rest.find('/');
  rest = slash == std::string::npos ? "/" : rest.substr(slash);  // drop an authority ("localhost")
  std::string out;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size() + 0 && hex_value(rest[i + 1]) >= 0 && hex_value(rest[i + 2]) >= 0) {
      out += static_cast<char>(hex_value(rest[i + 1]) * 16 + hex_value(rest[i + 2]));
      i += 2;
    } else {
      out += rest[i];
    }
  }
  return out;
}

std::string uri_of_path(const std::string& path) {
  if (path.empty() || path[0] != '/') return path;
  static const char* hex = "0123456789ABCDEF";
  std::string out = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// ---- JSON helpers -----------------------------------------------------------------------------

struct BadParams {
  std::string why;
};

const json& member(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) throw BadParams{std::string("missing '") + key + "'"};
  return j[key];
}

std::string string_member(const json& j, const char* key) {
  const json& v = member(j, key);
  if (!v.is_string()) throw BadParams{std::string("'") + key + "' is not a string"};
  return v.get<std::string>();
}

std::uint32_t index_member(const json& j, const char* key) {
  const json& v = member(j, key);
  if (v.is_number_unsigned())
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(v.get<std::uint64_t>(), UINT32_MAX));
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0)
    return static_cast<std::uint32_t>(std::min<std::int64_t>(v.get<std::int64_t>(), UINT32_MAX));
  throw BadParams{std::string("'") + key + "' is not a non-negative integer"};
}

TextPos position_of(const json& j) { return TextPos{index_member(j, "line"), index_member(j, "character")}; }

json position_json(TextPos p) { return json{{"line", p.line}, {"character", p.character}}; }
json range_json(const TextRange& r) { return json{{"start", position_json(r.start)}, {"end", position_json(r.end)}}; }

bool ranges_meet(const TextRange& a, const TextRange& b) {
  auto before = [](TextPos x, TextPos y) { return x.line < y.line || (x.line == y.line && x.character < y.character); };
  return !before(a.end, b.start) && !before(b.end, a.start);
}

int symbol_kind(SymbolInfo::Kind k) {
  switch (k) {
    case SymbolInfo::Kind::function: return 12;
    case SymbolInfo::Kind::convention: return 10;  // Enum
    case SymbolInfo::Kind::preset: return 19;      // Object
    case SymbolInfo::Kind::sweep:
    case SymbolInfo::Kind::search: return 24;     // Event
    case SymbolInfo::Kind::unit: return 14;       // Constant
    case SymbolInfo::Kind::dimension: return 26;  // TypeParameter
    case SymbolInfo::Kind::variable: break;
  }
  return 13;  // Variable
}

// ---- the server -------------------------------------------------------------------------------

class Server {
 public:
  Server(const std::function<void(std::string_view)>& write, const LspOptions& opt)
      : write_(write),
        own_(opt.workspace ? nullptr : std::make_unique<Workspace>()),
        ws_(opt.workspace ? *opt.workspace : *own_) {
    ws_.close_all();
    ws_.stdlib_dir = opt.stdlib_dir;
    ws_.core_options = core_options();
    ws_.limits.hover_millis = opt.hover_millis;
  }
  // A workspace given by the caller outlives the input its `cancelled` hook reads.
  ~Server() { ws_.limits.cancelled = nullptr; }
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  int run(Framer& in) {
    // A hover's evaluation stops when the client sends anything else (the next keystroke).
    ws_.limits.cancelled = [&in] { return in.pending(); };
    std::string body, why;
    for (;;) {
      if (!dirty_.empty() && !in.pending()) publish_dirty();
      switch (in.next(body, why)) {
        case Framer::R::eof: return shutdown_ ? kLspExitOk : kLspExitUnclean;
        case Framer::R::bad: send_error(json(nullptr), kParseError, "bad framing: " + why); continue;
        case Framer::R::message: break;
      }
      // A message that needs more memory than mls may use (a 64 MiB array of numbers under a
      // low MLS_MAX_MEMORY) is answered and dropped, as a malformed one is: the server goes on.
      try {
        if (const std::optional<int> rc = message(body)) return *rc;
      } catch (const std::bad_alloc&) {
        body = std::string();
        send_error(json(nullptr), kInternalError, "out of memory: the message needs more memory than mls may use");
      }
    }
  }

 private:
  void send(const json& j) {
    const std::string text = j.dump(-1, ' ', false, json::error_handler_t::replace);
    write_("Content-Length: " + std::to_string(text.size()) + "\r\n\r\n" + text);
  }
  void send_error(const json& id, int code, const std::string& msg) {
    send(json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", msg}}}});
  }

  // One message; the exit code when it was `exit`.
  std::optional<int> message(const std::string& body) {
    // Nesting is bounded while parsing: a value millions of levels deep (well under the
    // message size cap) is refused before it is built, never copied or printed.
    const BoundedJson parsed = parse_bounded_json(body);
    if (!parsed.ok) {
      send_error(json(nullptr), kParseError,
                 parsed.too_deep
                     ? "the message nests arrays or objects deeper than " + std::to_string(kMaxJsonDepth) + " levels"
                 : parsed.too_many ? "the message holds more than " + std::to_string(kMaxJsonValues) + " JSON values"
                                   : std::string("the message is not JSON"));
      return std::nullopt;
    }
    const json& msg = parsed.value;
    if (!msg.is_object() || !msg.contains("method") || !msg["method"].is_string()) {
      // A response to a request of ours (we send none) is ignored; anything else is invalid.
      if (!(msg.is_object() && msg.contains("id") && (msg.contains("result") || msg.contains("error"))))
        send_error(json(nullptr), kInvalidRequest, "not a JSON-RPC request or notification");
      return std::nullopt;
    }
    const std::string method = msg["method"].get<std::string>();
    static const json no_params = json::object();
    const json& params = msg.contains("params") ? msg["params"] : no_params;
    if (!msg.contains("id")) {
      if (method == "exit") return shutdown_ ? kLspExitOk : kLspExitUnclean;
      try {
        if (initialized_) notification(method, params);
      } catch (...) {
        // A notification has no reply: a malformed one is dropped.
      }
      return std::nullopt;
    }
    const json& id = msg["id"];
    if (!id.is_number_integer() && !id.is_number_unsigned() && !id.is_string()) {
      send_error(json(nullptr), kInvalidRequest, "the id is neither a number nor a string");
      return std::nullopt;
    }
    if (!initialized_ && method != "initialize") {
      send_error(id, kServerNotInitialized, "initialize first");
      return std::nullopt;
    }
    if (shutdown_) {
      send_error(id, kInvalidRequest, "the server is shutting down");
      return std::nullopt;
    }
    try {
      std::optional<json> result = request(method, params);
      if (!result)
        send_error(id, kMethodNotFound,
                   "unknown method '" + (method.size() > 100 ? method.substr(0, 100) + "..." : method) + "'");
      else
        send(json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(*result)}});
    } catch (const BadParams& e) {
      send_error(id, kInvalidParams, e.why);
    } catch (const json::exception& e) {
      send_error(id, kInvalidParams, e.what());
    } catch (const std::bad_alloc&) {
      send_error(id, kInternalError, "out of memory");
    } catch (const std::exception& e) {
      send_error(id, kInternalError, e.what());
    }
    return std::nullopt;
  }

  void notification(const std::string& method, const json& params) {
    if (method == "textDocument/didOpen") {
      const json& doc = member(params, "textDocument");
      open(string_member(doc, "uri"), string_member(doc, "text"));
    } else if (method == "textDocument/didChange") {
      const std::string uri = string_member(member(params, "textDocument"), "uri");
      const std::string path = path_of_uri(uri);
      if (!texts_.count(path)) return;
      std::string text = texts_[path];
      const json& changes = member(params, "contentChanges");
      if (!changes.is_array()) return;
      for (const json& c : changes) {
        if (c.is_object() && c.contains("range")) {
          // Incremental (we ask for full text, but a client may send ranges anyway).
          const json& r = c["range"];
          const std::size_t a = text_offset(text, position_of(member(r, "start")));
          const std::size_t b = text_offset(text, position_of(member(r, "end")));
          text.replace(std::min(a, b), b > a ? b - a : 0, string_member(c, "text"));
        } else {
          text = string_member(c, "text");
        }
      }
      open(uri, std::move(text));
    } else if (method == "textDocument/didClose") {
      const std::string uri = string_member(member(params, "textDocument"), "uri");
      const std::string path = path_of_uri(uri);
      ws_.close(path);
      texts_.erase(path);
      dirty_.erase(uri);
      for (auto& [u, _] : uris_)
        if (texts_.count(path_of_uri(u))) dirty_.insert(u);  // importers see the file on disk again
      send(json{{"jsonrpc", "2.0"},
                {"method", "textDocument/publishDiagnostics"},
                {"params", {{"uri", uri}, {"diagnostics", json::array()}}}});
    }
    // Everything else ($/cancelRequest, didSave, workspace/...) needs nothing from us.
  }

  void open(const std::string& uri, std::string text) {
    const std::string path = path_of_uri(uri);
    uris_[uri] = path;
    paths_[path] = uri;
    texts_[path] = text;
    ws_.open(path, std::move(text));
    // Other documents may import this one: re-check every open document.
    for (auto& [u, _] : uris_)
      if (texts_.count(path_of_uri(u))) dirty_.insert(u);
  }

  std::string uri_of(const std::string& path) const {
    auto it = paths_.find(path);
    return it != paths_.end() ? it->second : uri_of_path(path);
  }

  void publish_dirty() {
    for (const std::string& uri : dirty_) {
      json diags = json::array();
      for (const WsDiagnostic& d : ws_.diagnostics(path_of_uri(uri))) diags.push_back(diagnostic_json(d));
      send(json{{"jsonrpc", "2.0"},
                {"method", "textDocument/publishDiagnostics"},
                {"params", {{"uri", uri}, {"diagnostics", std::move(diags)}}}});
    }
    dirty_.clear();
  }

  json diagnostic_json(const WsDiagnostic& d) const {
    std::string message = d.message;
    for (const auto& h : d.help) message += "\nhelp: " + h;
    json related = json::array();
    for (const auto& [loc, text] : d.related)
      related.push_back({{"location", {{"uri", uri_of(loc.file)}, {"range", range_json(loc.range)}}},
                         {"message", text.empty() ? d.message : text}});
    json j{{"range", range_json(d.range)},
           {"severity", d.error ? 1 : 2},
           {"code", d.code},
           {"source", "mls"},
           {"message", message}};
    if (!related.empty()) j["relatedInformation"] = std::move(related);
    if (!d.suggestions.empty()) j["data"] = {{"suggestions", d.suggestions}};
    return j;
  }

  std::string doc_path(const json& params) {
    const std::string path = path_of_uri(string_member(member(params, "textDocument"), "uri"));
    if (!texts_.count(path)) throw BadParams{"the document is not open"};
    return path;
  }

  json locations_json(const std::vector<Location>& ls) const {
    json out = json::array();
    for (const auto& l : ls) out.push_back({{"uri", uri_of(l.file)}, {"range", range_json(l.range)}});
    return out;
  }

  // The result of a request, or nullopt for an unknown method.
  std::optional<json> request(const std::string& method, const json& params) {
    if (method == "initialize") {
      initialized_ = true;
      return json{{"capabilities",
                   {{"positionEncoding", "utf-16"},
                    {"textDocumentSync", {{"openClose", true}, {"change", 1}}},
                    {"hoverProvider", true},
                    {"definitionProvider", true},
                    {"referencesProvider", true},
                    {"completionProvider", {{"triggerCharacters", {"."}}}},
                    {"documentSymbolProvider", true},
                    {"codeActionProvider", {{"codeActionKinds", {"quickfix"}}}}}},
                  {"serverInfo", {{"name", "mls"}, {"version", kVersion}}}};
    }
    if (method == "shutdown") {
      shutdown_ = true;
      return json(nullptr);
    }
    if (method == "textDocument/hover") {
      const std::optional<HoverInfo> h = ws_.hover(doc_path(params), position_of(member(params, "position")));
      if (!h) return json(nullptr);
      return json{{"contents", {{"kind", "markdown"}, {"value", h->markdown}}}, {"range", range_json(h->range)}};
    }
    if (method == "textDocument/definition")
      return locations_json(ws_.definition(doc_path(params), position_of(member(params, "position"))));
    if (method == "textDocument/references") {
      bool with_decl = true;
      if (params.contains("context") && params["context"].is_object() &&
          params["context"].contains("includeDeclaration") && params["context"]["includeDeclaration"].is_boolean())
        with_decl = params["context"]["includeDeclaration"].get<bool>();
      return locations_json(ws_.references(doc_path(params), position_of(member(params, "position")), with_decl));
    }
    if (method == "textDocument/completion") {
      const CompletionList c = ws_.completion(doc_path(params), position_of(member(params, "position")));
      json items = json::array();
      for (std::size_t i = 0; i < c.labels.size() && i < kMaxCompletionItems; ++i)
        items.push_back(
            {{"label", c.labels[i]}, {"textEdit", {{"range", range_json(c.replace)}, {"newText", c.labels[i]}}}});
      return json{{"isIncomplete", c.labels.size() > kMaxCompletionItems}, {"items", std::move(items)}};
    }
    if (method == "textDocument/documentSymbol") {
      json out = json::array();
      for (const SymbolInfo& s : ws_.symbols(doc_path(params))) {
        json j{{"name", s.name},
               {"kind", symbol_kind(s.kind)},
               {"range", range_json(s.range)},
               {"selectionRange", range_json(s.selection)}};
        if (!s.detail.empty()) j["detail"] = s.detail;
        out.push_back(std::move(j));
      }
      return out;
    }
    if (method == "textDocument/codeAction") return code_actions(params);
    return std::nullopt;
  }

  // Did-you-mean quick fixes: replace the word a diagnostic points at with its suggestion.
  json code_actions(const json& params) {
    const std::string path = doc_path(params);
    const std::string uri = string_member(member(params, "textDocument"), "uri");
    const json& r = member(params, "range");
    const TextRange want{position_of(member(r, "start")), position_of(member(r, "end"))};
    const std::string& text = texts_[path];
    json out = json::array();
    for (const WsDiagnostic& d : ws_.diagnostics(path)) {
      if (d.suggestions.empty() || !ranges_meet(d.range, want)) continue;
      const std::size_t a = text_offset(text, d.range.start), b = text_offset(text, d.range.end);
      if (b <= a || b - a > 200) continue;
      // Only a single word is replaced: a span over an expression would lose text.
      const bool word = std::all_of(text.begin() + static_cast<std::ptrdiff_t>(a),
                                    text.begin() + static_cast<std::ptrdiff_t>(b), [](char c) {
                                      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '/' ||
                                             c == '^' || c == '%' || c == '-';
                                    });
      if (!word) continue;
      for (const std::string& s : d.suggestions) {
        json edit{{"range", range_json(d.range)}, {"newText", s}};
        out.push_back({{"title", "replace with '" + s + "'"},
                       {"kind", "quickfix"},
                       {"isPreferred", out.empty()},
                       {"diagnostics", json::array({diagnostic_json(d)})},
                       {"edit", {{"changes", {{uri, json::array({edit})}}}}}});
      }
    }
    return out;
  }

  const std::function<void(std::string_view)>& write_;
  std::unique_ptr<Workspace> own_;
  Workspace& ws_;
  bool initialized_ = false;
  bool shutdown_ = false;
  std::set<std::string> dirty_;               // uris whose diagnostics are due
  std::map<std::string, std::string> uris_;   // uri -> path
  std::map<std::string, std::string> paths_;  // path -> uri
  std::map<std::string, std::string> texts_;  // path -> text of open documents
};

}  // namespace

int serve_lsp(LspInput& in, const std::function<void(std::string_view)>& write, const LspOptions& opt) {
  int rc = kLspExitUnclean;
  try {
    // Deeply nested JSON and mls text recurse: the whole server runs on the pipeline stack.
    run_on_pipeline_stack([&] {
      Framer framer(in, opt.max_message_bytes);
      Server server(write, opt);
      rc = server.run(framer);
    });
  } catch (const std::bad_alloc&) {
    rc = info(ErrorKind::limit_memory).exit_code;  // out of memory outside a message (docs/editors.md)
  } catch (...) {
    rc = 70;  // internal error (docs/editors.md)
  }
  return rc;
}

}  // namespace mls
