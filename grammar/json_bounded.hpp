// json_bounded.hpp — JSON text from outside (LSP messages, Hugging Face config.json) read with its
// nesting bounded while it is parsed, so nothing later (a copy, a dump) recurses over untrusted depth.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace mls {

// Deeper than any LSP message or config.json (a few levels); far below what a copy or a dump of
// nlohmann::json, which recurse, can take on any stack.
inline constexpr std::size_t kMaxJsonDepth = 64;
// More values than any LSP message or config.json holds (a document's text is one string; the
// largest value a config is checked against is a million-element array): a 64 MiB message of 30
// million numbers would build a ~0.5 GB DOM, and destroying it allocates as much again inside
// nlohmann's noexcept destructor (its flattening stack), which under a memory limit terminates.
inline constexpr std::size_t kMaxJsonValues = 2'000'000;

struct BoundedJson {
  nlohmann::json value;   // null unless ok
  bool ok = false;        // parsed, within the depth bound
  bool too_deep = false;  // refused: an array or object nested deeper than the bound
  bool too_many = false;  // refused: more than kMaxJsonValues values (arrays, objects, scalars)
};

namespace detail_json {

// nlohmann's DOM builder behind its SAX interface, refusing (stopping the parse) at the first
// array or object that opens deeper than `max`, or at the value past kMaxJsonValues: the deep or
// huge value is never built.
class DepthBoundedSax {
 public:
  using json = nlohmann::json;
  DepthBoundedSax(json& out, std::size_t max) : dom_(out, false), max_(max) {}
  bool null() { return value() && dom_.null(); }
  bool boolean(bool v) { return value() && dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return value() && dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return value() && dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const json::string_t& s) { return value() && dom_.number_float(v, s); }
  bool string(json::string_t& v) { return value() && dom_.string(v); }
  bool binary(json::binary_t& v) { return value() && dom_.binary(v); }
  bool start_object(std::size_t n) { return open() && dom_.start_object(n); }
  bool key(json::string_t& v) { return dom_.key(v); }
  bool end_object() {
    --depth_;
    return dom_.end_object();
  }
  bool start_array(std::size_t n) { return open() && dom_.start_array(n); }
  bool end_array() {
    --depth_;
    return dom_.end_array();
  }
  bool parse_error(std::size_t at, const std::string& token, const nlohmann::detail::exception& ex) {
    return dom_.parse_error(at, token, ex);
  }
  [[nodiscard]] bool too_deep() const { return too_deep_; }
  [[nodiscard]] bool too_many() const { return too_many_; }

 private:
  bool value() {
    if (++values_ <= kMaxJsonValues) return true;
    too_many_ = true;
    return false;
  }
  bool open() {
    if (!value()) return false;
    if (++depth_ <= max_) return true;
    too_deep_ = true;
    return false;
  }
  nlohmann::detail::json_sax_dom_parser<json> dom_;
  std::size_t max_;
  std::size_t depth_ = 0;
  std::size_t values_ = 0;
  bool too_deep_ = false;
  bool too_many_ = false;
};

}  // namespace detail_json

// `text` parsed as one JSON value, or not ok (a syntax error, nesting beyond `max_depth`, or more
// than kMaxJsonValues values).
inline BoundedJson parse_bounded_json(std::string_view text, std::size_t max_depth = kMaxJsonDepth) {
  BoundedJson out;
  nlohmann::json value;
  detail_json::DepthBoundedSax sax(value, max_depth);
  const bool parsed = nlohmann::json::sax_parse(text, &sax);
  out.too_deep = sax.too_deep();
  out.too_many = sax.too_many();
  out.ok = parsed && !out.too_deep && !out.too_many;
  // A refused parse leaves a partial value (at most max_depth deep): dropped.
  if (out.ok) out.value = std::move(value);
  return out;
}

// Byte offset of the first `[` or `{` that opens deeper than `max_depth` (strings skipped), or
// text.size(): where an error about a too-deep value points. A flat scan, no recursion.
inline std::size_t json_too_deep_at(std::string_view text, std::size_t max_depth = kMaxJsonDepth) {
  std::size_t depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return text.size();
}

}  // namespace mls
