// json_bounded_test.cpp — JSON from outside parsed with its nesting bounded (grammar/json_bounded.hpp),
// and the diagnostics that must not echo input unbounded or show an opaque file (issue 38).
#include "grammar/json_bounded.hpp"

#include <doctest/doctest.h>

#include <string>

#include "grammar/diagnostic.hpp"

using namespace mls;

namespace {
std::string nested(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }
}  // namespace

TEST_CASE("nesting up to the bound parses; one level more is refused, not built") {
  const BoundedJson at = parse_bounded_json(nested(kMaxJsonDepth));
  CHECK(at.ok);
  CHECK_FALSE(at.too_deep);
  const BoundedJson over = parse_bounded_json(nested(kMaxJsonDepth + 1));
  CHECK_FALSE(over.ok);
  CHECK(over.too_deep);
  CHECK(over.value.is_null());
  // Millions deep: refused at once, without recursion.
  const BoundedJson deep = parse_bounded_json("{\"a\": " + nested(3'000'000) + "}");
  CHECK(deep.too_deep);
  // Objects count as arrays do.
  std::string objects;
  for (std::size_t i = 0; i <= kMaxJsonDepth; ++i) objects += "{\"a\": ";
  objects += "1" + std::string(kMaxJsonDepth + 1, '}');
  CHECK(parse_bounded_json(objects).too_deep);
  // A syntax error is not "too deep".
  const BoundedJson bad = parse_bounded_json("[1,");
  CHECK_FALSE(bad.ok);
  CHECK_FALSE(bad.too_deep);
}

TEST_CASE("more values than kMaxJsonValues are refused, not built") {
  auto flat = [](std::size_t n) {
    std::string t = "[";
    for (std::size_t i = 0; i < n; ++i) t += i ? ",0" : "0";
    return t + "]";
  };
  const BoundedJson at = parse_bounded_json(flat(kMaxJsonValues - 1));  // and the array itself
  CHECK(at.ok);
  CHECK(at.value.size() == kMaxJsonValues - 1);
  const BoundedJson over = parse_bounded_json(flat(kMaxJsonValues));
  CHECK_FALSE(over.ok);
  CHECK(over.too_many);
  CHECK_FALSE(over.too_deep);
  CHECK(over.value.is_null());
}

TEST_CASE("json_too_deep_at points at the first bracket past the bound, skipping strings") {
  const std::string t = "{\"k\": \"[[[[\", \"v\": " + nested(kMaxJsonDepth) + "}";
  const std::size_t at = json_too_deep_at(t);
  CHECK(at == t.find('[', t.find("\"v\"")) + kMaxJsonDepth - 1);
  CHECK(json_too_deep_at("[1, [2]]") == 8);
}

TEST_CASE("a message echoing a megabyte is cut in the middle; an opaque file shows no line") {
  Diagnostic d = make_diagnostic(ErrorKind::name_unknown, Span{}, "unknown name '" + std::string(1'000'000, 'a') + "'");
  CHECK(d.message.size() < 1100);
  CHECK(d.message.substr(0, 14) == "unknown name '");
  CHECK(d.message.back() == '\'');
  Sources src;
  const FileId f = src.add("secret.txt", "SECRET_LINE_1 password=hunter2\n", false);
  src.set_opaque(f, true);
  const std::string shown = render(src, make_diagnostic(ErrorKind::hf_parse, Span{f, 0, 1}, "not valid JSON"));
  CHECK(shown.find("secret.txt:1:1") != std::string::npos);
  CHECK(shown.find("SECRET") == std::string::npos);
}
