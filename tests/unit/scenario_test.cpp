// scenario_test.cpp — the command line's facade (tooling/scenario): a run, then questions about
// it whose failures arrive as structured diagnostics (kind, suggestions) rather than exceptions,
// and the precondition (a run first) kept as a diagnostic, not a crash.
#include "interpreter/tooling/scenario.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "interpreter/results/diff.hpp"
#include "interpreter/results/format.hpp"
#include "interpreter/tooling/explain.hpp"
#include "interpreter/tooling/sensitivity.hpp"

using namespace mls;

namespace {

const std::string kText = "let gpus = 512\nlet hours = gpus * 2 h\nshow total = hours\n";

}  // namespace

TEST_CASE("scenario: run, then explain a result and ask for an unknown one") {
  Scenario s;
  REQUIRE(s.prepare("<test>", kText));
  const auto r = s.run(Selection{}, RunOptions{});
  REQUIRE(r);
  const auto e = s.explain(*r, "total", RunOptions{});
  REQUIRE(e);
  CHECK(e->name == "total");
  CHECK(s.diagnostics().size() == 0);

  CHECK_FALSE(s.explain(*r, "totl", RunOptions{}));
  REQUIRE(s.diagnostics().size() == 1);
  const Diagnostic& d = s.diagnostics().items().front();
  CHECK(d.kind == ErrorKind::name_unknown);
  REQUIRE_FALSE(d.suggestions.empty());
  CHECK(d.suggestions.front() == "total");
}

TEST_CASE("scenario: sensitivity of a result through the facade") {
  Scenario s;
  REQUIRE(s.prepare("<test>", kText));
  const auto r = s.run(Selection{}, RunOptions{});
  REQUIRE(r);
  const auto sens = s.sensitivity(Selection{}, *r, "total", RunOptions{});
  REQUIRE(sens);
  CHECK(sens->name == "total");
}

TEST_CASE("scenario: a question before a run is a diagnostic") {
  Scenario s;
  REQUIRE(s.prepare("<test>", kText));
  CHECK_FALSE(s.explain(RunResult{}, "total", RunOptions{}));
  REQUIRE(s.diagnostics().size() == 1);
  CHECK(s.diagnostics().items().front().kind == ErrorKind::internal);
}

TEST_CASE("scenario: a stdlib list's entries, and the listings, from the prelude alone") {
  Scenario s;
  REQUIRE(s.load_prelude());
  const auto ids = s.list_entries("accelerators");
  REQUIRE_FALSE(ids.empty());
  CHECK(ids.front() == "H100");
  CHECK(s.list_entries("no_such_list").empty());
  CHECK(s.conventions_listing().find("mtbf_model") != std::string::npos);
  CHECK_FALSE(s.presets_listing().empty());
}

TEST_CASE("scenario: two configured runs compared, and what validate reads of a value") {
  Scenario left, right;
  REQUIRE(left.prepare("<test>", kText));
  REQUIRE(right.prepare("<test>", kText));
  Selection more;
  more.sets.emplace_back("gpus", "1024");
  REQUIRE(left.configure(Selection{}));
  REQUIRE(right.configure(more));
  const auto lr = left.run(RunOptions{});
  const auto rr = right.run(RunOptions{});
  REQUIRE(lr);
  REQUIRE(rr);
  const DiffReport d = compare(ComparedSide{&left, &*lr, "<test>", "as written"},
                               ComparedSide{&right, &*rr, "<test>", "--set gpus=1024"});
  CHECK(d.differs());

  bool saw_set = false;
  for (const Assumption& a : right.assumptions_in(rr->results.front().value.deps))
    saw_set = saw_set || (a.name == "gpus" && a.value == "1024");
  CHECK(saw_set);
  const auto choices = left.convention_choices("mtbf_model");
  CHECK(std::find(choices.begin(), choices.end(), "node_series") != choices.end());
  CHECK(left.convention_choices("no_such_convention").empty());
}

TEST_CASE("scenario: a run streamed into a front end's sink over the scenario's scope") {
  Scenario s;
  REQUIRE(
      s.prepare("<test>", "let n = 4\nsweep grid over k in [1, 2, 3] {\n  show y = k * n\n}\nshow z = 1 / (n - 4)\n"));
  const auto names = s.table_names();
  CHECK(names == std::vector<std::string>{"grid", "show"});
  REQUIRE(s.configure(Selection{}));
  std::string text;
  Writer w(&text);
  auto sink = make_formatter("csv", s.scope(), w, "<test>");
  REQUIRE(sink);
  // The division by zero stops the run after the sweep's rows: false, with its diagnostic.
  CHECK_FALSE(s.run(RunOptions{}, *sink));
  CHECK(text.find("grid") != std::string::npos);
  REQUIRE(s.diagnostics().size() == 1);
  CHECK(s.diagnostics().items().front().kind == ErrorKind::runtime_div_zero);
}

TEST_CASE("scenario: a dependency set read back from atom ids is the one the run made") {
  Scenario s;
  REQUIRE(s.prepare("<test>", kText));
  const auto r = s.run(Selection{}, RunOptions{});
  REQUIRE(r);
  const DepSet d = r->results.front().value.deps;
  const std::vector<AtomId> atoms = s.scope().deps.atoms(d);
  REQUIRE_FALSE(atoms.empty());
  CHECK(s.dep_set(atoms) == d);
  CHECK(assumptions_of(s.scope(), d) == assumptions_of(s.scope(), s.dep_set(atoms)));
}
