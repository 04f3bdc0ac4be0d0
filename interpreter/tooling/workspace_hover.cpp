// workspace_hover.cpp — hover: what a name or shown column is (its dimension), its value in its
// display unit and the assumptions behind it. Values are computed only when asked (never on a
// keystroke) and bounded: a sweep with more than limits.hover_points points is not run, and any
// evaluation is stopped after limits.hover_millis (the evaluator polls the Ctrl-C flag, which a
// watchdog raises); the hover then says "not evaluated" and why.
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "grammar/symbols.hpp"
#include "interpreter/results/format.hpp"
#include "interpreter/runtime/interrupt.hpp"
#include "interpreter/semantics/resolve.hpp"
#include "interpreter/semantics/stack.hpp"
#include "workspace_impl.hpp"

namespace mls {

namespace {

// Raises the interrupt flag if the evaluation is still running after `millis`, or as soon as
// `cancelled` says so.
class Deadline {
 public:
  Deadline(unsigned millis, const std::function<bool()>& cancelled)
      : thread_([this, millis, &cancelled] {
          const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(millis);
          std::unique_lock lock(mu_);
          while (!done_) {
            if (cancelled && cancelled()) {
              cancelled_ = true;
              break;
            }
            if (std::chrono::steady_clock::now() >= end) {
              fired_ = true;
              break;
            }
            cv_.wait_for(lock, std::chrono::milliseconds(10));
          }
          if (!done_) g_interrupted.store(true);
        }) {}
  ~Deadline() {
    {
      const std::lock_guard lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
    g_interrupted.store(false);
  }
  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;
  [[nodiscard]] bool fired() const { return fired_; }
  [[nodiscard]] bool cancelled() const { return cancelled_; }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::atomic<bool> fired_{false}, cancelled_{false};
  std::thread thread_;  // last: starts after the members it uses
};

// Runs `fn` under the hover bounds; "" or why there is no value.
std::string bounded(const WorkspaceLimits& lim, const std::function<void()>& fn) {
  try {
    const Deadline deadline(lim.hover_millis, lim.cancelled);
    try {
      run_on_pipeline_stack(fn);
    } catch (const DiagnosticError& e) {
      if (deadline.cancelled()) return "not evaluated (cancelled: the document changed or another request came)";
      if (deadline.fired() || e.diag.kind == ErrorKind::interrupted)
        return fmt::format("not evaluated (took longer than {} ms; `mls run` evaluates it)", lim.hover_millis);
      if (e.diag.kind == ErrorKind::sweep_too_large)
        return fmt::format("not evaluated (too large: more than {} points; `mls run` evaluates it)", lim.hover_points);
      return "evaluation failed: " + e.diag.message;
    }
  } catch (const std::bad_alloc&) {
    return "not evaluated (out of memory)";
  } catch (const std::system_error&) {
    return "not evaluated (no thread for the time bound)";
  }
  return "";
}

// A value in its display unit; records one level deep, one field a line.
std::string value_md(const Program& p, const Value& v, const TypeP& t) {
  switch (v.k) {
    case Value::K::num: return "`" + value_with_unit(v, display_for(scope_of(p), t, v.n.d)) + "`";
    case Value::K::boolean:
    case Value::K::str: return "`" + value_with_unit(v, Display{}) + "`";
    case Value::K::list: return "a list of " + std::to_string(v.list().items.size());
    case Value::K::record: {
      std::string out = "a record";
      std::size_t shown = 0;
      for (const auto& [name, fv] : v.rec().fields) {
        if (++shown > 24) {
          out += "\n- …";
          break;
        }
        const TypeP* ft = t ? t->field(name) : nullptr;
        out += "\n- " + sym_name(name) + ": ";
        out += fv.k == Value::K::record ? "a record" : value_md(p, fv, ft ? *ft : TypeP{});
      }
      return out;
    }
  }
  return "";
}

std::string assumptions_md(const Program& p, DepSet d) {
  const auto views = assumptions_of(scope_of(p), d);
  if (views.empty()) return "\n\ndepends on no assumption";
  // The band in words: "validated" only on the value's own domain (docs/validation.md).
  const std::string band = band_summary(views);
  std::string block;
  assumption_block(block, views, "");
  return (band.empty() ? std::string() : "\n\n" + band) +
         fmt::format("\n\n{} assumption{}:\n```\n{}```", views.size(), views.size() == 1 ? "" : "s", block);
}

std::string type_md(const Program& p, const TypeP& t) {
  if (!t || t->k == Type::K::error || t->k == Type::K::pending) return "";
  return describe(*t, p.units);
}

// The comment lines right above a declaration: its documentation in the stdlib's style.
std::string doc_comment(const Program& p, Span s) {
  if (!s.valid()) return "";
  const std::string_view text = p.sources.get(s.file).text;
  std::size_t line_start = text.rfind('\n', s.begin == 0 ? 0 : s.begin - 1);
  if (line_start == std::string_view::npos) return "";
  std::vector<std::string_view> lines;
  while (line_start > 0 && lines.size() < 12) {
    const std::size_t prev = text.rfind('\n', line_start - 1);
    const std::size_t b = prev == std::string_view::npos ? 0 : prev + 1;
    std::string_view l = text.substr(b, line_start - b);
    while (!l.empty() && (l.front() == ' ' || l.front() == '\t')) l.remove_prefix(1);
    if (l.empty() || l.front() != '#') break;
    l.remove_prefix(1);
    if (!l.empty() && l.front() == ' ') l.remove_prefix(1);
    lines.push_back(l);
    if (prev == std::string_view::npos) break;
    line_start = prev;
  }
  std::string out;
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) out += std::string(*it) + "\n";
  return out.empty() ? "" : "\n\n" + out;
}

// The first line of a statement as written ("let step(gpus) = train(...").
std::string first_line(const Program& p, Span s) {
  std::string_view t = p.sources.slice(s);
  return compact_text(t.substr(0, t.find('\n')), 120);
}

// Why a value is not evaluated ("" when it is). In a document with errors, a value is evaluated
// unless one of them reaches it (error_reach.hpp): it then names the nearest. `t` is its type, an
// error type is one more reason (an error the checker reported once, for another statement).
std::string unevaluated(const Workspace::Analysis& an, const std::optional<ErrorCause>& cause, const Stmt* self,
                        const TypeP& t) {
  constexpr const char* kErrors = "not evaluated (the document has errors)";
  if (!an.reach) return an.cfg ? "" : kErrors;
  if (cause) {
    const Program& p = an.s->prog;
    if (!cause->at.valid()) return kErrors;
    const SourceFile& f = p.sources.get(cause->at.file);
    const std::uint32_t line = f.shown_line(f.locate(cause->at.begin).line);
    const std::string where =
        cause->at.file == p.main_file ? fmt::format("line {}", line) : fmt::format("{}:{}", f.name, line);
    if (self && cause->at.begin == self->span.begin && cause->at.file == self->span.file)
      return fmt::format("not evaluated: it has an error ({})", where);
    if (cause->everything)
      return fmt::format("not evaluated: {} ({}) has an error, and it could change any value", cause->what, where);
    return fmt::format("not evaluated: depends on {} ({}), which has an error", cause->what, where);
  }
  if (!an.cfg)
    return "not evaluated (" + (an.no_config.empty() ? std::string("the document has errors") : an.no_config) + ")";
  if (t && (t->k == Type::K::error || t->k == Type::K::pending)) return kErrors;
  return "";
}

std::string global_md(Workspace::Analysis& an, std::uint32_t g, const WorkspaceLimits& lim) {
  Program& p = an.s->prog;
  const GlobalDef& def = p.globals[g];
  std::string md = "**" + sym_name(def.name) + "**";
  if (const std::string t = type_md(p, def.type); !t.empty()) md += ": " + t;
  if (def.stdlib) md += " (stdlib)";
  const std::string no = unevaluated(an, an.reach ? an.reach->cause_of_global(g) : std::nullopt, def.stmt,
                                     def.type ? def.type : t_error());
  if (!no.empty()) return md + "\n\n" + no + doc_comment(p, def.stmt ? def.stmt->span : Span{});
  std::optional<Value> v;
  const std::string why = bounded(lim, [&] {
    Evaluator ev(p, *an.cfg, true);
    v = ev.global(g);
  });
  if (v) md += "\n\n= " + value_md(p, *v, def.type) + assumptions_md(p, deep_deps(*v, p.deps));
  if (!why.empty()) md += "\n\n" + why;
  return md + doc_comment(p, def.stmt ? def.stmt->span : Span{});
}

// A shown value at the top level: evaluated alone, in the statement's frame.
std::string shown_md(Workspace::Analysis& an, const Stmt& st, const ShowItem& si, const WorkspaceLimits& lim) {
  Program& p = an.s->prog;
  const TypeP t = an.s->ck.show_type(&si);
  std::string md = "**show " + si.label + "**";
  if (const std::string ts = type_md(p, t); !ts.empty()) md += ": " + ts;
  const std::string no = unevaluated(an, an.reach ? an.reach->cause(st) : std::nullopt, &st, t ? t : t_error());
  if (!no.empty()) return md + "\n\n" + no;
  std::optional<Value> v;
  const std::string why = bounded(lim, [&] {
    Evaluator ev(p, *an.cfg, true);
    v = ev.eval_in(*si.expr, st.nslots);
  });
  if (v) md += "\n\n= " + value_md(p, *v, t) + assumptions_md(p, deep_deps(*v, p.deps));
  if (!why.empty()) md += "\n\n" + why;
  return md;
}

// A column of a sweep or search: the statement is run alone (bounded) and the column read back.
std::string column_md(Workspace::Analysis& an, const Stmt& st, const std::string& label, const WorkspaceLimits& lim) {
  Program& p = an.s->prog;
  std::string md =
      "**" + label + "**: column of " + std::string(st.kind == SK::search ? "search " : "sweep ") + sym_name(st.name);
  // Every column's type: an error type in one (reported once, elsewhere) stops the run.
  TypeP worst = t_bool();
  for (const BodyItem& b : st.body)
    for (const ShowItem& si : b.shows)
      if (const TypeP t = an.s->ck.show_type(&si); !t || t->k == Type::K::error || t->k == Type::K::pending)
        worst = t_error();
  const std::string no = unevaluated(an, an.reach ? an.reach->cause(st) : std::nullopt, &st, worst);
  if (!no.empty()) return md + "\n\n" + no;
  RunOptions opt;
  opt.max_points = lim.hover_points;
  opt.threads = 1;
  RunResult r;
  const std::string why =
      bounded(lim, [&] { r = run_statements(p, an.s->ck, *an.cfg, opt, {const_cast<Stmt*>(&st)}); });
  if (!why.empty()) return md + "\n\n" + why;
  for (const Table& t : r.tables)
    for (std::size_t c = 0; c < t.cols.size(); ++c) {
      if (t.cols[c].name != label) continue;
      const Column& col = t.cols[c];
      if (const std::string ts = type_md(p, col.type); !ts.empty()) md += ": " + ts;
      md += fmt::format("\n\n{} row{}", t.rows.size(), t.rows.size() == 1 ? "" : "s");
      if (!t.rows.empty()) {
        auto cell = [&](const Row& row) {
          std::string key;
          for (std::size_t k = 0; k < row.key.size() && k < t.key_names.size(); ++k)
            key += (key.empty() ? "" : ", ") + t.key_names[k] + " = " + format_value(row.key[k], Display{});
          return "`" + value_with_unit(row.cells[c], col.display) + "`" + (key.empty() ? "" : " at " + key);
        };
        md += ": first " + cell(t.rows.front());
        if (t.rows.size() > 1) md += ", last " + cell(t.rows.back());
      }
      if (c < t.col_deps.size()) md += assumptions_md(p, t.col_deps[c]);
      return md;
    }
  return md + "\n\n(not a column of the table)";
}

std::string unit_md(const Program& p, const UnitTerm& u) {
  const UnitDef* d = p.units.unit(u.atom);
  if (!d) return "unknown unit `" + u.atom + "`";
  const std::string base = p.units.base_units(d->dim);
  return fmt::format("**unit {}**: {} — 1 {} = {}{}{}", d->name, p.units.dim_name(d->dim), d->name,
                     format_sig(d->factor, 12), base.empty() ? "" : " " + base,
                     d->description.empty() ? "" : "\n\n" + d->description);
}

std::string convention_md(Workspace::Analysis& an, int ci) {
  const Program& p = an.s->prog;
  const ConventionDef& c = p.conventions[static_cast<std::size_t>(ci)];
  std::string md = "**convention " + sym_name(c.name) + "**";
  if (!c.stmt->str.empty()) md += " — " + c.stmt->str;
  // A choice an error reaches (`use hfu = nonsense`) is not known: none is marked current.
  const auto cause = an.reach ? an.reach->cause_of_convention(static_cast<std::uint32_t>(ci)) : std::nullopt;
  const int current = cause || (an.reach && !an.cfg) ? -1
                      : an.cfg                       ? an.cfg->conv[static_cast<std::size_t>(ci)].choice
                                                     : c.default_choice;
  for (std::size_t k = 0; k < c.stmt->choices.size(); ++k) {
    const Choice& ch = c.stmt->choices[k];
    md += fmt::format("\n- {}`{}` {}{}", static_cast<int>(k) == current ? "**current** " : "", sym_name(ch.name),
                      ch.description, static_cast<int>(k) == c.default_choice ? " (default)" : "");
  }
  if (current < 0) {
    const std::string no = unevaluated(an, cause, nullptr, nullptr);  // "not evaluated: depends on ..."
    md += "\n\nno current choice" + no.substr(std::string_view("not evaluated").size());
  }
  return md;
}

std::string decl_md(Workspace::Analysis& an, const Decl& d, const WorkspaceLimits& lim) {
  Program& p = an.s->prog;
  switch (d.kind) {
    case RefKind::global: return global_md(an, d.index, lim);
    case RefKind::function: {
      const FunctionDef& f = p.functions[d.index];
      return "```mls\n" + first_line(p, f.stmt->span) + "\n```" + (f.stdlib ? " (stdlib)" : "") +
             doc_comment(p, f.stmt->span);
    }
    case RefKind::native: {
      const NativeDef& n = p.natives[d.index];
      return "```mls\n" + first_line(p, n.stmt->span) + "\n```\nnative" +
             (n.stmt->str.empty() ? "" : ": " + n.stmt->str) + doc_comment(p, n.stmt->span);
    }
    case RefKind::convention: return convention_md(an, static_cast<int>(d.index));
    default: return "";
  }
}

}  // namespace

std::optional<HoverInfo> hover_of(Workspace::Analysis& an, const Hit& h, const WorkspaceLimits& lim) {
  Program& p = an.s->prog;
  std::string md;
  const Stmt* st = h.stmt;
  const bool in_table = st && (st->kind == SK::sweep || st->kind == SK::search);
  // A shown item's label, or a bare name shown as a column (`show gpus, ...` in a sweep).
  const bool column_or_show =
      h.show && (h.k == Hit::K::show_label || (h.k == Hit::K::name && h.expr == h.show->expr.get()));
  if (column_or_show && in_table) {
    md = column_md(an, *st, h.show->label, lim);
  } else if (column_or_show && st->kind == SK::show) {
    md = shown_md(an, *st, *h.show, lim);
  } else if (h.k == Hit::K::name || h.k == Hit::K::decl) {
    const Decl* d = h.k == Hit::K::name && h.expr->ref.kind == RefKind::local ? nullptr : p.lookup(h.name);
    if (d) md = decl_md(an, *d, lim);
    if (!d && h.k == Hit::K::name && h.expr->ref.kind == RefKind::local && st)
      md = "**" + sym_name(h.name) + "**: local of `" + first_line(p, st->span) + "`";
    if (!d && h.k == Hit::K::decl && st) md = "```mls\n" + first_line(p, st->span) + "\n```" + doc_comment(p, st->span);
  } else if (h.k == Hit::K::local_decl && st) {
    md = "**" + sym_name(h.name) + "**: local of `" + first_line(p, st->span) + "`";
  } else if (h.k == Hit::K::unit && h.unit) {
    md = unit_md(p, *h.unit);
  } else if (h.k == Hit::K::use) {
    if (const int ci = p.convention_index(h.name); ci >= 0) md = convention_md(an, ci);
  } else if (h.k == Hit::K::preset) {
    if (const int pi = p.preset_index(h.name); pi >= 0)
      md = "```mls\n" + first_line(p, p.presets[static_cast<std::size_t>(pi)].stmt->span) + "\n```";
  } else if (h.k == Hit::K::field) {
    md = "field **" + sym_name(h.name) + "**";
  }
  if (md.empty()) return std::nullopt;
  return HoverInfo{range_of(p, h.span), md};
}

}  // namespace mls
