// grammar_test.cpp — PEGTL's static analysis of the grammar, and what the grammar accepts.
// The only test translation unit that includes PEGTL (it costs seconds to compile).
#include "grammar/grammar.hpp"

#include <doctest/doctest.h>

#include <tao/pegtl/contrib/analyze.hpp>

#include "grammar/parse.hpp"

namespace p = tao::pegtl;
namespace g = mls::grammar;

namespace {
// True when `rule` followed by end of input matches the whole text.
template <typename Rule>
bool accepts(const std::string& text) {
  p::memory_input<> in(text, "test");
  try {
    return p::parse<p::seq<Rule, p::eof>>(in);
  } catch (const p::parse_error&) {
    return false;  // a must<> failed: rejected with a message
  }
}
}  // namespace

TEST_CASE("the grammar has no infinite loops or left recursion (pegtl::analyze)") {
  // analyze returns the number of problems it found (and prints them).
  CHECK(p::analyze<g::one_statement>(1) == 0);
  CHECK(p::analyze<g::repl_input>(1) == 0);
  CHECK(p::analyze<g::expr>(1) == 0);
}

TEST_CASE("statements") {
  CHECK(accepts<g::one_statement>("let x = 80 GB + 3 s"));
  CHECK(accepts<g::one_statement>("let ring(M, n, bw, alpha = 500 ns) = M / bw + alpha"));
  CHECK(accepts<g::one_statement>("show a = 1 h -> min @ 0.1, b = 2"));
  CHECK(accepts<g::one_statement>("sweep t over gpus in 8..8192 by *2, c in [60 s, 141.2 s] { show gpus }"));
  CHECK(accepts<g::one_statement>("search s over x in [1] { subject to x > 0 maximize x top 3 show x }"));
  CHECK(accepts<g::one_statement>("convention c \"d\" { a: \"one\" b: \"two\" default a }"));
  CHECK(accepts<g::one_statement>("preset p \"d\" extends mls { use c = a set x.y = 3 }"));
  CHECK(accepts<g::one_statement>("import \"other.mls\""));
  CHECK_FALSE(accepts<g::one_statement>("1 + 2"));       // a bare expression is not a statement
  CHECK_FALSE(accepts<g::one_statement>("let if = 3"));  // keywords are not names
}

TEST_CASE("numbers and units") {
  CHECK(accepts<g::expr>("1_000"));
  CHECK(accepts<g::expr>("989e12 FLOP/s"));
  CHECK(accepts<g::expr>("3.35 TB/s"));
  CHECK(accepts<g::expr>("820 g/kWh"));
  CHECK(accepts<g::expr>("1 s^-1"));
  CHECK(accepts<g::expr>("5 \xC2\xB5s"));    // the micro sign
  CHECK(accepts<g::expr>("1 kg\xC2\xB7m"));  // the middle dot joins units
  CHECK(accepts<g::expr>("92.4 %"));
  CHECK_FALSE(accepts<g::expr>("1e"));  // digits must follow the exponent mark
  CHECK_FALSE(accepts<g::expr>("1e+"));
  // A unit sits on its number's line: across a newline it is a separate name, so "1\nb"
  // is not one expression.
  CHECK_FALSE(accepts<g::expr>("1\nb"));
  CHECK(accepts<g::expr>("1 b"));
}

TEST_CASE("expressions") {
  CHECK(accepts<g::expr>("-2 ^ 2"));
  CHECK(accepts<g::expr>("not a and b or c"));
  CHECK(accepts<g::expr>("r with { a.b = 1, c: 2 }"));
  CHECK(accepts<g::expr>("match m { a | b => 1, _ => 2 }"));
  CHECK(accepts<g::expr>("if a then b else if c then d else e"));
  CHECK(accepts<g::expr>("{ let h = 2, total: h + 1 }.total"));
  CHECK(accepts<g::expr>("f(1, x = 2, y: 3)"));
  CHECK_FALSE(accepts<g::expr>("if a then b"));  // every if has an else
  CHECK_FALSE(accepts<g::expr>("(1 + 2"));
}

TEST_CASE("REPL input: statements or a bare expression") {
  CHECK(accepts<g::repl_input>("1 + 2"));
  CHECK(accepts<g::repl_input>("let x = 3; show x"));
  CHECK(accepts<g::repl_input>(""));
  CHECK_FALSE(accepts<g::repl_input>("let x ="));
}

TEST_CASE("syntax failures are classified where they are raised, not from their message text") {
  using mls::SyntaxFailure;
  const auto first = [](const std::string& text) {
    mls::Sources src;
    return mls::first_syntax_error(src, src.add("t.mls", text, false));
  };
  // An unclosed string at end of input is the closer kind (parse.unclosed, and the REPL keeps
  // reading), decided by the rule that raised it (string_close, an MLS_CLOSE entry).
  const auto str = first("let s = \"abc");
  REQUIRE(str);
  CHECK(str->failure == SyntaxFailure::unclosed);
  CHECK(str->pos == 12);
  CHECK(str->message == "expected '\"' to close the string");
  const auto paren = first("let x = (1 + 2\nlet y = 3\n");
  REQUIRE(paren);
  CHECK(paren->failure == SyntaxFailure::unclosed);
  const auto missing = first("let x = 1\nlet = 2\n");
  REQUIRE(missing);
  CHECK(missing->failure == SyntaxFailure::expected);
  CHECK(missing->pos == 14);
  // The two limits: PEGTL's nesting depth (raised by parse.cpp's depth_limit) and the operator chain.
  const auto deep = first("let x = " + std::string(mls::kMaxParseDepth + 5, '(') + "1");
  REQUIRE(deep);
  CHECK(deep->failure == SyntaxFailure::too_deep);
  std::string chain = "let x = 1";
  for (std::uint32_t i = 0; i <= mls::kMaxExprDepth; ++i) chain += " + 1";
  const auto links = first(chain);
  REQUIRE(links);
  CHECK(links->failure == SyntaxFailure::chain_too_long);
  CHECK(links->pos == 8);
  CHECK_FALSE(first("let x = 1\nshow x\n"));

  // The REPL's decision on the same classification: an unclosed string at the end keeps
  // reading; nesting too deep at the end is an error now, more lines would not help.
  const auto repl = [](const std::string& text, bool& incomplete) {
    mls::Sources src;
    mls::Diagnostics diags;
    (void)mls::parse_repl(src, src.add("<repl>", text, false), diags, incomplete);
    return diags.size();
  };
  bool incomplete = false;
  CHECK(repl("let s = \"abc", incomplete) == 0);
  CHECK(incomplete);
  CHECK(repl(std::string(mls::kMaxParseDepth + 5, '('), incomplete) == 1);
  CHECK_FALSE(incomplete);
}
