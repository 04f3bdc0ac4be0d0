// grammar_test.cpp — PEGTL's static analysis of the grammar, and what the grammar accepts.
// The only test translation unit that includes PEGTL (it costs seconds to compile).
#include "grammar/grammar.hpp"

#include <doctest/doctest.h>

#include <tao/pegtl/contrib/analyze.hpp>

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
