// session_test.cpp — the REPL session: inputs are transactions (a failed one leaves every table
// as it was), redefinition rules, `ans`, choices, probes, and Tab completion candidates.
#include "interpreter/tooling/session.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "grammar/symbols.hpp"
#include "interpreter/tooling/completion.hpp"
#include "interpreter/tooling/driver.hpp"
#include "interpreter/tooling/session_text.hpp"

using namespace mls;

namespace {

// Everything an input can add to, in one comparable value.
struct State {
  std::vector<std::size_t> sizes;
  std::vector<std::string> names;
  bool operator==(const State& o) const { return sizes == o.sizes && names == o.names; }
};

State state(ReplSession& s) {
  Program& p = s.core().session().prog;
  return State{{p.sources.size(), p.modules.size(), p.globals.size(), p.functions.size(), p.conventions.size(),
                p.presets.size(), p.scope().size(), p.main_stmts.size(), p.deps.atom_count(), p.deps.site_count(),
                p.units.all_unit_names().size(), p.diags.size()},
               p.global_names()};
}

Outcome in(ReplSession& s, const std::string& text) {
  static std::uint32_t line = 1;
  return s.submit(text, line++, true);
}

std::string answer(ReplSession& s, const std::string& text) {
  Outcome o = in(s, text);
  REQUIRE_MESSAGE(o.status == Outcome::Status::ok, o.diagnostics);
  REQUIRE(!o.run.results.empty());
  const Shown& r = o.run.results.back();
  return format_value(r.value, r.display) + (r.display.unit.empty() ? "" : " " + r.display.unit);
}

const std::vector<std::string> kMeta = {":explain", ":help", ":use", ":units"};

ReplSession& fresh(ReplSession& s) {
  const Outcome o = s.start({});
  REQUIRE_MESSAGE(o.status == Outcome::Status::ok, o.diagnostics);
  return s;
}

}  // namespace

TEST_CASE("a failed input leaves every table as it was") {
  ReplSession s;
  fresh(s);
  REQUIRE(in(s, "let a = 1 GB").status == Outcome::Status::ok);
  const State before = state(s);
  const char* failing[] = {
      "let b = 2\nlet c = b + 1 s",                      // check error after declarations
      "let d = 1 / 0",                                   // runtime error in a definition
      "unit furlong = 201 s\nlet e = 1 furlong + 1 GB",  // a unit declared, then an error
      "convention cc \"x\" {\n a: \"a\"\n b: \"b\"\n default a\n}\nlet g = match cc { a => 1 }",
      "use nosuch = thing",                                              // configuration error
      "let a = a + 1 s",                                                 // failed redefinition
      "let a = 7\nlet z = 1 GB + 1 s",                                   // a redefinition, then an error
      "unit fortnight = 14 day\ndisplay fortnight\nlet e = 1 GB + 1 s",  // a display unit
      "let max = 3",                                                     // a prelude name
      "sweep t over x in [1, 0] { show y = 1 / x }",                     // runtime error in a sweep
      "let h = (1 +",                                                    // unfinished at the end
  };
  for (const char* text : failing) {
    CAPTURE(text);
    const Outcome o = in(s, text);
    CHECK(o.status == Outcome::Status::failed);
    CHECK(o.exit_code == 65);
    CHECK_FALSE(o.diagnostics.empty());
    CHECK(state(s) == before);
  }
  CHECK_FALSE(s.core().session().prog.units.lookup_atom("furlong").has_value());
  CHECK(answer(s, "a") == "1 GB");
  CHECK(answer(s, "30 day") == "30 day");  // not in the rolled-back display unit
  CHECK(answer(s, "a") == "1 GB");         // the answer input bound `ans`, nothing else
}

TEST_CASE("a successful input drops its undo entries") {
  // Redefinitions and `ans` log the bindings they replace, for rollback; once the input has
  // succeeded nothing rolls back past it, so a long session's log stays as small as one input.
  ReplSession s;
  fresh(s);
  for (int i = 1; i <= 20; ++i) {
    REQUIRE(in(s, "let x = " + std::to_string(i) + " GB").status == Outcome::Status::ok);
    CHECK(answer(s, "x * 2") == std::to_string(2 * i) + " GB");
    CHECK(s.core().session().prog.undo_entries() == 0);
  }
  // A failed input after them still rolls back to exactly where it began.
  const State before = state(s);
  CHECK(in(s, "let x = 1\nlet q = 1 GB + 1 s").status == Outcome::Status::failed);
  CHECK(state(s) == before);
  CHECK(answer(s, "x") == "20 GB");
}

TEST_CASE("an error inside a function body is reported each time the call is typed") {
  // The checker memoises instantiations; a failed input must not leave its memo behind.
  ReplSession s;
  fresh(s);
  REQUIRE(in(s, "let f(x) = x + 1 s").status == Outcome::Status::ok);
  CHECK(answer(s, "f(1 s)") == "2 s");  // f has a memo list before the failing inputs
  for (int i = 0; i < 2; ++i) {
    const Outcome o = in(s, "f(2 GB)");
    CHECK(o.status == Outcome::Status::failed);
    CHECK(o.diagnostics.find("cannot add") != std::string::npos);
  }
  CHECK(answer(s, "f(2 s)") == "3 s");
  CHECK(in(s, "f(3 GB)").status == Outcome::Status::failed);
}

TEST_CASE("names typed at the prompt can be redefined, prelude and file names cannot") {
  ReplSession s;
  fresh(s);
  REQUIRE(in(s, "let x = 1 GB\nlet y = x * 2").status == Outcome::Status::ok);
  REQUIRE(in(s, "let x = 5 GB").status == Outcome::Status::ok);
  CHECK(answer(s, "x") == "5 GB");
  CHECK(answer(s, "y") == "2 GB");                                // y keeps the x it was defined with
  REQUIRE(in(s, "let x = x * 2").status == Outcome::Status::ok);  // reads the previous x
  CHECK(answer(s, "x") == "10 GB");
  REQUIRE(in(s, "let u_fact(n) = if n == 0 then 1 else n * u_fact(n - 1)").status == Outcome::Status::ok);
  REQUIRE(in(s, "let u_fact(n) = if n == 0 then 2 else n * u_fact(n - 1)").status == Outcome::Status::ok);
  CHECK(answer(s, "u_fact(3)") == "12");  // the recursion calls the new definition
  const Outcome o = in(s, "let sqrt = 3");
  CHECK(o.status == Outcome::Status::failed);
  CHECK(o.diagnostics.find("cannot") != std::string::npos);
}

TEST_CASE("ans is the last answer and follows later choices") {
  ReplSession s;
  fresh(s);
  CHECK(in(s, "ans").status == Outcome::Status::failed);
  REQUIRE(in(s,
             "convention u_m \"x\" {\n  one: \"1\"\n  two: \"2\"\n  default one\n}\nlet u_v = match u_m { one => 1 s, "
             "two => "
             "2 s }")
              .status == Outcome::Status::ok);
  CHECK(answer(s, "u_v * 3") == "3 s");
  CHECK(answer(s, "ans * 2") == "6 s");  // ans refers to the previous answer
  const Outcome u = in(s, "use u_m = two");
  REQUIRE(u.status == Outcome::Status::ok);
  REQUIRE(u.changes.size() == 1);
  CHECK(u.changes[0] == "u_m = two (was one)");
  CHECK(answer(s, "ans") == "12 s");
  CHECK(answer(s, "241200 s") == "67 h");  // a human unit when no `-> unit` is given
}

TEST_CASE("probes and completion leave no trace") {
  ReplSession s;
  fresh(s);
  REQUIRE(in(s, "let u_node = { gpus: 8, nics: 4, hbm: { bw: 3 TB/s } }\nlet u_gap = 3 s").status ==
          Outcome::Status::ok);
  const State before = state(s);
  std::string err;
  bool called = false;
  CHECK(s.probe(
      "u_node.hbm.bw * 2", 1, [&](const Probe& pr) { called = pr.type && pr.type->k == Type::K::num; }, err));
  CHECK(called);
  CHECK_FALSE(s.probe(
      "u_node.nope", 1, [](const Probe&) {}, err));
  CHECK(err.find("no field 'nope'") != std::string::npos);
  CHECK(state(s) == before);

  auto cands = [&](const std::string& line) { return complete(s, line, kMeta).candidates; };
  auto has = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  CHECK(cands("u_no") == std::vector<std::string>{"u_node"});
  CHECK(has(cands("clo"), "close("));
  CHECK(cands("u_node.") == std::vector<std::string>{"gpus", "hbm", "nics"});
  CHECK(cands("2 * u_node.hbm.b") == std::vector<std::string>{"bw"});
  REQUIRE(in(s, "let u_train(g, tp = 1) = { step: g * 1 s, stages: tp }").status == Outcome::Status::ok);
  CHECK(cands("u_train(8, tp = 2).st") == std::vector<std::string>{"stages", "step"});
  CHECK(cands("u_train(8, tp = 2).").size() == 2);
  CHECK(cands("nosuch.x").empty());
  CHECK(cands("3.").empty());  // a decimal point, not a field
  const State after = state(s);
  (void)cands("u_train(1).");
  (void)cands("u_node.hbm.");
  CHECK(state(s) == after);
  CHECK(has(cands("3 Gi"), "GiB"));
  CHECK(has(cands("3 GB/m"), "min"));
  CHECK(cands("x3 Gi").empty());  // not after a number: no name starts with Gi
  CHECK(has(cands(":u"), ":use"));
  CHECK(complete(s, "let y = u_ga", kMeta).start == 8);

  REQUIRE(in(s, "convention u_par \"x\" {\n  tp: \"t\"\n  dp: \"d\"\n  default tp\n}").status == Outcome::Status::ok);
  CHECK(cands(":use u_pa") == std::vector<std::string>{"u_par="});
  CHECK(cands(":use u_par=") == std::vector<std::string>{"dp", "tp"});
  CHECK(cands("use u_par = d") == std::vector<std::string>{"dp"});
  CHECK(has(cands(":preset m"), "mls"));
  CHECK(has(cands(":units Ti"), "Time"));
  CHECK(common_prefix({"gpus", "gpu_mem"}) == "gpu");
}

TEST_CASE("load and reset") {
  ReplSession s;
  fresh(s);
  const Outcome missing = s.load("/nonexistent/file.mls");
  CHECK(missing.status == Outcome::Status::failed);
  CHECK(missing.exit_code == 66);
  REQUIRE(in(s, "let scratch = 1").status == Outcome::Status::ok);
  const Outcome r = s.reset();
  CHECK(r.status == Outcome::Status::ok);
  CHECK(in(s, "scratch").status == Outcome::Status::failed);
  CHECK(answer(s, "2 + 2") == "4");
}
