// session.cpp — incremental, transactional inputs for `mls repl`: each input is added to the
// program (declare, resolve, check), the Config is rebuilt when a choice changed, and the input's
// statements run; any error undoes the whole input. `ans` is a hidden global per answer.
#include "session.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "driver.hpp"
#include "grammar/parse.hpp"
#include "grammar/symbols.hpp"
#include "interpreter/runtime/interrupt.hpp"
#include "listing.hpp"

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

// What restore() needs to undo an input. The Config is not copied: an input either replaces it
// (configure() builds a new one) or only appends empty override lists for its new globals.
struct ReplSession::Snapshot {
  Program::Mark prog;
  Checker::Mark ck;
  std::shared_ptr<Config> cfg;
  std::size_t overrides;
  bool dirty;
};

ReplSession::ReplSession(RunOptions opt, std::string input_name)
    : renderer([](const Sources& src, const Diagnostic& d) { return render(src, d); }),
      opt_(opt),
      input_name_(std::move(input_name)),
      s_(std::make_unique<Session>()) {
  install_hooks(s_->prog);
}

ReplSession::~ReplSession() = default;

std::string ReplSession::render_diagnostic(const Diagnostic& d) const { return renderer(s_->prog.sources, d); }
Program& ReplSession::program() { return s_->prog; }
Checker& ReplSession::checker() { return s_->ck; }

void ReplSession::install_hooks(Program& p) {
  // Help that points to the listing of conventions names the prompt's command.
  p.conventions_command = kReplConventionsCommand;
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
}

ReplSession::Snapshot ReplSession::take() {
  return Snapshot{s_->prog.begin_input(), s_->ck.mark(), cfg_, cfg_ ? cfg_->overrides.size() : 0, dirty_};
}

void ReplSession::restore(const Snapshot& s) {
  s_->ck.rollback(s.ck);
  s_->prog.rollback(s.prog);
  cfg_ = s.cfg;
  if (cfg_ && cfg_->overrides.size() > s.overrides) cfg_->overrides.resize(s.overrides);
  dirty_ = s.dirty;
}

// The input succeeded: it stays, and its undo entries go (nothing rolls back past it any more).
void ReplSession::accept(const Snapshot& s) { s_->prog.commit(s.prog); }

ReplSession::Counts ReplSession::counts() const {
  const Program& p = s_->prog;
  return {p.globals.size(), p.functions.size(), p.presets.size(), p.conventions.size(), p.main_stmts.size()};
}

void ReplSession::check_new(const Counts& before) {
  Program& p = s_->prog;
  s_->ck.check_added(before.globals, before.functions, before.presets);
  for (std::size_t i = before.main; i < p.main_stmts.size(); ++i) s_->ck.check_stmt(*p.main_stmts[i]);
}

bool ReplSession::ensure_config() {
  Program& p = s_->prog;
  if (cfg_ && !dirty_ && cfg_->conv.size() == p.conventions.size()) {
    // New globals have no overrides until a `set` names them (which marks the Config dirty).
    if (cfg_->overrides.size() < p.globals.size()) cfg_->overrides.resize(p.globals.size());
    return true;
  }
  const std::size_t before = p.diags.size();
  auto c = configure(p, s_->ck, Selection{});
  for (std::size_t i = before; i < p.diags.size(); ++i)
    if (p.diags.items()[i].severity == Severity::error) return false;
  if (!c) return false;
  cfg_ = std::make_shared<Config>(std::move(*c));
  dirty_ = false;
  return true;
}

const Config* ReplSession::config() {
  if (ensure_config()) return &*cfg_;
  return nullptr;
}

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
  Program& p = s_->prog;
  for (std::size_t i = first_diag; i < p.diags.size(); ++i) {
    auto& d = const_cast<Diagnostic&>(p.diags.items()[i]);
    if (d.kind == ErrorKind::name_unknown && d.subject == "ans") {
      d.help.clear();  // a did-you-mean ('abs') would only distract
      d.suggestions.clear();
      d.help.push_back("`ans` is the last answer; nothing has been shown yet");
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

Outcome ReplSession::fail(Outcome out, const Snapshot& snap) {
  Program& p = s_->prog;
  explain_failure(snap.prog.diags);
  // Render before the rollback: the failed input's text is still in Sources.
  out.diagnostics = render_from(p.sources, p.diags, snap.prog.diags, out.exit_code);
  if (out.exit_code == 0) out.exit_code = 65;
  out.status = Outcome::Status::failed;
  out.defined.clear();
  out.run = RunResult{};
  out.bare.clear();
  out.changes.clear();
  restore(snap);
  return out;
}

Outcome ReplSession::submit(const std::string& text, std::uint32_t first_line, bool final, const std::string& name) {
  Outcome out;
  Program& p = s_->prog;
  Checker& ck = s_->ck;
  const Snapshot snap = take();
  if (const auto bad = first_non_text(text)) {
    // Reported on a copy with every byte above ASCII shown as '?': the bytes that are not
    // UTF-8 never reach the terminal (they once came back in a parse.unclosed excerpt).
    std::string safe(text);
    for (char& c : safe)
      if (static_cast<unsigned char>(c) >= 0x80 || c == 0) c = '?';
    const FileId f = p.sources.add(name.empty() ? input_name_ : name, std::move(safe), false, first_line);
    const auto at = static_cast<std::uint32_t>(*bad);
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(text[*bad]));
    p.diags.error(
        ErrorKind::load_binary, Span{f, at, at + 1},
        text[*bad] == 0 ? std::string("not UTF-8 text: a NUL byte") : std::string("not UTF-8 text: byte ") + hex);
    return fail(std::move(out), snap);
  }
  const FileId file = p.sources.add(name.empty() ? input_name_ : name, text, false, first_line);
  bool incomplete = false;
  Module m = parse_repl(p.sources, file, p.diags, incomplete, final);
  if (incomplete) {
    restore(snap);
    out.status = Outcome::Status::incomplete;
    return out;
  }
  for (const Stmt& s : m.stmts)
    if (s.kind == SK::import_)
      p.diags.error(ErrorKind::parse_syntax, s.span, "`import` belongs in files")
          .help.push_back("at the prompt, `:load FILE` loads a file");
  if (p.diags.has_errors()) return fail(std::move(out), snap);
  if (m.stmts.empty()) {  // blank or only comments
    restore(snap);
    return out;
  }
  bool choice_stmt = false;
  for (const Stmt& s : m.stmts)
    if (s.kind == SK::use || s.kind == SK::set || s.kind == SK::preset_select) choice_stmt = true;

  const Counts before = counts();
  if (!p.add_module(std::move(m), true)) return fail(std::move(out), snap);
  check_new(before);
  if (p.diags.has_errors()) return fail(std::move(out), snap);

  // Choices: rebuild the Config if a statement may have changed one, and report what moved.
  if (choice_stmt) dirty_ = true;
  const std::shared_ptr<const Config> prev = cfg_;
  if (!ensure_config()) return fail(std::move(out), snap);
  if (prev) out.changes = choice_changes(p, *prev, *cfg_, before.main);

  std::vector<Stmt*> stmts(p.main_stmts.begin() + static_cast<std::ptrdiff_t>(before.main), p.main_stmts.end());
  const Stmt* defining = nullptr;  // the definition being evaluated (run_statements places its own errors)
  try {
    // Values of the input's definitions, evaluated now: a runtime error (1/0) fails the input
    // here rather than at some later use.
    // (An Evaluator adds an assumption atom for itself: make one only when needed.)
    std::optional<Evaluator> evaluator;
    auto eval = [&]() -> Evaluator& { return evaluator ? *evaluator : evaluator.emplace(p, *cfg_, true); };
    for (Stmt* s : stmts) {
      defining = s;
      if (s->kind == SK::let && !s->has_params) {
        for (std::size_t g = before.globals; g < p.globals.size(); ++g)
          if (p.globals[g].stmt == s)
            out.defined.push_back({sym_name(s->name), is_literal(*s->value),
                                   eval().global(static_cast<std::uint32_t>(g)), p.globals[g].type,
                                   written_display(ck, *s->value), s->span});
      } else if (s->kind == SK::set) {
        const Decl* d = p.lookup(s->path.front());
        if (!d || d->kind != RefKind::global) continue;
        Value v = eval().global(d->index);
        TypeP t = ck.global_type(d->index);
        std::string label = sym_name(s->path.front());
        for (std::size_t i = 1; i < s->path.size() && v.k == Value::K::record && t; ++i) {
          const Value* f = v.rec().get(s->path[i]);
          const TypeP* ft = t->field(s->path[i]);
          if (!f || !ft) break;
          v = *f;
          t = *ft;
          label += "." + sym_name(s->path[i]);
        }
        out.defined.push_back({label, is_literal(*s->value), v, t, written_display(ck, *s->value), s->span});
      }
    }
    defining = nullptr;
    out.run = run_statements(p, ck, *cfg_, opt_, stmts);
  } catch (DiagnosticError& e) {
    // Ctrl-C while a definition was evaluated: said at that definition, not wherever it landed.
    if (e.diag.kind == ErrorKind::interrupted && defining) e.diag = interrupted_diagnostic(defining->span);
    p.diags.add(std::move(e.diag));
    return fail(std::move(out), snap);
  }

  // Which results come from bare expressions (printed as "= value").
  const ShowItem* last = nullptr;
  std::vector<std::pair<FileId, std::uint32_t>> bare_items;
  for (Stmt* s : stmts) {
    if (s->kind != SK::show) continue;
    for (const auto& it : s->shows) last = &it;
    if (s->shows.size() == 1 && s->span.begin == s->shows[0].expr->span.begin)
      bare_items.emplace_back(s->shows[0].span.file, s->shows[0].span.begin);
  }
  for (const auto& r : out.run.results)
    out.bare.push_back(std::find(bare_items.begin(), bare_items.end(), std::make_pair(r.span.file, r.span.begin)) !=
                       bare_items.end());
  if (last && !define_ans(*last)) return fail(std::move(out), snap);

  // Warnings are shown once; diagnostics never outlive their input.
  out.diagnostics = render_from(p.sources, p.diags, snap.prog.diags, out.exit_code);
  p.diags.truncate(snap.prog.diags);
  accept(snap);
  return out;
}

bool ReplSession::define_ans(const ShowItem& item) {
  // `ans` is a copy of the last shown expression, resolved where it was typed, so it follows
  // later `:use` like every other formula (and `:explain ans`, `:diff ans` work). It is declared
  // under a hidden name first — `ans * 2` must refer to the previous answer — then aliased.
  Program& p = s_->prog;
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
  const Counts before = counts();
  if (!p.add_module(std::move(m), false)) return false;
  check_new(before);
  if (p.diags.has_errors()) return false;
  const Sym ans = intern("ans");
  const Decl d = p.scope().at(hidden);
  p.unbind(hidden);
  p.bind(ans, d);
  p.touch_global(d.index);
  p.globals[d.index].name = ans;
  p.globals[d.index].stmt->name = ans;
  return true;
}

bool ReplSession::load_into(Session& s, const std::string& path, std::string& message) {
  Program& p = s.prog;
  const Counts before{p.globals.size(), p.functions.size(), p.presets.size(), p.conventions.size(),
                      p.main_stmts.size()};
  if (!p.load_main(path)) return false;
  s.ck.check_added(before.globals, before.functions, before.presets);
  std::size_t statements = 0;
  for (std::size_t i = before.main; i < p.main_stmts.size(); ++i) {
    s.ck.check_stmt(*p.main_stmts[i]);
    const SK k = p.main_stmts[i]->kind;
    if (k == SK::show || k == SK::assert_ || k == SK::sweep || k == SK::search) ++statements;
  }
  if (p.diags.has_errors()) return false;
  const std::size_t defs = (p.globals.size() - before.globals) + (p.functions.size() - before.functions) +
                           (p.conventions.size() - before.conventions) + (p.presets.size() - before.presets);
  message = "loaded " + path + ": " + std::to_string(defs) + " definition" + (defs == 1 ? "" : "s");
  if (statements)
    message += "; its " + std::to_string(statements) + " show/assert/sweep statement" +
               (statements == 1 ? " was" : "s were") + " not run (`mls run " + path + "` runs them)";
  return true;
}

Outcome ReplSession::start(const std::vector<std::string>& files) {
  Outcome out;
  Program& p = s_->prog;
  // The whole prelude is checked once, as `mls run` checks it: a model a REPL input calls may
  // evaluate stdlib globals no input names (the validation cases behind a train() result's band).
  if (!p.load_prelude() || (s_->ck.check_added(0, 0, 0), p.diags.has_errors())) {
    out.diagnostics = render_from(p.sources, p.diags, 0, out.exit_code);
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
  if (!ensure_config()) {
    out.diagnostics += render_from(p.sources, p.diags, 0, out.exit_code);
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
  const Snapshot snap = take();
  if (!load_into(*s_, norm, out.message)) return fail(std::move(out), snap);
  dirty_ = true;  // the file may `use` or `set`
  if (!ensure_config()) return fail(std::move(out), snap);
  files_.push_back(norm);
  accept(snap);
  return out;
}

Outcome ReplSession::reset() {
  Outcome out;
  // Build the new session aside; swap it in only if everything loads.
  auto fresh = std::make_unique<Session>();
  install_hooks(fresh->prog);
  bool ok = fresh->prog.load_prelude();
  if (ok) fresh->ck.check_added(0, 0, 0);
  ok = ok && !fresh->prog.diags.has_errors();
  std::string message;
  for (std::size_t i = 0; ok && i < files_.size(); ++i) ok = load_into(*fresh, files_[i], message);
  std::optional<Config> cfg;
  if (ok) {
    cfg = configure(fresh->prog, fresh->ck, Selection{});
    ok = cfg && !fresh->prog.diags.has_errors();
  }
  if (!ok) {
    out.diagnostics = render_from(fresh->prog.sources, fresh->prog.diags, 0, out.exit_code);
    if (out.exit_code == 0) out.exit_code = 65;
    out.status = Outcome::Status::failed;
    out.message = "reset abandoned: the session is unchanged";
    return out;
  }
  s_ = std::move(fresh);
  cfg_ = std::make_shared<Config>(std::move(*cfg));
  dirty_ = false;
  out.message = files_.empty() ? "session reset"
                               : "session reset; reloaded " + std::to_string(files_.size()) + " file" +
                                     (files_.size() == 1 ? "" : "s");
  return out;
}

bool ReplSession::probe(const std::string& text, std::uint32_t first_line,
                        const std::function<void(const Probe&)>& inspect, std::string& errors) {
  Program& p = s_->prog;
  const Snapshot snap = take();
  auto give_up = [&]() {
    int code = 0;
    explain_failure(snap.prog.diags);
    errors = render_from(p.sources, p.diags, snap.prog.diags, code);
    restore(snap);
    return false;
  };
  const FileId file = p.sources.add(input_name_, text, false, first_line);
  bool incomplete = false;
  Module m = parse_repl(p.sources, file, p.diags, incomplete, true);
  if (p.diags.has_errors()) return give_up();
  const bool one_expr = m.stmts.size() == 1 && m.stmts[0].kind == SK::show && m.stmts[0].shows.size() == 1 &&
                        m.stmts[0].span.begin == m.stmts[0].shows[0].expr->span.begin;
  if (!one_expr) {
    p.diags.error(ErrorKind::parse_syntax, Span{file, 0, static_cast<std::uint32_t>(text.size())},
                  "expected one expression");
    return give_up();
  }
  // A main statement (for the probe's duration), so that it can be run and explained like one.
  if (!p.add_module(std::move(m), true)) return give_up();
  Stmt& stmt = p.modules.back().stmts[0];
  s_->ck.check_stmt(stmt);
  if (p.diags.has_errors() || !ensure_config()) return give_up();
  const ShowItem& item = stmt.shows[0];
  Probe pr{p, s_->ck, *cfg_, stmt, *item.expr, stmt.nslots, s_->ck.show_type(&item), std::nullopt};
  if (item.expr->kind == EK::name && item.expr->ref.kind == RefKind::global) pr.global = item.expr->ref.index;
  try {
    inspect(pr);
  } catch (DiagnosticError& e) {
    p.diags.add(std::move(e.diag));
    return give_up();
  }
  restore(snap);
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
