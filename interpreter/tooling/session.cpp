// session.cpp — `mls repl` over the session core: each input is one transaction of the core (added,
// checked, its choices rebuilt when one changed, its statements run; any error undoes all of it);
// here the REPL adds what it prints of an input (definitions, choice changes), `ans` (a hidden
// global per answer), redefinition at the prompt and advice fitted to the prompt.
#include "session.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "driver.hpp"
#include "grammar/parse.hpp"
#include "grammar/symbols.hpp"
#include "interpreter/runtime/interrupt.hpp"
#include "session_text.hpp"

namespace mls {

namespace {

bool is_value_decl(RefKind k) { return k == RefKind::global || k == RefKind::function; }

// What the input's choices did: each `preset`/`use` it contains (changed or not) and every
// convention that moved (a preset moves several at once).
std::vector<std::string> choice_changes(const Program& p, const Config& prev, const Config& now,
                                        std::size_t first_stmt) {
  std::vector<std::string> out;
  auto choice = [&](const Config& c, std::size_t i) {
    return sym_name(p.conventions[i].stmt->choices[static_cast<std::size_t>(c.conv[i].choice)].name);
  };
  std::vector<std::size_t> named;
  bool preset_named = false;
  for (std::size_t k = first_stmt; k < p.main_stmts.size(); ++k) {
    const Stmt& s = *p.main_stmts[k];
    if (s.kind == SK::preset_select) preset_named = true;
    const int ci = s.kind == SK::use ? p.convention_index(s.name) : -1;
    if (ci >= 0 && std::find(named.begin(), named.end(), static_cast<std::size_t>(ci)) == named.end())
      named.push_back(static_cast<std::size_t>(ci));
  }
  if (prev.preset != now.preset)
    out.push_back("preset " + now.preset + " (was " + prev.preset + ")");
  else if (preset_named)
    out.push_back("preset " + now.preset + " (unchanged)");
  for (std::size_t i = 0; i < prev.conv.size() && i < now.conv.size(); ++i) {
    const bool moved = prev.conv[i].choice != now.conv[i].choice;
    if (!moved && std::find(named.begin(), named.end(), i) == named.end()) continue;
    out.push_back(sym_name(p.conventions[i].name) + " = " + choice(now, i) +
                  (moved ? " (was " + choice(prev, i) + ")" : " (unchanged)"));
  }
  return out;
}

// Whether an (unresolved) expression mentions `name`.
bool mentions(const Expr& e, Sym name) {
  if ((e.kind == EK::name || e.kind == EK::call) && e.name == name) return true;
  bool found = false;
  for_each_child(e, [&](const Expr& k) { found = found || mentions(k, name); });
  return found;
}

// `let t = 3 h` echoes "t = 3 h", not the human unit of 10800 s ("180 min").
std::optional<Display> written_display(Checker& ck, const Expr& e) {
  const Expr* num = e.kind == EK::unary && e.op == Op::neg ? e.kids[0].get() : &e;
  if (num->kind != EK::num || !num->unit) return std::nullopt;
  auto u = ck.resolve_unit(*num->unit, false);
  if (!u) return std::nullopt;
  Display d;
  d.unit = num->unit->text;
  d.factor = u->factor;
  return d;
}

// Names of the hidden globals that hold answers; '#' cannot appear in a typed name.
constexpr const char* kAnswerPrefix = "ans#";

}  // namespace

bool Outcome::asserts_failed() const {
  return std::any_of(run.asserts.begin(), run.asserts.end(), [](const AssertOutcome& a) { return !a.ok; });
}

ReplSession::ReplSession(RunOptions opt, std::string input_name, Core::Options core_opt)
    : renderer([](const Sources& src, const Diagnostic& d) { return render(src, d); }),
      opt_(opt),
      input_name_(std::move(input_name)),
      core_opt_(std::move(core_opt)),
      core_(fresh_core()) {}

ReplSession::~ReplSession() = default;

std::string ReplSession::render_diagnostic(const Diagnostic& d) const { return renderer(core_->sources(), d); }

std::unique_ptr<Core> ReplSession::fresh_core() {
  auto core = std::make_unique<Core>(core_opt_);
  Program& p = core->session().prog;
  // Names typed at the prompt can be redefined (the new definition serves later inputs; earlier
  // definitions keep the one they were resolved against, as in ML toplevels). Names from the
  // prelude and from files cannot: formulas there refer to them, and `set` is the way to change
  // a parameter everywhere it is used.
  p.may_redefine = [this, &p](const Stmt& s, const Decl& old, RefKind kind) {
    if (!is_value_decl(old.kind) || !is_value_decl(kind) || !old.span.valid() ||
        p.sources.get(old.span.file).name != input_name_)
      return Program::Redefine::no;
    // `let x = x + 1` reads the previous x (a value cannot be defined in terms of itself); a
    // function that calls itself is recursive, so it sees the new definition.
    if (kind == RefKind::global && s.value && mentions(*s.value, s.name)) return Program::Redefine::after_resolve;
    return Program::Redefine::now;
  };
  return core;
}

const Config* ReplSession::config() { return core_->ensure_configured() ? core_->config() : nullptr; }

std::string ReplSession::render_from(const Sources& src, const Diagnostics& diags, std::size_t first,
                                     int& exit_code) const {
  // Source order, as render_all: the first line of a multi-line input first.
  std::vector<const Diagnostic*> order;
  for (std::size_t i = first; i < diags.size(); ++i) order.push_back(&diags.items()[i]);
  std::stable_sort(order.begin(), order.end(), [](const Diagnostic* a, const Diagnostic* b) {
    return std::make_pair(a->span.file, a->span.begin) < std::make_pair(b->span.file, b->span.begin);
  });
  std::string out;
  for (const Diagnostic* d : order) {
    out += renderer(src, *d);
    if (d->severity == Severity::error && exit_code == 0) exit_code = info(d->kind).exit_code;
  }
  return out;
}

void ReplSession::explain_failure(std::size_t first_diag) {
  Program& p = core_->session().prog;
  for (std::size_t i = first_diag; i < p.diags.size(); ++i) {
    auto& d = const_cast<Diagnostic&>(p.diags.items()[i]);
    if (d.kind == ErrorKind::name_unknown && d.subject == "ans") {
      d.help.clear();  // a did-you-mean ('abs') would only distract
      d.suggestions.clear();
      d.help.push_back("`ans` is the last answer; nothing has been shown yet");
    } else if (d.kind == ErrorKind::parse_syntax && d.subject == "import") {
      d.help.push_back("at the prompt, `:load FILE` loads a file");
    } else if (d.kind == ErrorKind::name_duplicate && !d.subject.empty()) {
      // At the prompt the file-oriented advice is wrong: say what can be redefined and how to
      // change a parameter instead.
      const std::string& name = d.subject;
      d.help.clear();
      d.help.push_back("names defined at the prompt can be redefined; names from the prelude and from files cannot");
      const Decl* old = p.lookup(intern(name));
      if (old && old->kind == RefKind::global)
        d.help.push_back("`set " + name + " = VALUE` changes the parameter everywhere it is used");
    }
  }
}

Outcome ReplSession::fail(Outcome out, Core::Transaction t, std::size_t first_diag) {
  explain_failure(first_diag);
  // Render before the rollback: the failed input's text is still in Sources.
  out.diagnostics = render_from(core_->sources(), core_->diagnostics(), first_diag, out.exit_code);
  if (out.exit_code == 0) out.exit_code = 65;
  out.status = Outcome::Status::failed;
  out.defined.clear();
  out.run = RunResult{};
  out.bare.clear();
  out.changes.clear();
  core_->rollback(t);
  return out;
}

// The values of the input's definitions, evaluated now: a runtime error (1/0) fails the input
// here rather than at some later use. Throws DiagnosticError.
void ReplSession::evaluate_definitions(Core::Transaction t, std::size_t first_global, Outcome& out) {
  Program& p = core_->session().prog;
  Checker& ck = core_->session().ck;
  const Config& cfg = *core_->config();
  // (An Evaluator adds an assumption atom for itself: make one only when needed.)
  std::optional<Evaluator> evaluator;
  auto eval = [&]() -> Evaluator& { return evaluator ? *evaluator : evaluator.emplace(p, cfg, true); };
  const std::size_t first = p.main_stmts.size() - core_->statements_added(t);
  for (std::size_t k = first; k < p.main_stmts.size(); ++k) {
    Stmt* s = p.main_stmts[k];
    try {
      if (s->kind == SK::let && !s->has_params) {
        for (std::size_t g = first_global; g < p.globals.size(); ++g)
          if (p.globals[g].stmt == s)
            out.defined.push_back({sym_name(s->name), is_literal(*s->value),
                                   eval().global(static_cast<std::uint32_t>(g)), p.globals[g].type,
                                   written_display(ck, *s->value), s->span});
      } else if (s->kind == SK::set) {
        const Decl* d = p.lookup(s->path.front());
        if (!d || d->kind != RefKind::global) continue;
        Value v = eval().global(d->index);
        TypeP ty = ck.global_type(d->index);
        std::string label = sym_name(s->path.front());
        for (std::size_t i = 1; i < s->path.size() && v.k == Value::K::record && ty; ++i) {
          const Value* f = v.rec().get(s->path[i]);
          const TypeP* ft = ty->field(s->path[i]);
          if (!f || !ft) break;
          v = *f;
          ty = *ft;
          label += "." + sym_name(s->path[i]);
        }
        out.defined.push_back({label, is_literal(*s->value), v, ty, written_display(ck, *s->value), s->span});
      }
    } catch (DiagnosticError& e) {
      // Ctrl-C while a definition was evaluated: said at that definition, not wherever it landed.
      if (e.diag.kind == ErrorKind::interrupted) e.diag = interrupted_diagnostic(s->span);
      throw;
    }
  }
}

// Which results of the input come from bare expressions (printed as "= value"); `last` is the
// last shown item, which becomes `ans`.
void ReplSession::mark_bare(Core::Transaction t, Outcome& out, const ShowItem*& last) {
  const Program& p = core_->session().prog;
  std::vector<std::pair<FileId, std::uint32_t>> bare_items;
  for (std::size_t k = p.main_stmts.size() - core_->statements_added(t); k < p.main_stmts.size(); ++k) {
    const Stmt* s = p.main_stmts[k];
    if (s->kind != SK::show) continue;
    for (const auto& it : s->shows) last = &it;
    if (s->shows.size() == 1 && s->span.begin == s->shows[0].expr->span.begin)
      bare_items.emplace_back(s->shows[0].span.file, s->shows[0].span.begin);
  }
  for (const auto& r : out.run.results)
    out.bare.push_back(std::find(bare_items.begin(), bare_items.end(), std::make_pair(r.span.file, r.span.begin)) !=
                       bare_items.end());
}

Outcome ReplSession::submit(const std::string& text, std::uint32_t first_line, bool final, bool command_line) {
  Outcome out;
  Core& core = *core_;
  Program& p = core.session().prog;
  const std::size_t first_diag = core.diagnostics().size();
  const std::size_t first_global = p.globals.size();
  const Core::Transaction t = core.begin();
  const Core::Added added =
      core.add_text(TextInput{command_line ? "<command line>" : input_name_, text, first_line, final, command_line});
  if (added == Core::Added::incomplete) {
    core.rollback(t);
    out.status = Outcome::Status::incomplete;
    return out;
  }
  if (added == Core::Added::failed) return fail(std::move(out), t, first_diag);
  if (core.statements_added(t) == 0) {  // blank or only comments
    core.rollback(t);
    return out;
  }
  if (!core.check()) return fail(std::move(out), t, first_diag);

  // Choices: rebuilt if a statement may have changed one; what moved is reported.
  const std::shared_ptr<const Config> prev = core.shared_config();
  if (!core.ensure_configured()) return fail(std::move(out), t, first_diag);
  if (prev) out.changes = choice_changes(p, *prev, *core.config(), p.main_stmts.size() - core.statements_added(t));

  try {
    evaluate_definitions(t, first_global, out);
  } catch (DiagnosticError& e) {
    core.add(std::move(e.diag));
    return fail(std::move(out), t, first_diag);
  }
  auto run = core.run_added(t, opt_);
  if (!run) return fail(std::move(out), t, first_diag);
  out.run = std::move(*run);

  const ShowItem* last = nullptr;
  mark_bare(t, out, last);
  if (last && !define_ans(*last)) return fail(std::move(out), t, first_diag);

  // Warnings are shown once; diagnostics never outlive their input.
  out.diagnostics = render_from(core.sources(), core.diagnostics(), first_diag, out.exit_code);
  p.diags.truncate(first_diag);
  core.commit(t);
  return out;
}

bool ReplSession::define_ans(const ShowItem& item) {
  // `ans` is a copy of the last shown expression, resolved where it was typed, so it follows
  // later `:use` like every other formula (and `:explain ans`, `:diff ans` work). It is declared
  // under a hidden name first — `ans * 2` must refer to the previous answer — then aliased.
  Program& p = core_->session().prog;
  // A bare global name (`x`, or `ans` itself): `ans` is that global, no copy needed.
  if (item.expr->kind == EK::name && item.expr->ref.kind == RefKind::global) {
    p.bind(intern("ans"), Decl{RefKind::global, item.expr->ref.index, item.expr->span});
    return true;
  }
  const SourceFile& src = p.sources.get(item.expr->span.file);
  const std::uint32_t line = src.shown_line(src.locate(item.expr->span.begin).line);
  const FileId f =
      p.sources.add(input_name_, "let ans = " + std::string(p.sources.slice(item.expr->span)) + "\n", false, line);
  bool incomplete = false;
  Module m = parse_repl(p.sources, f, p.diags, incomplete, true);
  if (p.diags.has_errors() || m.stmts.size() != 1 || m.stmts[0].kind != SK::let) {
    if (!p.diags.has_errors()) p.diags.error(ErrorKind::internal, item.span, "could not define `ans` for this answer");
    return false;
  }
  const Sym hidden = intern(kAnswerPrefix + std::to_string(++answers_));
  m.stmts[0].name = hidden;
  m.stmts[0].literals_are_assumptions = false;
  if (!p.add_module(std::move(m), false) || !core_->check()) return false;
  const Sym ans = intern("ans");
  const Decl d = p.scope().at(hidden);
  p.unbind(hidden);
  p.bind(ans, d);
  p.touch_global(d.index);
  p.globals[d.index].name = ans;
  p.globals[d.index].stmt->name = ans;
  return true;
}

bool ReplSession::load_into(Core& core, const std::string& path, std::string& message) {
  const Program& p = core.session().prog;
  const std::size_t globals = p.globals.size(), functions = p.functions.size(), conventions = p.conventions.size(),
                    presets = p.presets.size(), main = p.main_stmts.size();
  if (!core.add_main(Input{path, std::nullopt})) return false;
  if (!core.check()) return false;
  std::size_t statements = 0;
  for (std::size_t i = main; i < p.main_stmts.size(); ++i) {
    const SK k = p.main_stmts[i]->kind;
    if (k == SK::show || k == SK::assert_ || k == SK::sweep || k == SK::search) ++statements;
  }
  const std::size_t defs = (p.globals.size() - globals) + (p.functions.size() - functions) +
                           (p.conventions.size() - conventions) + (p.presets.size() - presets);
  message = "loaded " + path + ": " + std::to_string(defs) + " definition" + (defs == 1 ? "" : "s");
  if (statements)
    message += "; its " + std::to_string(statements) + " show/assert/sweep statement" +
               (statements == 1 ? " was" : "s were") + " not run (`mls run " + path + "` runs them)";
  return true;
}

Outcome ReplSession::start(const std::vector<std::string>& files) {
  Outcome out;
  if (!core_->load_prelude() || !core_->check()) {
    out.diagnostics = render_from(core_->sources(), core_->diagnostics(), 0, out.exit_code);
    out.status = Outcome::Status::failed;
    if (out.exit_code == 0) out.exit_code = 70;
    return out;
  }
  for (const auto& f : files) {
    Outcome one = load(f);
    out.diagnostics += one.diagnostics;
    if (!one.message.empty()) out.message += (out.message.empty() ? "" : "\n") + one.message;
    if (one.status == Outcome::Status::failed) {
      out.status = one.status;
      out.exit_code = one.exit_code;
      return out;
    }
  }
  if (!core_->ensure_configured()) {
    out.diagnostics += render_from(core_->sources(), core_->diagnostics(), 0, out.exit_code);
    out.status = Outcome::Status::failed;
  }
  return out;
}

Outcome ReplSession::load(const std::string& path) {
  Outcome out;
  const std::string norm = std::filesystem::path(path).lexically_normal().generic_string();
  if (std::find(files_.begin(), files_.end(), norm) != files_.end()) {
    out.message = norm + " is already loaded (`:reset` reloads every file from disk)";
    return out;
  }
  const std::size_t first_diag = core_->diagnostics().size();
  const Core::Transaction t = core_->begin();
  if (!load_into(*core_, norm, out.message) || !core_->ensure_configured()) return fail(std::move(out), t, first_diag);
  files_.push_back(norm);
  core_->commit(t);
  return out;
}

Outcome ReplSession::reset() {
  Outcome out;
  // Build the new session aside; swap it in only if everything loads.
  std::unique_ptr<Core> fresh = fresh_core();
  bool ok = fresh->load_prelude() && fresh->check();
  std::string message;
  for (std::size_t i = 0; ok && i < files_.size(); ++i) ok = load_into(*fresh, files_[i], message);
  ok = ok && fresh->configure(Selection{});
  if (!ok) {
    out.diagnostics = render_from(fresh->sources(), fresh->diagnostics(), 0, out.exit_code);
    if (out.exit_code == 0) out.exit_code = 65;
    out.status = Outcome::Status::failed;
    out.message = "reset abandoned: the session is unchanged";
    return out;
  }
  core_ = std::move(fresh);
  out.message = files_.empty() ? "session reset"
                               : "session reset; reloaded " + std::to_string(files_.size()) + " file" +
                                     (files_.size() == 1 ? "" : "s");
  return out;
}

bool ReplSession::probe(const std::string& text, std::uint32_t first_line,
                        const std::function<void(const Probe&)>& inspect, std::string& errors) {
  Core& core = *core_;
  const std::size_t first_diag = core.diagnostics().size();
  const Core::Transaction t = core.begin();
  auto give_up = [&]() {
    int code = 0;
    explain_failure(first_diag);
    errors = render_from(core.sources(), core.diagnostics(), first_diag, code);
    core.rollback(t);
    return false;
  };
  // A main statement (for the probe's duration), so that it can be run and explained like one.
  TextInput in{input_name_, text, first_line, true, false};
  in.one_expression = true;
  if (core.add_text(in) != Core::Added::ok || !core.check() || !core.ensure_configured()) return give_up();
  Session& s = core.session();
  Stmt& stmt = *s.prog.main_stmts.back();
  const ShowItem& item = stmt.shows[0];
  Probe pr{s.prog, s.ck, *core.config(), stmt, *item.expr, stmt.nslots, s.ck.show_type(&item), std::nullopt};
  if (item.expr->kind == EK::name && item.expr->ref.kind == RefKind::global) pr.global = item.expr->ref.index;
  try {
    inspect(pr);
  } catch (DiagnosticError& e) {
    core.add(std::move(e.diag));
    return give_up();
  }
  core.rollback(t);
  return true;
}

TypeP ReplSession::type_of(const std::string& text) {
  TypeP t;
  std::string errors;
  if (!probe(
          text, 1, [&](const Probe& pr) { t = pr.type; }, errors))
    return nullptr;
  return t;
}

}  // namespace mls
