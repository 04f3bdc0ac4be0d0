// explain.cpp — finding the result a user names and evaluating it again under a Tracer that
// records each user-function call and computed global, with its value in a sensible unit.
#include "explain.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <unordered_map>

#include "grammar/symbols.hpp"
#include "interpreter/runtime/solve.hpp"
#include "interpreter/semantics/resolve.hpp"

namespace mls {

namespace {

constexpr int kUnknownInst = -2;  // the checker's instantiation could not be followed

[[noreturn]] void unknown(const std::string& msg, const std::string& near, std::vector<std::string> help) {
  Diagnostic d = make_diagnostic(ErrorKind::name_unknown, Span{}, msg);
  add_suggestion(d, near);
  for (auto& h : help) d.help.push_back(std::move(h));
  throw DiagnosticError{std::move(d)};
}

std::string join(const std::vector<std::string>& v, const char* sep, std::size_t max = 12) {
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < max; ++i) s += (i ? sep : "") + v[i];
  if (v.size() > max) s += std::string(sep) + "… (" + std::to_string(v.size() - max) + " more)";
  return s;
}

// The unit the result itself is shown in: steps of the same dimension use it too when it suits
// their magnitude, so a chain reads 4286 h, 66.96 h, 1.494 h rather than 178.6 day, 66.96 h, 89.64 min.
struct Preferred {
  TypeP type;
  Display display;
};

// A value for people: numbers in their type's display unit (`-> unit` in the formula), else the
// result's unit, else a human unit; records by a few fields.
std::string value_text(const Program& p, const Value& v, const TypeP& t, const Preferred* pref = nullptr,
                       int depth = 0) {
  switch (v.k) {
    case Value::K::num: {
      if (!t || t->k != Type::K::num) return format_sig(v.n, 4) + " (base units)";
      // A whole dimensionless number is a count (51200 tokens, batch 25), not a share: it is not
      // shown as a percentage because the result is one.
      if (!t->hint && pref && pref->type && pref->type->k == Type::K::num && pref->type->dim == t->dim &&
          !(t->dim == Dim{} && is_integer(v.n)) && !pref->display.unit.empty()) {
        const Num x = in_unit(v.n, pref->display);
        const double mag = std::fabs(x.d);
        if (mag >= 0.1 && mag < 1e5) {
          Display d = pref->display;
          d.resolution.reset();
          return value_with_unit(v, d);
        }
      }
      return value_with_unit(v, display_for(scope_of(p), t, v.n.d));
    }
    case Value::K::boolean:
    case Value::K::str: return format_value(v, Display{});
    case Value::K::list: return "[" + std::to_string(v.list().items.size()) + " items]";
    case Value::K::record: {
      const auto& fs = v.rec().fields;
      if (depth > 0) return "{" + std::to_string(fs.size()) + " fields}";
      std::string s = "{";
      for (std::size_t i = 0; i < fs.size() && i < 3; ++i) {
        const TypeP* ft = t && t->k == Type::K::record ? t->field(fs[i].first) : nullptr;
        s += (i ? ", " : "") + sym_name(fs[i].first) + ": " +
             value_text(p, fs[i].second, ft ? *ft : nullptr, pref, depth + 1);
      }
      return s + (fs.size() > 3 ? ", …}" : "}");
    }
  }
  return "?";
}

class ChainTracer final : public Tracer {
 public:
  ChainTracer(Program& p, Checker& ck, const ExplainOptions& o) : p_(p), ck_(ck), o_(o) {}

  void enter(const Stmt& fn, const Expr& call) override {
    Frame f;
    f.fn = &fn;
    f.call = &call;
    const int parent = frames_.empty() ? -1 : frames_.back().inst;
    f.inst = parent == kUnknownInst ? kUnknownInst : ck_.call_instance(call, parent);
    if (f.inst < 0) f.inst = kUnknownInst;
    f.step.text = sym_name(fn.name) + "()";
    f.step.at = p_.sources.where_line(fn.name_span);
    frames_.push_back(std::move(f));
  }

  void bound(const Stmt& fn, const Value* frame) override {
    Frame& f = frames_.back();
    std::string args;
    std::size_t positional = 0;
    std::vector<const Expr*> arg_expr(fn.params.size(), nullptr);
    for (const auto& a : f.call->args) {
      std::size_t idx = positional;
      if (a.name == kNoSym)
        ++positional;
      else
        for (std::size_t i = 0; i < fn.params.size(); ++i)
          if (fn.params[i].name == a.name) idx = i;
      if (idx < arg_expr.size()) arg_expr[idx] = a.value.get();
    }
    for (std::size_t i = 0; i < fn.params.size(); ++i) {
      const Value& v = frame[fn.params[i].slot];
      std::string text;
      if (v.k == Value::K::record || v.k == Value::K::list)
        text = record_name(v, arg_expr[i]);
      else
        text = value_text(p_, v, f.inst >= 0 ? ck_.instance_param(f.inst, i) : nullptr, &pref);
      args += (i ? ", " : "") + sym_name(fn.params[i].name) + " = " + text;
    }
    if (args.size() > o_.max_args) args = utf8_prefix(args, o_.max_args) + "…";
    f.step.text = sym_name(fn.name) + "(" + args + ")";
  }

  void enter_global(std::uint32_t g, bool cached) override {
    Frame f;
    f.global = static_cast<std::int64_t>(g);
    f.inst = -1;  // a global's definition is checked at the top level
    const GlobalDef& gd = p_.globals[g];
    f.step.text = sym_name(gd.name);
    f.step.at = p_.sources.where_line(gd.stmt->name_span);
    f.step.global = true;
    f.step.cached = cached;
    frames_.push_back(std::move(f));
  }

  void leave(const Value& result) override {
    Frame f = std::move(frames_.back());
    frames_.pop_back();
    TypeP t;
    if (f.global >= 0)
      t = ck_.global_type(static_cast<std::uint32_t>(f.global));
    else if (f.inst >= 0)
      t = ck_.instance_result(f.inst);
    f.step.value = value_text(p_, result, t, &pref);
    if (f.global >= 0 && result.h)
      record_names_.emplace(result.h.get(), sym_name(p_.globals[static_cast<std::size_t>(f.global)].name));
    if (f.step.value.size() > o_.max_value) f.step.value = utf8_prefix(f.step.value, o_.max_value) + "…";
    // A global that is plain data (a registry record) is not a step of a formula.
    if (f.global >= 0 && f.step.kids.empty()) {
      const Expr& def = *p_.globals[static_cast<std::size_t>(f.global)].stmt->value;
      if (def.kind == EK::record || def.kind == EK::list) return;
    }
    attach(std::move(f.step));
  }

  std::vector<ExplainStep> top;
  std::size_t top_hidden = 0;
  Preferred pref;  // the unit of the result being explained

 private:
  struct Frame {
    ExplainStep step;
    const Stmt* fn = nullptr;
    const Expr* call = nullptr;
    std::int64_t global = -1;
    int inst = -1;
  };

  // A record argument by the global it is (records are shared, not copied, as they are passed
  // on), else by the global it is written as, else elided.
  std::string record_name(const Value& v, const Expr* arg) const {
    if (v.k == Value::K::record && v.rec().label != kNoSym) return sym_name(v.rec().label);
    auto it = record_names_.find(v.h.get());
    if (it != record_names_.end()) return it->second;
    if (arg && arg->kind == EK::name && arg->ref.kind == RefKind::global) return sym_name(arg->name);
    return v.k == Value::K::list ? "[…]" : "{…}";
  }

  void attach(ExplainStep s) {
    // Depth of this step: 1 for a top-level step.
    const std::size_t depth = frames_.size() + 1;
    if (depth > std::max<std::size_t>(o_.max_depth, 1)) {
      ++frames_[std::max<std::size_t>(o_.max_depth, 1) - 1].step.hidden_deep;
      return;
    }
    std::vector<ExplainStep>& kids = frames_.empty() ? top : frames_.back().step.kids;
    std::size_t& hidden = frames_.empty() ? top_hidden : frames_.back().step.hidden_kids;
    if (!kids.empty() && kids.back().text == s.text && kids.back().value == s.value && kids.back().cached == s.cached) {
      ++kids.back().repeat;
      return;
    }
    if (kids.size() >= o_.max_children) {
      ++hidden;
      return;
    }
    kids.push_back(std::move(s));
  }

  Program& p_;
  Checker& ck_;
  const ExplainOptions& o_;
  std::vector<Frame> frames_;
  std::unordered_map<const void*, std::string> record_names_;
};

// Local slots an expression reads (sweep variables and earlier `let`s of a sweep body).
void slots_read(const Expr& e, std::set<int>& out) {
  if (e.kind == EK::name && e.ref.kind == RefKind::local) out.insert(static_cast<int>(e.ref.index));
  for_each_child(e, [&out](const Expr& k) { slots_read(k, out); });
}

std::string strip(const std::string& s) {
  std::string o;
  for (char c : s)
    if (c != ' ' && c != '"' && c != '\'') o += c;
  return o;
}

Display key_display(const Table& t, std::size_t k) {
  for (const auto& c : t.cols)
    if (c.name == t.key_names[k]) return c.display;
  return Display{};
}

std::string row_text(const Table& t, const Row& row) {
  std::string s;
  for (std::size_t k = 0; k < t.key_names.size() && k < row.key.size(); ++k)
    s += (s.empty() ? "" : ", ") + t.key_names[k] + "=" + value_with_unit(row.key[k], key_display(t, k));
  return s;
}

// Does the row match `spec` ("gpus=512, c=60 s" or, positionally, "512")?
bool row_matches(const Table& t, const Row& row, const std::string& spec) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = spec.find(',', start);
    items.push_back(spec.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (items.size() != t.key_names.size()) return false;
  for (std::size_t i = 0; i < items.size(); ++i) {
    std::string want = items[i];
    std::size_t k = i;
    const std::size_t eq = want.find('=');
    if (eq != std::string::npos) {
      const std::string key = strip(want.substr(0, eq));
      auto it = std::find(t.key_names.begin(), t.key_names.end(), key);
      if (it == t.key_names.end()) return false;
      k = static_cast<std::size_t>(it - t.key_names.begin());
      want = want.substr(eq + 1);
    }
    want = strip(want);
    const Display kd = key_display(t, k);
    const Value& v = row.key[k];
    if (want != strip(format_value(v, Display{})) && want != strip(format_value(v, kd)) &&
        want != strip(value_with_unit(v, kd)))
      return false;
  }
  return true;
}

const Stmt* sweep_of(const Program& p, const std::string& name) {
  for (const Stmt* s : p.main_stmts)
    if ((s->kind == SK::sweep || s->kind == SK::search) && sym_name(s->name) == name) return s;
  return nullptr;
}

}  // namespace

std::vector<std::string> explainable_names(const Program& p, const RunResult& r) {
  std::vector<std::string> names;
  for (const auto& s : r.results) names.push_back(s.name);
  for (const auto& t : r.tables)
    for (const auto& c : t.cols) names.push_back(t.name + "." + c.name);
  for (const auto& g : p.global_names()) names.push_back(g);
  return names;
}

namespace {

// What one explanation works with: the program, the choices, the run's options, the tracer.
struct Asked {
  Program& p;
  Checker& ck;
  const Config& cfg;
  const RunOptions& run_opt;
  const ExplainOptions& opt;
  ChainTracer& tr;
};

bool same_span(const Span& a, const Span& b) { return a.file == b.file && a.begin == b.begin && a.end == b.end; }

// What an explanation of a shown or solved value starts with: its text, where (`how` + the
// line) and the formula written at `formula`; the chain is traced by the caller.
Explanation explanation_of(Program& p, const Shown& s, const char* how, Span formula) {
  Explanation ex;
  ex.name = s.name;
  ex.value = value_with_unit(s.value, s.display);
  ex.what = how + p.sources.where_line(s.span);
  ex.span = s.span;
  ex.display = s.display;
  ex.formula = compact_text(p.sources.slice(formula), 160);
  ex.assumptions = assumptions_of(scope_of(p), deep_deps(s.value, p.deps));
  return ex;
}

// A solve's answer as it was shown (`min tau`, `max tau[2]`): the statement solved again under
// the tracer (the chain is the evaluations that found it) and the answer of the same label.
Explanation explain_solved(Asked& a, const Shown& s, const Stmt& st) {
  Program& p = a.p;
  Evaluator ev(p, a.cfg, true);
  ev.tracer = &a.tr;
  a.tr.pref = {s.type, s.display};
  const SolveOutcome out = solve_statement(ev, st, a.ck.expr_type(st.value->kids.at(0).get()));
  const std::vector<std::string> labels = solve_labels(out, sym_name(st.name));
  const auto at = std::find(labels.begin(), labels.end(), s.name);
  if (at == labels.end())
    unknown("'" + s.name + "' is no answer of the solve under this configuration", "",
            {"its answers now: " + join(labels, ", ")});
  const Value& v = out.answers[static_cast<std::size_t>(at - labels.begin())].value;
  if (a.opt.value) *a.opt.value = v;
  return explanation_of(p, s, "solved at ", st.value->span);
}

// 1. A shown value named `name`, evaluated again under the tracer; nullopt if none is.
std::optional<Explanation> explain_shown(Asked& a, const RunResult& r, const std::string& name) {
  Program& p = a.p;
  const Config& cfg = a.cfg;
  ChainTracer& tr = a.tr;
  const ExplainOptions& opt = a.opt;
  for (const auto& s : r.results) {
    if (s.name != name) continue;
    for (const Stmt* st : p.main_stmts) {
      if (st->kind == SK::solve && same_span(st->span, s.span)) return explain_solved(a, s, *st);
      if (st->kind != SK::show) continue;
      for (const auto& it : st->shows) {
        if (!same_span(it.span, s.span)) continue;
        Evaluator ev(p, cfg, true);
        ev.tracer = &tr;
        tr.pref = {s.type, s.display};
        const Value again = ev.eval_in(*it.expr, st->nslots);
        if (opt.value) *opt.value = again;
        return explanation_of(p, s, "shown at ", it.expr->span);
      }
    }
  }

  return std::nullopt;
}

// 2. A table cell, TABLE.COLUMN[ROW]: the point evaluated again as the run did; nullopt if `name`
// names no table of the run.
std::optional<Explanation> explain_cell(Asked& a, const RunResult& r, const std::string& asked) {
  // `COLUMN[KEY=VALUE]`, as a diff lists the cells a change moved under its table's heading:
  // the one table with that column and row.
  std::string name = asked;
  if (const std::size_t br = asked.find('[');
      br != std::string::npos && asked.back() == ']' && asked.substr(0, br).find('.') == std::string::npos) {
    const std::string col = strip(asked.substr(0, br)), spec = asked.substr(br + 1, asked.size() - br - 2);
    std::vector<const Table*> with;
    for (const auto& t : r.tables)
      for (const auto& c : t.cols)
        if (c.name == col &&
            std::any_of(t.rows.begin(), t.rows.end(), [&](const Row& row) { return row_matches(t, row, spec); }))
          with.push_back(&t);
    if (with.size() == 1) name = with[0]->name + "." + asked;
  }
  Program& p = a.p;
  ChainTracer& tr = a.tr;
  const ExplainOptions& opt = a.opt;
  const RunOptions& run_opt = a.run_opt;
  const Config& cfg = a.cfg;
  Explanation ex;
  const std::size_t dot = name.find('.');
  const Table* table = nullptr;
  if (dot != std::string::npos)
    for (const auto& t : r.tables)
      if (t.name == name.substr(0, dot)) table = &t;
  if (!table) return std::nullopt;
  {
    const Table& t = *table;
    std::string col = name.substr(dot + 1), spec;
    bool has_spec = false;
    if (const std::size_t br = col.find('['); br != std::string::npos) {
      if (col.back() != ']') unknown("a row key is written TABLE.COLUMN[KEY=VALUE], got '" + name + "'", "", {});
      spec = col.substr(br + 1, col.size() - br - 2);
      col = strip(col.substr(0, br));
      has_spec = true;
    }
    std::vector<std::string> cols;
    for (const auto& c : t.cols) cols.push_back(c.name);
    auto ci = std::find(cols.begin(), cols.end(), col);
    if (ci == cols.end())
      unknown("table '" + t.name + "' has no column '" + col + "'", closest(col, cols),
              {"its columns: " + join(cols, ", ")});
    const std::size_t c = static_cast<std::size_t>(ci - cols.begin());
    std::vector<std::string> rows;
    for (const auto& row : t.rows) rows.push_back(t.name + "." + col + "[" + row_text(t, row) + "]");
    const Row* found = nullptr;
    if (!has_spec && t.rows.size() == 1) found = &t.rows[0];
    for (const auto& row : t.rows)
      if (has_spec && !found && row_matches(t, row, spec)) found = &row;
    if (!found) {
      if (!has_spec)
        unknown("'" + name + "' needs a row: table '" + t.name + "' has " + std::to_string(t.rows.size()) + " rows", "",
                {"one of: " + join(rows, ", ", 8)});
      unknown("table '" + t.name + "' has no row " + spec, "", {"its rows: " + join(rows, ", ", 8)});
    }
    const Stmt* sw = sweep_of(p, t.name);
    if (!sw) unknown("table '" + t.name + "' has no sweep to evaluate again", "", {});
    // The point again, exactly as the run evaluated it (binary64 when the sweep was large).
    const bool fast = t.evaluated + t.filtered > run_opt.exact_limit;
    Evaluator ev(p, cfg, !fast);
    std::vector<Value> slots(static_cast<std::size_t>(std::max(sw->nslots, 1)));
    std::size_t k = 0;
    for (const auto& b : sw->bindings)
      for (std::size_t i = 0; i < b.slots.size() && k < found->key.size(); ++i, ++k) {
        Value v = found->key[k];
        if (fast && v.k == Value::K::num) v.n = Num::of_double(v.n.d);
        slots[static_cast<std::size_t>(b.slots[i])] = v;
      }
    // The column's expression (a search's first column may be its `top K per EXPR` group, EXPR),
    // or the subject-to conditions for the `feasible` column.
    std::vector<const Expr*> target;
    std::size_t shown = t.per_column ? 1 : 0;
    if (t.per_column && c == 0)
      for (const auto& item : sw->body)
        if (item.kind == BK::top && !item.exprs.empty()) target.push_back(item.exprs[0].get());
    for (const auto& item : sw->body)
      if (item.kind == BK::show)
        for (const auto& sh : item.shows)
          if (shown++ == c) target.push_back(sh.expr.get());
    if (target.empty())
      for (const auto& item : sw->body)
        if (item.kind == BK::subject)
          for (const auto& x : item.exprs) target.push_back(x.get());
    // Only the `let`s the target reads are evaluated (each reads only earlier ones).
    std::set<int> need;
    for (const Expr* e : target) slots_read(*e, need);
    for (auto it = sw->body.rbegin(); it != sw->body.rend(); ++it)
      if (it->kind == BK::let && need.count(it->slot)) slots_read(*it->exprs[0], need);
    ev.tracer = &tr;
    tr.pref = {t.cols[c].type, t.cols[c].display};
    for (const auto& item : sw->body)
      if (item.kind == BK::let && need.count(item.slot))
        slots[static_cast<std::size_t>(item.slot)] = ev.eval(*item.exprs[0], slots.data(), 0);
    std::string formula;
    for (const Expr* e : target) {
      const Value again = ev.eval(*e, slots.data(), 0);
      if (opt.value) *opt.value = again;
      formula += (formula.empty() ? "" : " and ") + compact_text(p.sources.slice(e->span), 160);
    }
    const Value& cell = found->cells[c];
    ex.name = t.name + "." + col + "[" + row_text(t, *found) + "]";
    ex.value = value_with_unit(cell, t.cols[c].display);
    ex.what = std::string(t.search ? "search " : "table ") + t.name + ", column " + col + ", row " +
              row_text(t, *found) + " — shown at " + p.sources.where_line(t.cols[c].span);
    ex.formula = formula;
    ex.span = t.cols[c].span;
    ex.display = t.cols[c].display;
    ex.assumptions = assumptions_of(scope_of(p), cell.deps);
    return ex;
  }
}

// A field of the global `g` along `path`, evaluated under the tracer; nullopt if the path names
// no field of its type.
std::optional<Explanation> explain_field(Asked& a, const std::string& name, std::uint32_t g,
                                         const std::vector<Sym>& path) {
  Program& p = a.p;
  TypeP t = a.ck.global_type(g);
  for (Sym f : path) {
    const TypeP* ft = t && t->k == Type::K::record ? t->field(f) : nullptr;
    if (!ft) return std::nullopt;
    t = *ft;
  }
  Evaluator ev(p, a.cfg, true);
  ev.tracer = &a.tr;
  Value v = ev.global(g);
  for (Sym f : path) {
    const Value* fv = v.k == Value::K::record ? v.rec().get(f) : nullptr;
    if (!fv) return std::nullopt;
    v = *fv;
  }
  if (a.opt.value) *a.opt.value = v;
  const Display disp = display_for(scope_of(p), t, v.k == Value::K::num ? v.n.d : 0);
  a.tr.pref = {t, disp};
  const GlobalDef& gd = p.globals[g];
  Explanation ex;
  ex.name = name;
  ex.value = value_text(p, v, t);
  ex.what = "a field of " + sym_name(gd.name) + ", defined at " + p.sources.where_line(gd.stmt->name_span);
  ex.formula = compact_text(p.sources.slice(gd.stmt->value->span), 160);
  ex.span = gd.stmt->name_span;
  ex.display = disp;
  ex.assumptions = assumptions_of(scope_of(p), deep_deps(v, p.deps));
  return ex;
}

// A parameter's default, as an assumption list names it (`train.zero_stage`): the default as
// written; its value when it is a literal (one that reads other parameters has none of its own).
std::optional<Explanation> explain_default(Asked& a, const std::string& name, const FunctionDef& fn, Sym param) {
  const Program& p = a.p;
  for (const auto& prm : fn.stmt->params) {
    if (prm.name != param || !prm.default_value) continue;
    const Expr& e = *prm.default_value;
    Explanation ex;
    ex.name = name;
    ex.formula = compact_text(p.sources.slice(e.span), 160);
    ex.value = ex.formula;
    if (e.kind == EK::num || e.kind == EK::boolean || e.kind == EK::str) {
      Evaluator ev(a.p, a.cfg, true);
      const Value v = ev.eval_in(e, fn.stmt->nslots);
      if (a.opt.value) *a.opt.value = v;
      ex.assumptions = assumptions_of(scope_of(p), v.deps);
    }
    ex.what = "the default of " + sym_name(fn.name) + "()'s parameter " + sym_name(param) + ", at " +
              p.sources.where_line(prm.span);
    ex.span = prm.span;
    return ex;
  }
  return std::nullopt;
}

// 3. A global; anything else is unknown, said with what can be explained.
Explanation explain_global(Asked& a, const RunResult& r, const std::string& name) {
  Program& p = a.p;
  Checker& ck = a.ck;
  ChainTracer& tr = a.tr;
  const ExplainOptions& opt = a.opt;
  const Config& cfg = a.cfg;
  Explanation ex;
  // A field of a global, as assumption lists and uncertainty drivers name it (`H100.unit_cost`,
  // `llama3_interruptions.gpu`): the global, then the path.
  std::vector<Sym> path;
  std::string head = name;
  if (const std::size_t dot = name.find('.'); dot != std::string::npos && !p.lookup(intern(name))) {
    head = name.substr(0, dot);
    for (std::size_t at = dot; at != std::string::npos;) {
      const std::size_t next = name.find('.', at + 1);
      path.push_back(intern(name.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1)));
      at = next;
    }
  }
  const Decl* d = p.lookup(intern(head));
  if (d && d->kind == RefKind::global && !path.empty())
    if (auto field = explain_field(a, name, d->index, path)) return std::move(*field);
  if (d && d->kind == RefKind::function && path.size() == 1)
    if (auto def = explain_default(a, name, p.functions[d->index], path[0])) return std::move(*def);
  if (!d || d->kind != RefKind::global || !path.empty()) {
    std::vector<std::string> shown, tables;
    for (const auto& s : r.results) shown.push_back(s.name);
    for (const auto& t : r.tables) {
      std::vector<std::string> cols;
      for (const auto& c : t.cols) cols.push_back(c.name);
      tables.push_back(t.name + " (" + join(cols, ", ") + ")");
    }
    std::vector<std::string> help;
    if (!shown.empty()) help.push_back("shown values: " + join(shown, ", "));
    if (!tables.empty()) help.push_back("tables: " + join(tables, "; ") + " — name a cell as TABLE.COLUMN[KEY=VALUE]");
    help.push_back("any global name (a parameter or computed value) can be explained too");
    unknown("nothing named '" + name + "' to explain", closest(name, explainable_names(p, r)), std::move(help));
  }
  const GlobalDef& gd = p.globals[d->index];
  const TypeP gt = ck.global_type(d->index);
  // A parameter is shown in the unit it is written in (50000 h, not 2083 day).
  Display gdisp = display_for(scope_of(p), gt, 0);
  bool written_unit = false;
  if (gt && gt->k == Type::K::num && !gt->hint && gd.stmt->value->kind == EK::num && gd.stmt->value->unit)
    if (auto u = ck.resolve_unit(*gd.stmt->value->unit, false)) {
      gdisp.unit = gd.stmt->value->unit->text;
      gdisp.factor = u->factor;
      written_unit = true;
    }
  Evaluator ev(p, cfg, true);
  ev.tracer = &tr;
  if (written_unit) tr.pref = {gt, gdisp};
  const Value v = ev.global(d->index);
  if (opt.value) *opt.value = v;
  if (!written_unit) tr.pref = {gt, display_for(scope_of(p), gt, v.k == Value::K::num ? v.n.d : 0)};
  // The global itself is the root; its step's calls are the chain.
  if (tr.top.size() == 1 && tr.top[0].global && tr.top[0].text == name) {
    ExplainStep root = std::move(tr.top[0]);
    tr.top = std::move(root.kids);
    tr.top_hidden = root.hidden_kids;
  }
  ex.name = name;
  ex.value = written_unit ? value_with_unit(v, gdisp) : value_text(p, v, gt);
  ex.what =
      std::string(gd.literal ? "parameter" : "global") + " defined at " + p.sources.where_line(gd.stmt->name_span);
  ex.formula = compact_text(p.sources.slice(gd.stmt->value->span), 160);
  ex.span = gd.stmt->name_span;
  ex.display = written_unit ? gdisp : tr.pref.display;
  ex.assumptions = assumptions_of(scope_of(p), deep_deps(v, p.deps));
  return ex;
}

}  // namespace

Explanation explain(Program& p, Checker& ck, const Config& cfg, const RunResult& r, const std::string& name,
                    const RunOptions& run_opt, const ExplainOptions& opt) {
  ChainTracer tr(p, ck, opt);
  Asked a{p, ck, cfg, run_opt, opt, tr};
  std::optional<Explanation> ex = explain_shown(a, r, name);
  if (!ex) ex = explain_cell(a, r, name);
  if (!ex) ex = explain_global(a, r, name);
  ex->chain = std::move(tr.top);
  ex->hidden_kids = tr.top_hidden;
  return std::move(*ex);
}

namespace {

void render_steps(std::vector<std::pair<std::string, std::string>>& lines, const std::vector<ExplainStep>& steps,
                  std::size_t hidden, std::size_t depth) {
  const std::string indent(2 + 2 * depth, ' ');
  for (const auto& s : steps) {
    std::string text = indent + s.text + " = " + s.value;
    if (s.repeat > 1) text += "  (×" + std::to_string(s.repeat) + ")";
    if (s.cached) text += "  (computed above)";
    lines.emplace_back(text, s.at);
    render_steps(lines, s.kids, s.hidden_kids, depth + 1);
    if (s.hidden_deep)
      lines.emplace_back(indent + "  … " + std::to_string(s.hidden_deep) + " deeper call" +
                             (s.hidden_deep == 1 ? "" : "s") + " not shown",
                         "");
  }
  if (hidden) lines.emplace_back(indent + "… " + std::to_string(hidden) + " more call" + (hidden == 1 ? "" : "s"), "");
}

// Display width of UTF-8 text (the ellipsis and the multiplication sign are one column).
std::size_t width(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char ch : s)
    if ((ch & 0xC0) != 0x80) ++n;
  return n;
}

}  // namespace

std::string format_explanation(const Explanation& e) {
  std::string out = e.name + " = " + e.value + "\n";
  out += "  " + e.what + "\n";
  out += "  formula: " + e.formula + "\n";
  out += "\nformula chain:\n";
  std::vector<std::pair<std::string, std::string>> lines;
  render_steps(lines, e.chain, e.hidden_kids, 0);
  if (lines.empty()) out += "  no function or computed global is involved: the formula above computes it directly\n";
  // Locations in one column, unless a line is too long to be worth aligning to.
  std::size_t w = 0;
  for (const auto& [t, at] : lines)
    if (width(t) <= 72) w = std::max(w, width(t));
  for (const auto& [t, at] : lines) {
    std::string line = t;
    if (!at.empty()) line += std::string(width(t) < w ? w - width(t) + 2 : 2, ' ') + at;
    out += line + "\n";
  }
  out += "\nassumptions:\n";
  if (e.assumptions.empty()) out += "  none\n";
  assumption_block(out, e.assumptions, "  ");
  return out;
}

}  // namespace mls
