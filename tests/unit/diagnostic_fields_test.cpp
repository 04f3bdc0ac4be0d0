// diagnostic_fields_test.cpp — diagnostics carry what they are about as fields (subject,
// expected/got, suggestions), so that front ends act on them without reading the message.
#include <doctest/doctest.h>

#include "grammar/diagnostic.hpp"
#include "harness.hpp"

using namespace mls;

namespace {
Diagnostic first_error(const std::string& text) {
  Harness s;
  REQUIRE_FALSE(prepare(s, "main.mls", text));
  for (const auto& d : s.prog.diags.items())
    if (d.severity == Severity::error) return d;
  FAIL("no error");
  return {};
}
}  // namespace

TEST_CASE("an unknown name: subject and did-you-mean") {
  const Diagnostic d = first_error("let tokens = 3\nshow tokenz * 2\n");
  CHECK(d.kind == ErrorKind::name_unknown);
  CHECK(d.subject == "tokenz");
  REQUIRE(d.suggestions.size() == 1);
  CHECK(d.suggestions[0] == "tokens");
  CHECK(d.help.at(0) == "did you mean 'tokens'?");  // the same, in words
}

TEST_CASE("a duplicate name: subject") {
  const Diagnostic d = first_error("let seq = 1\nlet seq = 2\n");
  CHECK(d.kind == ErrorKind::name_duplicate);
  CHECK(d.subject == "seq");
}

TEST_CASE("a dimension mismatch: expected and got") {
  const Diagnostic d = first_error("show 1 GB + 2 s\n");
  CHECK(d.kind == ErrorKind::dim_mismatch);
  CHECK_FALSE(d.expected.empty());
  CHECK_FALSE(d.got.empty());
  CHECK(d.expected != d.got);
  CHECK(d.message.find(d.expected) != std::string::npos);
  CHECK(d.message.find(d.got) != std::string::npos);
}

TEST_CASE("suggest: nothing close, nothing added") {
  Diagnostic d;
  CHECK_FALSE(suggest(d, "zzzzzz", {"alpha", "beta"}));
  CHECK(d.suggestions.empty());
  CHECK(d.help.empty());
  CHECK(suggest(d, "alpah", {"alpha", "beta"}, '"'));
  CHECK(d.help.at(0) == "did you mean \"alpha\"?");
}
