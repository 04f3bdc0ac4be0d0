// run.cpp — executes the main file's statements in source order: show, assert, sweep, search.
// Sweep points are independent (values are immutable), so they run on a thread pool and are
// merged back in enumeration order: output is identical for any thread count.
#include "run.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

#include "symbols.hpp"

namespace mls {

Display display_for(const Program& p, const TypeP& t, double si) {
  Display d;
  if (!t || t->k != Type::K::num) return d;
  if (t->hint) {
    d.unit = t->hint->unit == "1" ? "" : t->hint->unit;
    d.factor = t->hint->factor;
    d.resolution = t->hint->resolution;
    return d;
  }
  if (t->dim.none()) return d;
  const DisplayUnit u = p.units.human_unit(t->dim, si);
  d.unit = u.text;
  d.factor = u.factor;
  return d;
}

Num in_unit(const Num& si, const Display& d) {
  bool lost = false;
  return div(si, d.factor, lost);
}

std::string format_value(const Value& v, const Display& d) {
  switch (v.k) {
    case Value::K::boolean: return v.b ? "true" : "false";
    case Value::K::str: return v.str();
    case Value::K::num: {
      const Num x = in_unit(v.n, d);
      if (d.resolution) {
        const Num r = round_to(x, *d.resolution);
        return format_fixed(r, decimals_of_resolution(*d.resolution));
      }
      return format_sig(x, 4);
    }
    default: return "(value)";
  }
}

namespace {

struct PointOut {
  bool filtered = false;
  bool feasible = true;
  std::vector<Value> key, cells;
  std::vector<Value> objectives;
  std::vector<AssertOutcome> failed;
};

class SweepRunner {
 public:
  SweepRunner(Program& p, Checker& ck, const Config& cfg, const RunOptions& opt, const Stmt& s)
      : p_(p), ck_(ck), cfg_(cfg), opt_(opt), s_(s) {}

  Table run(std::vector<AssertOutcome>& asserts) {
    Table t;
    t.name = sym_name(s_.name);
    t.span = s_.span;
    t.search = s_.kind == SK::search;
    // Domains are evaluated once, exactly, outside any point.
    Evaluator exact_ev(p_, cfg_, true);
    std::vector<std::vector<std::vector<Value>>> domains;  // per binding: tuples of values
    std::size_t total = 1;
    for (const auto& b : s_.bindings) {
      domains.push_back(domain(exact_ev, b));
      for (std::size_t i = 0; i < b.names.size(); ++i) t.key_names.push_back(sym_name(b.names[i]));
      const std::size_t n = domains.back().size();
      if (n == 0) throw DiagnosticError{make_error(ErrorKind::sweep_decl, b.span, "this sweep variable has no values")};
      if (total > opt_.max_points / n + 1 || total * n > opt_.max_points) {
        Diagnostic d = make_error(ErrorKind::sweep_too_large, s_.name_span,
                                  "'" + t.name + "' has more than " + std::to_string(opt_.max_points) + " points");
        d.help.push_back("raise the cap with --max-points N if this is intended");
        throw DiagnosticError{d};
      }
      total *= n;
    }
    for (const auto& item : s_.body) {
      if (item.kind == BK::show)
        for (const auto& sh : item.shows) t.cols.push_back(Column{sh.label, ck_.show_type(&sh), {}, sh.span});
      if (item.kind == BK::subject) has_subject_ = true;
      if (item.kind == BK::maximize || item.kind == BK::minimize) {
        maximize_.push_back(item.kind == BK::maximize);
        t.objective = std::string(item.kind == BK::maximize ? "maximize " : "minimize ") +
                      std::string(p_.sources.slice(item.exprs[0]->span));
      }
      if (item.kind == BK::pareto) {
        pareto_ = true;
        maximize_ = item.maximize;
        t.objective = "pareto " + std::string(p_.sources.slice(item.span)).substr(7);
      }
      if (item.kind == BK::top) top_ = static_cast<std::size_t>(item.top);
    }
    if (has_subject_ && !t.search) t.cols.push_back(Column{"feasible", t_bool(), {}, s_.span});

    const bool fast = total > opt_.exact_limit;
    Evaluator ev(p_, cfg_, !fast);
    std::vector<PointOut> outs(total);
    unsigned threads = opt_.threads ? opt_.threads : std::max(1u, std::thread::hardware_concurrency());
    if (total < 64) threads = 1;
    std::atomic<std::size_t> next{0};
    std::vector<std::optional<std::pair<std::size_t, DiagnosticError>>> errors(threads);
    auto work = [&](unsigned tid) {
      constexpr std::size_t kChunk = 256;
      while (true) {
        const std::size_t start = next.fetch_add(kChunk);
        if (start >= total) return;
        const std::size_t end = std::min(total, start + kChunk);
        for (std::size_t i = start; i < end; ++i) {
          try {
            outs[i] = point(ev, domains, i, fast);
          } catch (DiagnosticError& e) {
            if (!errors[tid] || errors[tid]->first > i) errors[tid] = std::make_pair(i, e);
            return;
          }
        }
      }
    };
    if (threads == 1) {
      work(0);
    } else {
      std::vector<std::thread> pool;
      for (unsigned i = 0; i < threads; ++i) pool.emplace_back(work, i);
      for (auto& th : pool) th.join();
    }
    // The first failing point in enumeration order decides the error: deterministic.
    const std::pair<std::size_t, DiagnosticError>* first = nullptr;
    for (const auto& e : errors)
      if (e && (!first || e->first < first->first)) first = &*e;
    if (first) {
      Diagnostic d = first->second.diag;
      d.help.insert(d.help.begin(), "in " + std::string(t.search ? "search" : "sweep") + " '" + t.name + "' at " +
                                        point_text(domains, first->first));
      throw DiagnosticError{d};
    }

    // Assemble rows.
    std::vector<std::size_t> ranked;
    for (std::size_t i = 0; i < total; ++i) {
      PointOut& o = outs[i];
      for (auto& a : o.failed) asserts.push_back(std::move(a));
      if (o.filtered) {
        ++t.filtered;
        continue;
      }
      ++t.evaluated;
      if (!o.feasible) ++t.infeasible;
      if (t.search) {
        if (o.feasible) ranked.push_back(i);
      } else {
        ranked.push_back(i);
      }
    }
    if (t.search) rank(outs, ranked);
    for (std::size_t i : ranked) t.rows.push_back(Row{std::move(outs[i].key), std::move(outs[i].cells), i});
    // One display unit per column, fitted to its largest magnitude.
    for (std::size_t c = 0; c < t.cols.size(); ++c) {
      double biggest = 0;
      for (const auto& r : t.rows)
        if (r.cells[c].k == Value::K::num) biggest = std::max(biggest, std::fabs(r.cells[c].n.d));
      t.cols[c].display = display_for(p_, t.cols[c].type, biggest);
    }
    if (!t.search) regime_notes(p_, t);
    return t;
  }

 private:
  static Diagnostic make_error(ErrorKind k, Span s, std::string msg) {
    Diagnostic d;
    d.kind = k;
    d.span = s;
    d.message = std::move(msg);
    return d;
  }

  std::string point_text(const std::vector<std::vector<std::vector<Value>>>& domains, std::size_t index) const {
    auto key = key_of(domains, index);
    std::string s;
    std::size_t k = 0;
    for (const auto& b : s_.bindings)
      for (std::size_t i = 0; i < b.names.size(); ++i, ++k) {
        if (!s.empty()) s += ", ";
        s += sym_name(b.names[i]) + " = " + format_value(key[k], Display{});
      }
    return s;
  }

  std::vector<std::vector<Value>> domain(Evaluator& ev, const Binding& b) {
    std::vector<std::vector<Value>> out;
    if (b.zip) {
      std::vector<Value> lists;
      for (const auto& d : b.domains) lists.push_back(ev.eval_in(*d, s_.nslots));
      if (lists.size() != b.names.size())
        throw DiagnosticError{make_error(ErrorKind::sweep_decl, b.span,
                                         "zip binds " + std::to_string(b.names.size()) + " names to " +
                                             std::to_string(lists.size()) + " lists")};
      const std::size_t n = lists[0].list().items.size();
      for (std::size_t i = 1; i < lists.size(); ++i)
        if (lists[i].list().items.size() != n)
          throw DiagnosticError{make_error(ErrorKind::sweep_decl, b.domains[i]->span,
                                           "zip lists differ in length: " + std::to_string(n) + " and " +
                                               std::to_string(lists[i].list().items.size()))};
      for (std::size_t i = 0; i < n; ++i) {
        std::vector<Value> tuple;
        for (const auto& l : lists) tuple.push_back(l.list().items[i]);
        out.push_back(std::move(tuple));
      }
      return out;
    }
    Value from = ev.eval_in(*b.domains[0], s_.nslots);
    if (!b.range_to) {
      for (const auto& x : from.list().items) out.push_back({x});
      return out;
    }
    Value to = ev.eval_in(*b.range_to, s_.nslots);
    Value step = b.step ? ev.eval_in(*b.step, s_.nslots) : Value::number(Num::of_int(1));
    const bool mul = b.step_op == '*';
    const Expr& at = *b.domains[0];
    if (mul ? compare(step.n, Num::of_int(1)) <= 0 : compare(step.n, Num::of_int(0)) <= 0)
      throw DiagnosticError{make_error(ErrorKind::sweep_decl, b.step ? b.step->span : b.span,
                                       mul ? "a multiplicative step must be greater than 1" : "a range step must be positive")};
    if (mul && compare(from.n, Num::of_int(0)) <= 0)
      throw DiagnosticError{make_error(ErrorKind::sweep_decl, at.span, "a multiplicative range starts above 0")};
    Value x = from;
    while (compare(x.n, to.n) <= 0) {
      out.push_back({x});
      if (out.size() > opt_.max_points) break;  // the caller reports the cap
      x = ev.arith(mul ? Op::mul : Op::add, x, step, at);
    }
    return out;
  }

  std::vector<Value> key_of(const std::vector<std::vector<std::vector<Value>>>& domains, std::size_t index) const {
    // Cartesian product, first binding outermost (itertools.product order).
    std::vector<std::size_t> pick(domains.size());
    for (std::size_t b = domains.size(); b-- > 0;) {
      pick[b] = index % domains[b].size();
      index /= domains[b].size();
    }
    std::vector<Value> key;
    for (std::size_t b = 0; b < domains.size(); ++b)
      for (const auto& v : domains[b][pick[b]]) key.push_back(v);
    return key;
  }

  PointOut point(Evaluator& ev, const std::vector<std::vector<std::vector<Value>>>& domains, std::size_t index, bool fast) {
    PointOut o;
    o.key = key_of(domains, index);
    std::vector<Value> slots(static_cast<std::size_t>(std::max(s_.nslots, 1)));
    std::size_t k = 0;
    for (const auto& b : s_.bindings)
      for (std::size_t i = 0; i < b.slots.size(); ++i, ++k) {
        Value v = o.key[k];
        if (fast && v.k == Value::K::num) v.n = Num::of_double(v.n.d);
        slots[static_cast<std::size_t>(b.slots[i])] = v;
      }
    const DepSet fast_deps = fast ? ev.overflow_deps() : 0;
    for (const auto& item : s_.body) {
      switch (item.kind) {
        case BK::let: slots[static_cast<std::size_t>(item.slot)] = ev.eval(*item.exprs[0], slots.data(), 0); break;
        case BK::where:
          if (!ev.eval(*item.exprs[0], slots.data(), 0).b) {
            o.filtered = true;
            return o;
          }
          break;
        case BK::subject:
          for (const auto& x : item.exprs)
            if (!ev.eval(*x, slots.data(), 0).b) o.feasible = false;
          break;
        case BK::show:
          for (const auto& sh : item.shows) {
            Value v = ev.eval(*sh.expr, slots.data(), 0);
            if (fast_deps) v.deps = ev.unite(v.deps, fast_deps);
            o.cells.push_back(std::move(v));
          }
          break;
        case BK::assert_: {
          const Value v = ev.eval(*item.exprs[0], slots.data(), 0);
          if (!v.b) {
            AssertOutcome a;
            a.ok = false;
            a.span = item.exprs[0]->span;
            a.text = std::string(p_.sources.slice(item.exprs[0]->span));
            a.message = item.message;
            a.detail = "at " + point_text(domains, index);
            o.failed.push_back(std::move(a));
          }
          break;
        }
        case BK::maximize:
        case BK::minimize: o.objectives.push_back(ev.eval(*item.exprs[0], slots.data(), 0)); break;
        case BK::pareto:
          for (const auto& x : item.exprs) o.objectives.push_back(ev.eval(*x, slots.data(), 0));
          break;
        case BK::top: break;
      }
    }
    if (has_subject_ && s_.kind == SK::sweep) o.cells.push_back(Value::boolean(o.feasible));
    return o;
  }

  // Stable: ties keep enumeration order (as Python's sorted() in mlsysim's DSE).
  void rank(const std::vector<PointOut>& outs, std::vector<std::size_t>& idx) const {
    auto better = [&](std::size_t a, std::size_t b, std::size_t obj) {
      const int c = compare(outs[a].objectives[obj].n, outs[b].objectives[obj].n);
      return maximize_[obj] ? c > 0 : c < 0;
    };
    if (pareto_) {
      std::vector<std::size_t> front;
      for (std::size_t a : idx) {
        bool dominated = false;
        for (std::size_t b : idx) {
          if (a == b) continue;
          const bool no_worse = !better(a, b, 0) && !better(a, b, 1);
          const bool strictly = better(b, a, 0) || better(b, a, 1);
          if (no_worse && strictly) {
            dominated = true;
            break;
          }
        }
        if (!dominated) front.push_back(a);
      }
      idx = std::move(front);
    }
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return better(a, b, 0); });
    if (!pareto_ && idx.size() > top_) idx.resize(top_);
  }

  Program& p_;
  Checker& ck_;
  const Config& cfg_;
  const RunOptions& opt_;
  const Stmt& s_;
  bool has_subject_ = false;
  bool pareto_ = false;
  std::vector<bool> maximize_;
  std::size_t top_ = 5;
};

void expand_shown(const Program& p, const std::string& name, const Value& v, const TypeP& t, Span span,
                  std::vector<Shown>& out) {
  if (v.k == Value::K::record && t && t->k == Type::K::record) {
    for (const auto& [fname, fv] : v.rec().fields) {
      const TypeP* ft = t->field(fname);
      if (fv.k == Value::K::list) continue;
      expand_shown(p, name + "." + sym_name(fname), fv, ft ? *ft : nullptr, span, out);
    }
    return;
  }
  Shown s;
  s.name = name;
  s.value = v;
  s.type = t;
  s.display = display_for(p, t, v.k == Value::K::num ? v.n.d : 0);
  s.span = span;
  out.push_back(std::move(s));
}

}  // namespace

RunResult run_program(Program& p, Checker& ck, const Config& cfg, const RunOptions& opt) {
  return run_statements(p, ck, cfg, opt, p.main_stmts);
}

RunResult run_statements(Program& p, Checker& ck, const Config& cfg, const RunOptions& opt, const std::vector<Stmt*>& stmts) {
  RunResult r;
  r.preset = cfg.preset;
  r.preset_via = cfg.preset_via;
  for (std::size_t i = 0; i < p.conventions.size(); ++i)
    r.conventions.emplace_back(sym_name(p.conventions[i].name),
                               sym_name(p.conventions[i].stmt->choices[static_cast<std::size_t>(cfg.conv[i].choice)].name));
  std::sort(r.conventions.begin(), r.conventions.end());
  Evaluator ev(p, cfg, true);
  for (Stmt* s : stmts) {
    switch (s->kind) {
      case SK::show:
        for (const auto& it : s->shows) {
          const Value v = ev.eval_in(*it.expr, s->nslots);
          const std::size_t before = r.results.size();
          expand_shown(p, it.label, v, ck.show_type(&it), it.span, r.results);
          for (std::size_t i = before; i < r.results.size(); ++i) r.order.push_back({RunResult::Item::K::result, i});
        }
        break;
      case SK::assert_:
        for (const auto& it : s->shows) {
          const Value v = ev.eval_in(*it.expr, s->nslots);
          AssertOutcome a;
          a.ok = v.b;
          a.span = it.expr->span;
          a.text = it.label;
          a.message = s->str;
          if (!a.ok && it.expr->kind == EK::binary && it.expr->op >= Op::eq && it.expr->op <= Op::ge) {
            // Show both sides of a failed comparison, in the unit of the left side.
            const Value l = ev.eval_in(*it.expr->kids[0], s->nslots);
            const Value rr = ev.eval_in(*it.expr->kids[1], s->nslots);
            if (l.k == Value::K::num) {
              Display d;
              d.unit = "";
              a.detail = "left: " + format_sig(l.n, 10) + ", right: " + format_sig(rr.n, 10) + " (base units)";
            } else {
              a.detail = "left: " + format_value(l, {}) + ", right: " + format_value(rr, {});
            }
          }
          r.asserts.push_back(std::move(a));
          r.order.push_back({RunResult::Item::K::assertion, r.asserts.size() - 1});
        }
        break;
      case SK::sweep:
      case SK::search: {
        SweepRunner sr(p, ck, cfg, opt, *s);
        r.tables.push_back(sr.run(r.asserts));
        r.order.push_back({RunResult::Item::K::table, r.tables.size() - 1});
        break;
      }
      default: break;
    }
  }
  return r;
}

}  // namespace mls
