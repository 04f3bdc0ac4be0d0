// natives_test.cpp — the one table of natives: every row names its compiled form on the fast sweep
// path or says why it has none, and the compiled ones really compile (the sweep's engine says so).
#include "interpreter/semantics/natives.hpp"

#include <doctest/doctest.h>

#include <map>
#include <string>

#include "harness.hpp"

using namespace mls;

namespace {
// A call of each compiled native on the sweep variable x (1..N). A native added to the table with
// an operation needs a line here, or the test below fails naming it.
const std::map<std::string, std::string>& sample_calls() {
  static const std::map<std::string, std::string> calls = {
      {"max", "max(x, 3)"},
      {"min", "min(x, 3)"},
      {"clamp", "clamp(x, 2, 5)"},
      {"abs", "abs(x - 9)"},
      {"floor", "floor(x / 3)"},
      {"ceil", "ceil(x / 3)"},
      {"round", "round(x / 3)"},
      {"sqrt", "sqrt(x)"},
      {"exp", "exp(x / 100)"},
      {"ln", "ln(x)"},
      {"log2", "log2(x)"},
      {"log10", "log10(x)"},
      {"pow", "pow(x, 1.5)"},
      {"len", "len([x, x])"},
      {"sum", "sum([x, x])"},
      {"at", "at([x, 2 * x], 1)"},
      {"field_or", "field_or({a = x}, \"b\", 0)"},
      {"has_field", "if has_field({a = x}, \"a\") then x else 0"},
      {"error", "if x > 1000000 then error(\"never\") else x"},
      {"erlang_c", "erlang_c(x + 10, 5)"},
      {"validated", "validated(\"none\", x)"},
      {"validated_in", "validated_in(\"none\", {accelerator: \"A\"}, x)"},
      {"note", "note(\"a caveat\", x)"},
      {"borrowed", "borrowed(\"A.b\", \"from C\", x)"},
  };
  return calls;
}

std::string engine_of(const std::string& call) {
  Harness s;
  s.prog.reader = [&](const std::string& path) -> std::optional<std::string> {
    if (path != "main.mls") return std::nullopt;
    return "sweep t over x in 1..64 { show x, y = " + call + " }\n";
  };
  if (!prepare(s, "main.mls")) return "(does not check: " + s.prog.diags.items().front().message + ")";
  RunOptions opt;
  opt.exact_limit = 0;  // binary64 from the first point, so the compiled path is tried
  auto r = execute(s, Selection{}, opt);
  if (!r || r->tables.empty()) return "(does not run)";
  return r->tables.front().engine;
}
}  // namespace

TEST_CASE("every native has a compiled form or a stated reason") {
  for (const NativeImpl& n : native_table()) {
    CAPTURE(std::string(n.name));
    if (n.fast.op == FastOp::none) {
      REQUIRE(n.fast.why_not != nullptr);
      CHECK(std::string(n.fast.why_not).size() > 10);
    } else {
      CHECK(n.fast.why_not == nullptr);
    }
  }
}

TEST_CASE("natives with a compiled form run on the compiled sweep path") {
  for (const NativeImpl& n : native_table()) {
    if (n.fast.op == FastOp::none) continue;
    CAPTURE(std::string(n.name));
    const auto it = sample_calls().find(n.name);
    REQUIRE_MESSAGE(it != sample_calls().end(), "add a sample call of this native to natives_test.cpp");
    CHECK(engine_of(it->second) == "binary64, compiled");
  }
  // The control: a sweep that cannot be compiled says so (and why) in its engine.
  CHECK(engine_of("at([x, 2 * x], x - x)").rfind("binary64, evaluator (", 0) == 0);
  // A band is provenance computed per branch signature: a domain that differs between points of
  // one signature would give some rows another domain's band, so such a sweep stays evaluated.
  CHECK(engine_of("validated_in(\"none\", {accelerator: if x > 3 then \"A\" else \"B\"}, x)") ==
        "binary64, evaluator (a validation domain that varies within the sweep)");
}
