// diff_test.cpp — `mls diff` internals: which assumptions differ, the attribution of each changed
// value, matching of results and table rows, and how numbers compare at full precision.
#include "interpreter/results/diff.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <memory>

#include "grammar/symbols.hpp"
#include "harness.hpp"
#include "interpreter/tooling/explain.hpp"

using namespace mls;

namespace {

// A reliability model with two conventions; each test runs it (or a variant) as one side.
// Names start with my_: names are global, and the stdlib must never collide with a test.
const char* kModel = R"(
convention my_mtbf_model "how failures combine" {
  node_series: "any component"
  gpu_only: "GPUs only"
  default node_series
}
convention my_ckpt_cost "C in Young-Daly" {
  fixed: "60 s"
  derived: "the write time"
  default fixed
}
preset my_study "the study" {
  use my_mtbf_model = node_series
  set my_write_bw = 2 GB/s
}
let my_mttf_gpu = 50000 h
let my_mttf_nic = 150000 h
let my_mttf_psu = 100000 h
let my_node = { gpus: 8, nics: 8, psus: 2 }
let my_write_bw = 5 GB/s
let my_ckpt_size = 1120 GB
let my_same = match my_mtbf_model { node_series => 1 h, gpu_only => 1 h }
let my_node_mtbf() = 1 / (my_node.gpus / my_mttf_gpu + my_node.nics / my_mttf_nic + my_node.psus / my_mttf_psu)
let my_fleet(gpus) = match my_mtbf_model { node_series => my_node_mtbf() / (gpus / my_node.gpus), gpu_only => my_mttf_gpu / gpus }
let my_C = match my_ckpt_cost { fixed => 60 s, derived => my_ckpt_size / my_write_bw }
show fleet_512 = my_fleet(512) -> h @ 0.1
show ckpt = my_ckpt_size -> GB
show same_h = my_same -> h
sweep o1 over gpus in GPUS {
  show gpus, mtbf_h = my_fleet(gpus) -> h @ 0.1, c_s = my_C -> s
}
)";

struct Ran {
  std::unique_ptr<Harness> s = std::make_unique<Harness>();
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
  const ConfiguredAtoms la = configured_atoms(*l.cfg), ra = configured_atoms(*r.cfg);
  return diff_runs(DiffSide{scope_of(l.s->prog), &la, &l.r, "m.mls", "left"},
                   DiffSide{scope_of(r.s->prog), &ra, &r.r, "m.mls", "right"});
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
  for (const auto& k : keys) got.push_back(k.text());
  return got == want;
}

}  // namespace

TEST_CASE("assumptions differ by value or by who set them, not by where they are written") {
  const AssumptionView a{AssumptionKind::set, "x", "8", "a.mls:3", ViaKind::scenario};
  AssumptionView b = a;
  b.at = "b.mls:9";
  CHECK_FALSE(assumption_differs(&a, &b));
  CHECK_FALSE(assumption_differs(nullptr, nullptr));
  CHECK(assumption_differs(&a, nullptr));
  CHECK(assumption_differs(nullptr, &a));
  b.via = ViaKind::command_line;
  CHECK(assumption_differs(&a, &b));
  b = a;
  b.value = "16";
  CHECK(assumption_differs(&a, &b));
}

TEST_CASE("switching a convention attributes exactly the values that depend on it") {
  Ran l = run_text(model());
  Ran r = run_text(model(), use("my_mtbf_model", "gpu_only"));
  const DiffReport d = diff_of(l, r);
  REQUIRE(d.assumptions.size() == 1);
  CHECK(d.assumptions[0].key == AssumptionKey{AssumptionKind::convention, "my_mtbf_model"});
  CHECK(d.assumptions[0].left->via == ViaKind::default_);
  CHECK(d.assumptions[0].right->via == ViaKind::command_line);
  // fleet_512 moves 67.0 h -> 97.7 h; the checkpoint size and `my_same` (the same number in both
  // branches) are not listed even though `my_same` depends on the convention.
  REQUIRE(d.results.size() == 1);
  const ValueDiff* f = result(d, "fleet_512");
  REQUIRE(f);
  CHECK(f->left_text == "67.0 h");
  CHECK(f->right_text == "97.7 h");
  CHECK(f->relative_text == "+45.8 %");
  CHECK(f->change_text == "+30.7 h");
  // my_mttf_gpu, my_mttf_nic and my_node.* are dependencies but did not change: not the cause.
  CHECK(names(f->because, {"convention my_mtbf_model"}));
  CHECK(d.results_unchanged == 2);
  REQUIRE(d.tables.size() == 1);
  CHECK(d.tables[0].cells.size() == 2);  // mtbf_h for 64 and 512; c_s unchanged
  CHECK(d.tables[0].cells_unchanged == 4);
  CHECK(d.differs());
}

TEST_CASE("a choice equal to the default changes who set it but no value") {
  Ran l = run_text(model());
  Ran r = run_text(model(), use("my_mtbf_model", "node_series"));
  const DiffReport d = diff_of(l, r);
  REQUIRE(d.assumptions.size() == 1);
  CHECK(d.assumptions[0].same_value());
  CHECK(d.results.empty());
  CHECK_FALSE(d.differs());
}

TEST_CASE("attribution takes dependencies from either side") {
  // fixed my_C depends on nothing; derived my_C depends on my_ckpt_size and my_write_bw. Under the my_study
  // preset my_write_bw differs, and only the right side's my_C depends on it.
  Selection ls;
  ls.preset = "my_study";
  Selection rs = use("my_ckpt_cost", "derived");
  Ran l = run_text(model(), ls);
  Ran r = run_text(model(), rs);
  const DiffReport d = diff_of(l, r);
  REQUIRE(!d.tables.empty());
  const ValueDiff* c = nullptr;
  for (const auto& cell : d.tables[0].cells)
    if (cell.name == "c_s") c = &cell;
  REQUIRE(c);
  CHECK(names(c->because, {"convention my_ckpt_cost", "set my_write_bw"}));
  // my_ckpt_size is a dependency of the right side only, and equal on both: not a cause.
  for (const auto& k : c->because) CHECK(k.name != "my_ckpt_size");
}

TEST_CASE("two files: a parameter on one side only is a cause; rows match by key") {
  Ran l = run_text(model("[64, 512]"));
  std::string other = model("[512, 1024]");
  other.replace(other.find("let my_mttf_nic = 150000 h"), 26, "let my_mttf_nic = 200000 h\nlet my_extra = 3");
  Ran r = run_text(other, {}, "n.mls");
  const DiffReport d = diff_of(l, r);
  // my_extra exists on the right only; my_mttf_nic differs in value; neither location matters.
  bool extra = false, nic = false;
  for (const auto& a : d.assumptions) {
    extra |= a.key.name == "my_extra" && !a.left && a.right;
    nic |= a.key.name == "my_mttf_nic" && a.left && a.right;
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
  CHECK(names(t.cells[0].because, {"set my_mttf_nic"}));
}

TEST_CASE("effective assumptions: outputs' dependencies first, then the last one created") {
  Ran x = run_text(model());
  const ConfiguredAtoms mine = configured_atoms(*x.cfg);
  const AssumptionMap all = effective_assumptions(scope_of(x.s->prog), &mine, {});
  REQUIRE(all.count({AssumptionKind::convention, "my_mtbf_model"}));
  CHECK(all.at({AssumptionKind::convention, "my_mtbf_model"}).value == "node_series");
  // A second config of the same program (the REPL's case) does not leak into the first.
  auto other = configure(x.s->prog, x.s->ck, use("my_mtbf_model", "gpu_only"));
  REQUIRE(other);
  const ConfiguredAtoms others = configured_atoms(*other);
  CHECK(effective_assumptions(scope_of(x.s->prog), &mine, {}).at({AssumptionKind::convention, "my_mtbf_model"}).value ==
        "node_series");
  CHECK(
      effective_assumptions(scope_of(x.s->prog), &others, {}).at({AssumptionKind::convention, "my_mtbf_model"}).value ==
      "gpu_only");
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
  CHECK_FALSE(x.has_value());  // the same number: equal, whatever the type
  auto y = compare_values(a, t, Display{}, b, t_num(time), Display{});
  REQUIRE(y);
  CHECK_FALSE(y->comparable);
  CHECK_FALSE(y->change.has_value());
}

TEST_CASE("explain follows instantiations to give each step its unit") {
  const std::string text = std::string(kModel).replace(std::string(kModel).find("GPUS"), 4, "[512]") +
                           "let my_twice(x) = 2 * x\nshow t = my_twice(3 s) + my_twice(2) * 1 s\n";
  Ran x = run_text(text);
  const Explanation e = explain(x.s->prog, x.s->ck, *x.cfg, x.r, "t");
  REQUIRE(e.chain.size() == 2);
  CHECK(e.chain[0].text == "my_twice(x = 3 s)");
  CHECK(e.chain[0].value == "6 s");
  CHECK(e.chain[1].text == "my_twice(x = 2)");
  CHECK(e.chain[1].value == "4");
  const Explanation c = explain(x.s->prog, x.s->ck, *x.cfg, x.r, "o1.mtbf_h[gpus=512]");
  REQUIRE(c.chain.size() == 1);
  CHECK(c.chain[0].text == "my_fleet(gpus = 512)");
  REQUIRE(c.chain[0].kids.size() == 1);
  CHECK(c.chain[0].kids[0].text == "my_node_mtbf()");
  CHECK(c.value == "67.0 h");
  CHECK_THROWS_AS((void)explain(x.s->prog, x.s->ck, *x.cfg, x.r, "fleet_51"), DiagnosticError);
  CHECK_THROWS_AS((void)explain(x.s->prog, x.s->ck, *x.cfg, x.r, "o1.mtbf_h[gpus=7]"), DiagnosticError);
}

TEST_CASE("one program, two configs: the REPL's :diff of one value") {
  Ran x = run_text(model());
  auto def = configure(x.s->prog, x.s->ck, Selection{});
  auto cur = configure(x.s->prog, x.s->ck, use("my_mtbf_model", "gpu_only"));
  REQUIRE(def);
  REQUIRE(cur);
  const std::uint32_t g = x.s->prog.lookup(intern("my_same"))->index;
  Evaluator el(x.s->prog, *def, true), er(x.s->prog, *cur, true);
  const Value ls = el.global(g), rs = er.global(g);
  const ConfiguredAtoms da = configured_atoms(*def), ca = configured_atoms(*cur);
  const AssumptionMap lm = effective_assumptions(scope_of(x.s->prog), &da, {ls.deps});
  const AssumptionMap rm = effective_assumptions(scope_of(x.s->prog), &ca, {rs.deps});
  const auto changes = differing_assumptions(lm, rm);
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].key.name == "my_mtbf_model");
  // Same number under both choices: no difference, though the value depends on the choice.
  CHECK_FALSE(compare_values(ls, t_num(Dim{}), Display{}, rs, t_num(Dim{}), Display{}).has_value());
  CHECK(names(attribute(lm, rm, scope_of(x.s->prog), {ls.deps}, scope_of(x.s->prog), {rs.deps}),
              {"convention my_mtbf_model"}));
  // A record's dependencies read without interning: the atoms deep_deps unites, no more.
  const Value rec = el.global(x.s->prog.lookup(intern("my_node"))->index);
  std::set<AtomId> read, united;
  for (DepSet d : deps_within(rec))
    for (AtomId a : x.s->prog.deps.atoms(d)) read.insert(a);
  for (AtomId a : x.s->prog.deps.atoms(deep_deps(rec, x.s->prog.deps))) united.insert(a);
  CHECK_FALSE(read.empty());
  CHECK(read == united);
}
