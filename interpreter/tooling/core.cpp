// core.cpp — the session core: each phase once, over one Program and Checker, with the marks
// that make every input a transaction. Every phase runs on the pipeline stack (semantics/stack),
// and an error thrown by a phase becomes a diagnostic, so callers need no try/catch.
#include "core.hpp"

#include <cstdio>

#include "driver.hpp"
#include "grammar/parse.hpp"
#include "interpreter/runtime/interrupt.hpp"
#include "interpreter/semantics/stack.hpp"

namespace mls {

namespace {

// How far check() has come: what was added after these counts is not checked yet.
struct Checked {
  std::size_t globals = 0, functions = 0, presets = 0, main = 0;
};

Checked counts(const Program& p) {
  return {p.globals.size(), p.functions.size(), p.presets.size(), p.main_stmts.size()};
}

bool chooses(const Stmt& s) { return s.kind == SK::use || s.kind == SK::set || s.kind == SK::preset_select; }

// `phase()`, on the pipeline stack (every phase recurses over the input's structure: the depth
// limits were chosen for that stack), its DiagnosticError added to the diagnostics.
template <class F>
bool guarded(Program& p, F phase) {
  bool ok = false;
  try {
    run_on_pipeline_stack([&] { ok = phase(); });
  } catch (DiagnosticError& e) {
    p.diags.add(std::move(e.diag));
    ok = false;
  }
  return ok;
}

}  // namespace

struct Core::State {
  Session s;
  bool prelude_tried = false, prelude_ok = false;
  Checked checked;
  // The current choices, shared with the transactions that may restore them: an input that keeps
  // them copies nothing (it only appends empty override lists for its new globals).
  std::shared_ptr<Config> cfg;
  Selection sel;
  bool dirty = true;  // an input may have changed a choice: ensure_configured() builds anew
  struct Saved {
    Program::Mark prog;
    Checker::Mark ck;
    std::shared_ptr<Config> cfg;
    std::size_t overrides = 0;
    Selection sel;
    bool dirty = true, prelude_tried = false, prelude_ok = false;
    Checked checked;
  };
  std::vector<Saved> marks;  // open transactions, outermost first
};

Core::Core(Options opt) : st_(std::make_unique<State>()) {
  Program& p = st_->s.prog;
  if (opt.reader) p.reader = std::move(opt.reader);
  p.conventions_command = std::move(opt.conventions_command);
}

Core::~Core() = default;

std::optional<std::string> Core::read_disk(const std::string& path) { return mls::read_disk(path); }

bool Core::load_prelude() {
  State& st = *st_;
  if (!st.prelude_tried) {
    st.prelude_tried = true;
    st.prelude_ok = guarded(st.s.prog, [&] { return st.s.prog.load_prelude(); });
  }
  return st.prelude_ok;
}

bool Core::add_main(const Input& in) {
  Program& p = st_->s.prog;
  st_->dirty = true;  // the file may `use`, `set` or choose a preset
  return guarded(p, [&] { return in.text ? p.load_main_text(in.name, *in.text) : p.load_main(in.name); });
}

Core::Added Core::add_text(const TextInput& in) {
  Program& p = st_->s.prog;
  const std::size_t first_diag = p.diags.size();
  if (const auto bad = first_non_text(in.text)) {
    // Reported on a copy with every byte above ASCII shown as '?': the bytes that are not UTF-8
    // never reach the terminal (they once came back in a parse.unclosed excerpt).
    std::string safe(in.text);
    for (char& c : safe)
      if (static_cast<unsigned char>(c) >= 0x80 || c == 0) c = '?';
    const FileId f = p.sources.add(in.name, std::move(safe), false, in.first_line);
    const auto at = static_cast<std::uint32_t>(*bad);
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(in.text[*bad]));
    p.diags.error(
        ErrorKind::load_binary, Span{f, at, at + 1},
        in.text[*bad] == 0 ? std::string("not UTF-8 text: a NUL byte") : std::string("not UTF-8 text: byte ") + hex);
    return Added::failed;
  }
  const FileId file = in.command_line ? p.sources.add_command_line(in.name, in.text, in.first_line)
                                      : p.sources.add(in.name, in.text, false, in.first_line);
  bool incomplete = false;
  Module m = parse_repl(p.sources, file, p.diags, incomplete, in.final);
  if (incomplete) return Added::incomplete;
  if (has_errors_since(first_diag)) return Added::failed;
  if (in.one_expression && !(m.stmts.size() == 1 && m.stmts[0].kind == SK::show && m.stmts[0].shows.size() == 1 &&
                             m.stmts[0].span.begin == m.stmts[0].shows[0].expr->span.begin)) {
    p.diags.error(ErrorKind::parse_syntax, Span{file, 0, static_cast<std::uint32_t>(in.text.size())},
                  "expected one expression");
    return Added::failed;
  }
  for (const Stmt& s : m.stmts)
    if (s.kind == SK::import_)
      p.diags.error(ErrorKind::parse_syntax, s.span, "`import` belongs in files").subject = "import";
  if (has_errors_since(first_diag)) return Added::failed;
  for (const Stmt& s : m.stmts)
    if (chooses(s)) st_->dirty = true;
  const bool ok = guarded(p, [&] { return p.add_module(std::move(m), true); });
  return ok ? Added::ok : Added::failed;
}

bool Core::check() {
  State& st = *st_;
  Session& s = st.s;
  // Check even after parse or name errors: every independent error is reported in one go
  // (unresolved names have the error type, which silences follow-on messages).
  (void)guarded(s.prog, [&] {
    const Checked& c = st.checked;
    s.ck.check_added(c.globals, c.functions, c.presets);
    for (std::size_t i = c.main; i < s.prog.main_stmts.size(); ++i) s.ck.check_stmt(*s.prog.main_stmts[i]);
    return true;
  });
  st.checked = counts(s.prog);
  return !s.prog.diags.has_errors();
}

bool Core::configure(const Selection& sel) {
  st_->sel = sel;
  st_->cfg.reset();
  st_->dirty = true;
  return ensure_configured();
}

bool Core::ensure_configured() {
  State& st = *st_;
  Program& p = st.s.prog;
  if (st.cfg && !st.dirty && st.cfg->conv.size() == p.conventions.size()) {
    // New globals have no overrides until a `set` names them (which marks the choices dirty).
    if (st.cfg->overrides.size() < p.globals.size()) st.cfg->overrides.resize(p.globals.size());
    return true;
  }
  const std::size_t first_diag = p.diags.size();
  std::optional<Config> c;
  const bool ok = guarded(p, [&] {
    c = mls::configure(p, st.s.ck, st.sel);
    return c.has_value();
  });
  if (!ok || has_errors_since(first_diag)) return false;
  st.cfg = std::make_shared<Config>(std::move(*c));
  st.dirty = false;
  return true;
}

std::optional<RunResult> Core::run(const RunOptions& opt) {
  Session& s = st_->s;
  std::optional<RunResult> r;
  if (!st_->cfg || st_->dirty) {
    s.prog.diags.add(make_diagnostic(ErrorKind::internal, Span{}, "a run before the choices were configured"));
    return r;
  }
  (void)guarded(s.prog, [&] {
    r = run_program(s.prog, s.ck, *st_->cfg, opt);
    return true;
  });
  return r;
}

bool Core::run(const RunOptions& opt, RunSink& sink) {
  Session& s = st_->s;
  if (!st_->cfg || st_->dirty) {
    s.prog.diags.add(make_diagnostic(ErrorKind::internal, Span{}, "a run before the choices were configured"));
    return false;
  }
  return guarded(s.prog, [&] {
    run_program(s.prog, s.ck, *st_->cfg, opt, sink);
    return true;
  });
}

bool Core::prepare(const Input& in) {
  // One pipeline thread for the phases (nested ones run in place).
  bool ok = false;
  run_on_pipeline_stack([&] {
    if (!load_prelude()) return;
    const bool added = add_main(in);
    if (st_->s.prog.main_file != kNoFile) (void)check();
    ok = added && !has_errors();
  });
  return ok;
}

std::optional<RunResult> Core::interpret(const Input& in, const Selection& sel, const RunOptions& opt) {
  std::optional<RunResult> r;
  run_on_pipeline_stack([&] {
    if (prepare(in) && configure(sel)) r = run(opt);
  });
  return r;
}

Core::Transaction Core::begin() {
  State& st = *st_;
  st.marks.push_back(State::Saved{st.s.prog.begin_input(), st.s.ck.mark(), st.cfg,
                                  st.cfg ? st.cfg->overrides.size() : 0, st.sel, st.dirty, st.prelude_tried,
                                  st.prelude_ok, st.checked});
  return Transaction{st.marks.size()};
}

void Core::commit(Transaction t) {
  State& st = *st_;
  // An inner transaction's changes become the enclosing one's (still undone by its rollback);
  // only the outermost drops the undo logs.
  if (t.depth == 1) st.s.prog.commit(st.marks.front().prog);
  st.marks.resize(t.depth - 1);
}

void Core::rollback(Transaction t) {
  State& st = *st_;
  State::Saved& m = st.marks[t.depth - 1];
  st.s.ck.rollback(m.ck);
  st.s.prog.rollback(m.prog);
  st.cfg = m.cfg;
  if (st.cfg && st.cfg->overrides.size() > m.overrides) st.cfg->overrides.resize(m.overrides);
  st.sel = m.sel;
  st.dirty = m.dirty;
  st.prelude_tried = m.prelude_tried;
  st.prelude_ok = m.prelude_ok;
  st.checked = m.checked;
  st.marks.resize(t.depth - 1);
}

std::optional<RunResult> Core::run_added(Transaction t, const RunOptions& opt) {
  Session& s = st_->s;
  std::optional<RunResult> r;
  if (!st_->cfg || st_->dirty) {
    s.prog.diags.add(make_diagnostic(ErrorKind::internal, Span{}, "a run before the choices were configured"));
    return r;
  }
  const auto first = static_cast<std::ptrdiff_t>(st_->marks[t.depth - 1].prog.main_stmts);
  const std::vector<Stmt*> stmts(s.prog.main_stmts.begin() + first, s.prog.main_stmts.end());
  (void)guarded(s.prog, [&] {
    r = run_statements(s.prog, s.ck, *st_->cfg, opt, stmts);
    return true;
  });
  return r;
}

std::size_t Core::statements_added(Transaction t) const {
  return st_->s.prog.main_stmts.size() - st_->marks[t.depth - 1].prog.main_stmts;
}

const Diagnostics& Core::diagnostics() const { return st_->s.prog.diags; }
const Sources& Core::sources() const { return st_->s.prog.sources; }
bool Core::has_errors() const { return st_->s.prog.diags.has_errors(); }

bool Core::has_errors_since(std::size_t from) const {
  const auto& items = st_->s.prog.diags.items();
  for (std::size_t i = from; i < items.size(); ++i)
    if (items[i].severity == Severity::error) return true;
  return false;
}

void Core::add(Diagnostic d) { st_->s.prog.diags.add(std::move(d)); }
ResultScope Core::scope() const { return scope_of(st_->s.prog); }
std::vector<std::string> Core::table_names() const { return csv_table_names(st_->s.prog); }

void Core::interrupt() { g_interrupted.store(true, std::memory_order_relaxed); }
void Core::clear_interrupt() { g_interrupted.store(false, std::memory_order_relaxed); }

Session& Core::session() { return st_->s; }
const Session& Core::session() const { return st_->s; }
const Config* Core::config() const { return st_->cfg && !st_->dirty ? st_->cfg.get() : nullptr; }
std::shared_ptr<const Config> Core::shared_config() const { return st_->cfg; }

}  // namespace mls
