// diff_test.cpp — `mls diff` internals: which assumptions differ, the attribution of each changed
// value, matching of results and table rows, and how numbers compare at full precision.
#include <doctest/doctest.h>

#include <algorithm>
#include <memory>

#include "interpreter/diff.hpp"
#include "interpreter/driver.hpp"
#include "interpreter/explain.hpp"

using namespace mls;

namespace {

// A reliability model with two conventions; each test runs it (or a variant) as one side.
const char* kModel = R"(
convention mtbf_model "how failures combine" {
  node_series: "any component"
  gpu_only: "GPUs only"
  default node_series
}
convention ckpt_cost "C in Young-Daly" {
  fixed: "60 s"
  derived: "the write time"
  default fixed
}
preset study "the study" {
  use mtbf_model = node_series
  set write_bw = 2 GB/s
}
let mttf_gpu = 50000 h
let mttf_nic = 150000 h
let mttf_psu = 100000 h
let node = { gpus: 8, nics: 8, psus: 2 }
let write_bw = 5 GB/s
let ckpt_size = 1120 GB
let same = match mtbf_model { node_series => 1 h, gpu_only => 1 h }
let node_mtbf() = 1 / (node.gpus / mttf_gpu + node.nics / mttf_nic + node.psus / mttf_psu)
let fleet(gpus) = match mtbf_model { node_series => node_mtbf() / (gpus / node.gpus), gpu_only => mttf_gpu / gpus }
let C = match ckpt_cost { fixed => 60 s, derived => ckpt_size / write_bw }
show fleet_512 = fleet(512) -> h @ 0.1
show ckpt = ckpt_size -> GB
show same_h = same -> h
sweep o1 over gpus in GPUS {
  show gpus, mtbf_h = fleet(gpus) -> h @ 0.1, c_s = C -> s
}
)";

struct Ran {
  std::unique_ptr<Session> s = std::make_unique<Session>();
  std::optional<Config> cfg;
  RunResult r;
};

std::string model(const std::string& gpus = "[64, 512]") {
  std::string t = kModel;
  t.replace(t.find("GPUS"), 4, gpus);
  return t;
}

Ran run_text(const std::string& text, Selection sel = {}, const std::string& name = "m.mls") {
  Ran x;
  REQUIRE(prepare(*x.s, name, text));
  x.cfg = configure(x.s->prog, x.s->ck, sel);
  REQUIRE(x.cfg);
  x.r = run_program(x.s->prog, x.s->ck, *x.cfg, RunOptions{});
  return x;
}

DiffReport diff_of(Ran& l, Ran& r) {
  return diff_runs(DiffSide{&l.s->prog, &*l.cfg, &l.r, "m.mls", "left"}, DiffSide{&r.s->prog, &*r.cfg, &r.r, "m.mls", "right"});
}

Selection use(const std::string& conv, const std::string& choice) {
  Selection s;
  s.uses.emplace_back(conv, choice);
  return s;
}

const ValueDiff* result(const DiffReport& d, const std::string& name) {
  for (const auto& v : d.results)
    if (v.name == name) return &v;
  return nullptr;
}

bool names(const std::vector<AssumptionKey>& keys, const std::vector<std::string>& want) {
  std::vector<std::string> got;
  for (const auto& k : keys) got.push_back(k.first + " " + k.second);
  return got == want;
}

}  // namespace

TEST_CASE("assumptions differ by value or by who set them, not by where they are written") {
  const AssumptionView a{"set", "x", "8", "a.mls:3", "scenario"};
  AssumptionView b = a;
  b.at = "b.mls:9";
  CHECK_FALSE(assumption_differs(&a, &b));
  CHECK_FALSE(assumption_differs(nullptr, nullptr));
  CHECK(assumption_differs(&a, nullptr));
  CHECK(assumption_differs(nullptr, &a));
  b.via = "command line";
  CHECK(assumption_differs(&a, &b));
  b = a;
  b.value = "16";
  CHECK(assumption_differs(&a, &b));
}

TEST_CASE("switching a convention attributes exactly the values that depend on it") {
  Ran l = run_text(model());
  Ran r = run_text(model(), use("mtbf_model", "gpu_only"));
  const DiffReport d = diff_of(l, r);
  REQUIRE(d.assumptions.size() == 1);
  CHECK(d.assumptions[0].key == AssumptionKey{"convention", "mtbf_model"});
  CHECK(d.assumptions[0].left->via == "default");
  CHECK(d.assumptions[0].right->via == "command line");
  // fleet_512 moves 67.0 h -> 97.7 h; the checkpoint size and `same` (same number in both
  // branches) are not listed even though `same` depends on the convention.
  REQUIRE(d.results.size() == 1);
  const ValueDiff* f = result(d, "fleet_512");
  REQUIRE(f);
  CHECK(f->left_text == "67.0 h");
  CHECK(f->right_text == "97.7 h");
  CHECK(f->relative_text == "+45.8 %");
  CHECK(f->change_text == "+30.7 h");
  // mttf_gpu, mttf_nic and node.* are dependencies but did not change: not the cause.
  CHECK(names(f->because, {"convention mtbf_model"}));
  CHECK(d.results_unchanged == 2);
  REQUIRE(d.tables.size() == 1);
  CHECK(d.tables[0].cells.size() == 2);  // mtbf_h for 64 and 512; c_s unchanged
  CHECK(d.tables[0].cells_unchanged == 4);
  CHECK(d.differs());
}

TEST_CASE("a choice equal to the default changes who set it but no value") {
  Ran l = run_text(model());
  Ran r = run_text(model(), use("mtbf_model", "node_series"));
  const DiffReport d = diff_of(l, r);
  CHECK(d.assumptions.size() == 1);
  CHECK(d.results.empty());
  CHECK_FALSE(d.differs());
}

TEST_CASE("attribution takes dependencies from either side") {
  // fixed C depends on nothing; derived C depends on ckpt_size and write_bw. Under the study
  // preset write_bw differs, and only the right side's C depends on it.
  Selection ls;
  ls.preset = "study";
  Selection rs = use("ckpt_cost", "derived");
  Ran l = run_text(model(), ls);
  Ran r = run_text(model(), rs);
  const DiffReport d = diff_of(l, r);
  REQUIRE(!d.tables.empty());
  const ValueDiff* c = nullptr;
  for (const auto& cell : d.tables[0].cells)
    if (cell.name == "c_s") c = &cell;
  REQUIRE(c);
  CHECK(names(c->because, {"convention ckpt_cost", "set write_bw"}));
  // ckpt_size is a dependency of the right side only, and equal on both: not a cause.
  for (const auto& k : c->because) CHECK(k.second != "ckpt_size");
}

TEST_CASE("two files: a parameter on one side only is a cause; rows match by key") {
  Ran l = run_text(model("[64, 512]"));
  std::string other = model("[512, 1024]");
  other.replace(other.find("let mttf_nic = 150000 h"), 23, "let mttf_nic = 200000 h\nlet extra = 3");
  Ran r = run_text(other, {}, "n.mls");
  const DiffReport d = diff_of(l, r);
  // extra exists on the right only; mttf_nic differs in value; neither location matters.
  bool extra = false, nic = false;
  for (const auto& a : d.assumptions) {
    extra |= a.key.second == "extra" && !a.left && a.right;
    nic |= a.key.second == "mttf_nic" && a.left && a.right;
  }
  CHECK(extra);
  CHECK(nic);
  const TableDiff& t = d.tables[0];
  REQUIRE(t.rows_removed.size() == 1);
  REQUIRE(t.rows_added.size() == 1);
  CHECK(t.row_text(t.rows_removed[0]) == "gpus=64");
  CHECK(t.row_text(t.rows_added[0]) == "gpus=1024");
  CHECK(t.rows_compared == 1);
  REQUIRE(t.cells.size() == 1);
  CHECK(t.cells[0].name == "mtbf_h");
  CHECK(t.row_text(t.cells[0].row) == "gpus=512");
  CHECK(names(t.cells[0].because, {"set mttf_nic"}));
}

TEST_CASE("effective assumptions: outputs' dependencies first, then the last one created") {
  Ran x = run_text(model());
  const AssumptionMap all = effective_assumptions(x.s->prog, &*x.cfg, {});
  REQUIRE(all.count({"convention", "mtbf_model"}));
  CHECK(all.at({"convention", "mtbf_model"}).value == "node_series");
  // A second config of the same program (the REPL's case) does not leak into the first.
  auto other = configure(x.s->prog, x.s->ck, use("mtbf_model", "gpu_only"));
  REQUIRE(other);
  CHECK(effective_assumptions(x.s->prog, &*x.cfg, {}).at({"convention", "mtbf_model"}).value == "node_series");
  CHECK(effective_assumptions(x.s->prog, &*other, {}).at({"convention", "mtbf_model"}).value == "gpu_only");
}

TEST_CASE("numbers compare at full precision and print at the shown one") {
  const TypeP t = t_num(Dim{});
  Display d;
  d.resolution = *Num::parse("0.1");
  const Value a = Value::number(*Num::parse("67.01"));
  const Value b = Value::number(*Num::parse("67.02"));
  auto vd = compare_values(a, t, d, b, t, d);
  REQUIRE(vd);
  CHECK(vd->below_resolution);
  CHECK(vd->left_text != vd->right_text);
  CHECK_FALSE(compare_values(a, t, d, a, t, d).has_value());
  // From zero there is no relative change.
  auto z = compare_values(Value::number(Num::of_int(0)), t, Display{}, b, t, Display{});
  REQUIRE(z);
  CHECK_FALSE(z->relative_pct.has_value());
  // Different dimensions cannot be subtracted.
  Dim time;
  time.e[0] = 1;
  auto x = compare_values(a, t, Display{}, a, t_num(time), Display{});
  CHECK_FALSE(x.has_value());  // same number: equal, whatever the type
  auto y = compare_values(a, t, Display{}, b, t_num(time), Display{});
  REQUIRE(y);
  CHECK_FALSE(y->comparable);
  CHECK_FALSE(y->change.has_value());
}

TEST_CASE("explain follows instantiations to give each step its unit") {
  const std::string text = std::string(kModel).replace(std::string(kModel).find("GPUS"), 4, "[512]") +
                           "let twice(x) = 2 * x\nshow t = twice(3 s) + twice(2) * 1 s\n";
  Ran x = run_text(text);
  const Explanation e = explain(x.s->prog, x.s->ck, *x.cfg, x.r, "t");
  REQUIRE(e.chain.size() == 2);
  CHECK(e.chain[0].text == "twice(x = 3 s)");
  CHECK(e.chain[0].value == "6 s");
  CHECK(e.chain[1].text == "twice(x = 2)");
  CHECK(e.chain[1].value == "4");
  const Explanation c = explain(x.s->prog, x.s->ck, *x.cfg, x.r, "o1.mtbf_h[gpus=512]");
  REQUIRE(c.chain.size() == 1);
  CHECK(c.chain[0].text == "fleet(gpus = 512)");
  REQUIRE(c.chain[0].kids.size() == 1);
  CHECK(c.chain[0].kids[0].text == "node_mtbf()");
  CHECK(c.value == "67.0 h");
  CHECK_THROWS_AS((void)explain(x.s->prog, x.s->ck, *x.cfg, x.r, "fleet_51"), DiagnosticError);
  CHECK_THROWS_AS((void)explain(x.s->prog, x.s->ck, *x.cfg, x.r, "o1.mtbf_h[gpus=7]"), DiagnosticError);
}
