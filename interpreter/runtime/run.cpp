// run.cpp — executes the main file's statements in source order: show, assert, sweep, search
// (sweeps and searches themselves are in sweep.cpp), and the display of values.
#include "run.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include "grammar/symbols.hpp"
#include "interpreter/semantics/stack.hpp"
#include "interrupt.hpp"
#include "solve.hpp"
#include "sweep.hpp"
#include "uncertainty.hpp"

namespace mls {

namespace {

Diagnostic output_limit(Span at, std::string msg) {
  return make_diagnostic(ErrorKind::limit_output, at, std::move(msg));
}

Diagnostic too_large_to_show(const Program& p, Span at, const std::string& unit, DepSet deps) {
  Diagnostic d =
      make_diagnostic(ErrorKind::runtime_non_finite, at, "this value overflows binary64 when shown in '" + unit + "'",
                      {"show it in a larger unit"});
  for (const auto& line : assumption_lines(p, deps)) d.help.push_back("depends on " + line);
  return d;
}

}  // namespace

// A value is finite in base units (the evaluator checks every step), but `-> ns` or `-> %` can
// still overflow when it is printed: an error then, never an "inf" in the output. A table's
// unit is fitted to its first rows, so every row is checked.
void check_displayable(const Program& p, const Value& v, const TypeP& type, const Display& d, Span at) {
  if (v.k != Value::K::num) return;
  if (!type || type->k != Type::K::num) {
    // Printing a number without knowing its dimension would print it without its unit.
    Diagnostic e;
    e.kind = ErrorKind::internal;
    e.span = at;
    e.message = "the dimension of this value is not known";
    throw DiagnosticError{std::move(e)};
  }
  // Binary64 cells (every cell of a large sweep) need no rational division to be checked.
  if (!v.n.exact() ? std::isfinite(v.n.d / d.factor.d) : std::isfinite(in_unit(v.n, d).d)) return;
  throw DiagnosticError{too_large_to_show(p, at, d.unit, v.deps)};
}

namespace {

void expand_shown(const Program& p, const std::string& name, const Value& v, const TypeP& t, Span span,
                  std::vector<Shown>& out, std::size_t max_results) {
  if (v.k == Value::K::record && t && t->k == Type::K::record) {
    for (const auto& [fname, fv] : v.rec().fields) {
      const TypeP* ft = t->field(fname);
      if (fv.k == Value::K::list) continue;
      expand_shown(p, name + "." + sym_name(fname), fv, ft ? *ft : nullptr, span, out, max_results);
    }
    return;
  }
  // A record can share parts (`{a: x, b: x}` nested): its fields can be exponentially many.
  if (out.size() >= max_results)
    throw DiagnosticError{
        output_limit(span, "showing this would print more than " + std::to_string(max_results) + " results")};
  Shown s;
  s.name = name;
  s.value = v;
  s.type = t;
  s.display = display_for(scope_of(p), t, v.k == Value::K::num ? v.n.d : 0);
  s.span = span;
  check_displayable(p, s.value, s.type, s.display, span);
  out.push_back(std::move(s));
}

}  // namespace

namespace {

// Collects a run in memory (diff, REPL, tests, and formatting after the fact).
class CollectSink : public RunSink {
 public:
  explicit CollectSink(RunResult& r) : r_(r) {}
  void begin(const RunResult& header) override {
    r_.preset = header.preset;
    r_.preset_via = header.preset_via;
    r_.conventions = header.conventions;
    r_.uncertainty_samples = header.uncertainty_samples;
    r_.uncertainty_seed = header.uncertainty_seed;
    r_.uncertain_inputs = header.uncertain_inputs;
  }
  void result(const Shown& s) override {
    r_.results.push_back(s);
    r_.order.push_back({RunResult::Item::K::result, r_.results.size() - 1});
  }
  void table_begin(const Table& t) override {
    r_.tables.push_back(t);
    r_.order.push_back({RunResult::Item::K::table, r_.tables.size() - 1});
  }
  void table_row(const Table&, const Row& row) override { r_.tables.back().rows.push_back(row); }
  void table_end(const Table& t) override {
    Table& mine = r_.tables.back();
    mine.col_deps = t.col_deps;
    mine.notes = t.notes;
    mine.row_count = t.row_count;
    mine.evaluated = t.evaluated;
    mine.infeasible = t.infeasible;
    mine.filtered = t.filtered;
    mine.stopped = t.stopped;
  }
  void assertion(const AssertOutcome& a) override {
    r_.asserts.push_back(a);
    r_.order.push_back({RunResult::Item::K::assertion, r_.asserts.size() - 1});
  }
  void error(const Diagnostic& d) override { r_.errors.push_back(d); }
  void end() override {}

 private:
  RunResult& r_;
};

}  // namespace

void run_statements_here(Program& p, Checker& ck, const Config& cfg, const RunOptions& opt,
                         const std::vector<Stmt*>& stmts, RunSink& sink);

namespace {
// One statement or shown value: its value, or (keep_going) nullopt after handing a runtime error
// to the sink, so what was computed before and what does not depend on it still reaches the
// output. Ctrl-C, the output cap and internal errors always stop the run (keeps_going).
template <typename F>
auto kept_going(const RunOptions& opt, RunSink& sink, F&& eval) {
  using R = std::optional<decltype(eval())>;
  try {
    return R{eval()};
  } catch (DiagnosticError& e) {
    if (!keeps_going(opt, e.diag.kind)) throw;
    sink.error(e.diag);
    return R{};
  }
}
}  // namespace

void run_program(Program& p, Checker& ck, const Config& cfg, const RunOptions& opt, RunSink& sink) {
  run_statements(p, ck, cfg, opt, p.main_stmts, sink);
}

void run_statements(Program& p, Checker& ck, const Config& cfg, const RunOptions& opt, const std::vector<Stmt*>& stmts,
                    RunSink& sink) {
  // Evaluation recurses over formulas and calls: it runs on the pipeline stack, whose size the
  // depth limits were chosen for, whoever calls (CLI, diff, REPL; see stack.hpp).
  run_on_pipeline_stack([&] { run_statements_here(p, ck, cfg, opt, stmts, sink); });
}

namespace {

// A `solve` statement's answers, each shown labelled by what it is: NAME (a root of ==), `min NAME` /
// `max NAME` (the smallest / largest value satisfying <= or >=); numbered when there are several.
void show_solve(Program& p, Checker& ck, Evaluator& ev, const RunOptions& opt, RunSink& sink, Stmt* s) {
  // Every answer, labelled by what it is: NAME (a root of ==), `min NAME` / `max NAME`
  // (the smallest / largest value satisfying <= or >=); numbered when there are several.
  const auto out =
      kept_going(opt, sink, [&] { return solve_statement(ev, *s, ck.expr_type(s->value->kids.at(0).get())); });
  if (!out) return;
  const std::string note = skipped_text(*out, sym_name(s->name));
  const Decl* d = p.lookup(s->name);
  const TypeP t = d && d->kind == RefKind::global ? ck.global_type(d->index) : TypeP{};
  const std::vector<std::string> labels = solve_labels(*out, sym_name(s->name));
  for (std::size_t i = 0; i < out->answers.size(); ++i) {
    const SolveAnswer& a = out->answers[i];
    Shown x;
    x.name = labels[i];
    x.value = a.value;
    x.type = t;
    x.display = display_for(scope_of(p), t, a.value.n.d);
    // Shown in the unit the range is written in (`10 Gbps..1600 Gbps`: Gbps).
    const Expr& lo = *s->bindings.at(0).domains.at(0);
    if (lo.kind == EK::num && lo.unit)
      if (auto u = ck.resolve_unit(*lo.unit, false)) {
        x.display.unit = lo.unit->text;
        x.display.factor = u->factor;
      }
    x.span = s->span;
    x.note = note;
    check_displayable(p, x.value, x.type, x.display, x.span);
    sink.result(x);
  }
}

}  // namespace

void run_statements_here(Program& p, Checker& ck, const Config& cfg, const RunOptions& opt,
                         const std::vector<Stmt*>& stmts, RunSink& sink) {
  RunResult header;
  header.preset = cfg.preset;
  header.preset_via = cfg.preset_via;
  for (std::size_t i = 0; i < p.conventions.size(); ++i)
    header.conventions.emplace_back(
        sym_name(p.conventions[i].name),
        sym_name(p.conventions[i].stmt->choices[static_cast<std::size_t>(cfg.conv[i].choice)].name));
  std::sort(header.conventions.begin(), header.conventions.end());
  // --uncertainty: every sample of every shown expression first (a sample's draws reach every
  // global), then the statements in order as usual, each shown value with its spread.
  std::optional<MonteCarlo> mc;
  if (opt.uncertainty > 0) {
    std::vector<MonteCarlo::Item> items;
    for (const Stmt* s : stmts)
      if (s->kind == SK::show)
        for (const auto& it : s->shows) items.push_back({it.expr.get(), s->nslots});
    mc.emplace(p, cfg, std::move(items), opt.uncertainty, opt.seed, opt.max_steps);
    header.uncertainty_samples = opt.uncertainty;
    header.uncertainty_seed = opt.seed;
    header.uncertain_inputs = mc->input_count();
  }
  std::size_t mc_item = 0;
  sink.begin(header);
  Evaluator ev(p, cfg, true);
  ev.max_steps = opt.max_steps;
  std::vector<AssertOutcome> sweep_asserts;  // reported after everything else
  for (Stmt* s : stmts) {
    try {
      switch (s->kind) {
        case SK::show:
          for (const auto& it : s->shows) {
            const std::size_t item = mc_item++;
            const auto v = kept_going(opt, sink, [&] { return ev.eval_in(*it.expr, s->nslots); });
            if (!v) continue;
            std::vector<Shown> shown;
            expand_shown(p, it.label, *v, ck.show_type(&it), it.span, shown, opt.max_results);
            if (mc) {
              const auto spreads = kept_going(opt, sink, [&] { return mc->spreads(item, shown); });
              if (!spreads) continue;
              for (std::size_t l = 0; l < shown.size(); ++l) shown[l].spread = (*spreads)[l];
            }
            for (const auto& x : shown) sink.result(x);
          }
          break;
        case SK::assert_:
          for (const auto& it : s->shows) {
            const auto ov = kept_going(opt, sink, [&] { return ev.eval_in(*it.expr, s->nslots); });
            if (!ov) continue;
            const Value& v = *ov;
            AssertOutcome a;
            a.ok = v.b;
            a.span = it.expr->span;
            a.text = it.label;
            a.message = s->str;
            if (!a.ok && it.expr->kind == EK::binary && it.expr->op >= Op::eq && it.expr->op <= Op::ge) {
              // Show both sides of a failed comparison, each in a human unit.
              const Value l = ev.eval_in(*it.expr->kids[0], s->nslots);
              const Value r = ev.eval_in(*it.expr->kids[1], s->nslots);
              auto side = [&](const Value& x, const Expr* e) {
                const Display d = display_for(scope_of(p), ck.expr_type(e), x.k == Value::K::num ? x.n.d : 0);
                std::string t = x.k == Value::K::num ? format_sig(in_unit(x.n, d), 10) : format_value(x, {});
                return d.unit.empty() ? t : t + " " + d.unit;
              };
              a.detail = "left: " + side(l, it.expr->kids[0].get()) + ", right: " + side(r, it.expr->kids[1].get());
              a.operands = true;
            }
            sink.assertion(a);
          }
          break;
        case SK::solve: show_solve(p, ck, ev, opt, sink, s); break;
        case SK::sweep:
        case SK::search: {
          // A part of a sharded run is all of its points or an error: it does not go on.
          if (opt.shard_out || opt.shard_in) {
            run_sweep(p, ck, cfg, opt, *s, sink, sweep_asserts);
            break;
          }
          (void)kept_going(opt, sink, [&] {
            run_sweep(p, ck, cfg, opt, *s, sink, sweep_asserts);
            return true;
          });
          break;
        }
        default: break;
      }
    } catch (DiagnosticError& e) {
      // Ctrl-C lands wherever evaluation happened to be: report it at the statement it stopped.
      if (e.diag.kind == ErrorKind::interrupted) throw_interrupted(s->span);
      throw;
    }
  }
  for (const auto& a : sweep_asserts) sink.assertion(a);
  sink.end();
}

RunResult run_program(Program& p, Checker& ck, const Config& cfg, const RunOptions& opt) {
  return run_statements(p, ck, cfg, opt, p.main_stmts);
}

RunResult run_statements(Program& p, Checker& ck, const Config& cfg, const RunOptions& opt,
                         const std::vector<Stmt*>& stmts) {
  RunResult r;
  CollectSink sink(r);
  run_statements(p, ck, cfg, opt, stmts, sink);
  return r;
}

}  // namespace mls
