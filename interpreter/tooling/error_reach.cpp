// error_reach.cpp — each error placed on the statement it is in (or the text that did not parse),
// then one breadth-first pass from every erroneous statement at once, backwards over "reads" (a
// statement reads the declarations it names; a declaration reads the choices that set it): each
// statement reached gets the nearest error. Iterative and linear in the program's size (a document
// may chain 100000 lets, or set 100000 globals).
#include "error_reach.hpp"

#include <algorithm>
#include <deque>

#include "grammar/symbols.hpp"
#include "interpreter/semantics/config.hpp"
#include "interpreter/semantics/resolve.hpp"

namespace mls {

namespace {

bool word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The word at `i` in `t` (after spaces and tabs), and where it ends.
std::string_view word_at(std::string_view t, std::size_t& i) {
  while (i < t.size() && (t[i] == ' ' || t[i] == '\t')) ++i;
  const std::size_t b = i;
  while (i < t.size() && word_char(t[i])) ++i;
  return t.substr(b, i - b);
}

std::string first_line_of(std::string_view t) { return "`" + compact_text(t.substr(0, t.find('\n')), 60) + "`"; }

// Statements that change values far from where they are written: units, dimensions, displays.
bool acts_everywhere(SK k) {
  return k == SK::unit || k == SK::dimension || k == SK::prefixes || k == SK::display || k == SK::native ||
         k == SK::preset_select;
}

}  // namespace

ErrorReach::ErrorReach(const Program& p, std::size_t first_diag) : p_(p) {
  for (const Module& m : p.modules)
    if (!p.is_stdlib(m.file))
      for (const auto& s : m.skipped) skipped(s);
  const auto& items = p.diags.items();
  for (std::size_t i = first_diag; i < items.size(); ++i)
    if (items[i].severity == Severity::error) place(items[i]);
  // An erroneous statement whose reach is not a name: what it would set is not known. In source
  // order, so the one named is the same every time.
  std::vector<std::pair<const Stmt*, ErrorCause>> bad(bad_.begin(), bad_.end());
  std::sort(bad.begin(), bad.end(), [](const auto& a, const auto& b) {
    return std::pair(a.first->span.file, a.first->span.begin) < std::pair(b.first->span.file, b.first->span.begin);
  });
  for (const auto& [s, c] : bad) {
    if (acts_everywhere(s->kind) && !all_) all_ = ErrorCause{c.at, c.what, true};
    if (s->kind == SK::use && (!target_of(s->name) || target_of(s->name)->kind != RefKind::convention) &&
        !all_conventions_)
      all_conventions_ = c;
    if (s->kind == SK::set && (s->path.empty() || !target_of(s->path.front())) && !all_)
      all_ = ErrorCause{c.at, c.what, true};
  }
  choosers();
  propagate();
}

void ErrorReach::place(const Diagnostic& d) {
  Span at = d.span;
  // Inside a prelude function, checked for a call of the document's: placed on that call.
  if (at.valid() && at.file < p_.sources.size() && p_.is_stdlib(at.file))
    for (const auto& n : d.notes)
      if (n.kind == LabelKind::call && n.span.valid() && n.span.file < p_.sources.size() && !p_.is_stdlib(n.span.file))
        at = n.span;
  // The checker reports nesting too deep once: later statements as deep have an unreported error.
  if (d.kind == ErrorKind::runtime_depth) at = Span{};
  if (!at.valid() || at.file >= p_.sources.size() || p_.is_stdlib(at.file)) {
    if (!all_) all_ = ErrorCause{Span{}, "", true};
    return;
  }
  for (const Module& m : p_.modules) {
    if (m.file != at.file) continue;
    // The statement holding the error's start (statements are in source order).
    auto it = std::upper_bound(m.stmts.begin(), m.stmts.end(), at.begin,
                               [](std::uint32_t off, const Stmt& s) { return off < s.span.begin; });
    if (it != m.stmts.begin() && at.begin <= std::prev(it)->span.end) {
      const Stmt& s = *std::prev(it);
      bad_.emplace(&s, cause_at(s));
      return;
    }
    for (const auto& sk : m.skipped)
      if (sk.span.begin <= at.begin && at.begin <= sk.span.end) return;  // placed by skipped()
  }
  // Between statements (or in a file not loaded as a module): it may be about anything.
  if (!all_) {
    const SourceFile& f = p_.sources.get(at.file);
    all_ = ErrorCause{at, first_line_of(f.line_text(f.locate(at.begin).line)), true};
  }
}

void ErrorReach::skipped(const Module::Skipped& s) {
  const std::string_view text = p_.sources.slice(s.span);
  ErrorCause c{s.span, first_line_of(text), false};
  if (s.rest) {
    if (!all_) all_ = ErrorCause{c.at, c.what, true};
    return;
  }
  std::size_t i = 0;
  const std::string_view kw = word_at(text, i);
  const std::string_view name = word_at(text, i);
  if (kw == "let" || kw == "solve") {
    // Its uses did not resolve (and were not reported): they depend on it.
    if (!name.empty()) broken_.emplace(intern(name), ErrorCause{s.span, "`" + std::string(name) + "`", false});
  } else if (kw == "use") {
    const auto t = name.empty() ? std::nullopt : target_of(intern(name));
    if (t && t->kind == RefKind::convention)
      tainted_.emplace(*t, c);
    else if (!all_conventions_)
      all_conventions_ = c;
  } else if (kw == "set" && !name.empty()) {
    // A `set` with no target yet (`set ` being typed) names nothing it could set: it reaches nothing.
    if (const auto t = target_of(intern(name)))
      tainted_.emplace(*t, c);
    else if (!all_)
      all_ = ErrorCause{c.at, c.what, true};
  } else if (kw == "preset" || kw == "unit" || kw == "dimension" || kw == "prefixes" || kw == "display" ||
             kw == "native") {
    if (!all_) all_ = ErrorCause{c.at, c.what, true};
  }
  // Anything else (show, assert, sweep, import, a convention, a word being typed) declares
  // nothing that the document's other statements could read without an error of their own.
}

std::optional<ErrorReach::Target> ErrorReach::target_of(Sym name) const {
  const Decl* d = p_.lookup(name);
  if (!d || d->kind == RefKind::none || d->kind == RefKind::local) return std::nullopt;
  return Target{d->kind, d->index};
}

void ErrorReach::choosers() {
  auto add = [&](Sym name, const Stmt* by) {
    if (const auto t = target_of(name)) setters_[*t].push_back(by);
  };
  auto item = [&](const Stmt& s, const Stmt* by) {
    if (s.kind == SK::use) add(s.name, by);
    if (s.kind == SK::set && !s.path.empty()) add(s.path.front(), by);
  };
  for (const Stmt* s : p_.main_stmts) {
    item(*s, s);
    if (s->kind != SK::preset_select) continue;
    const int pi = p_.preset_index(s->name);
    if (pi < 0) continue;  // an unknown preset is an error: it reaches everything
    for (const int at : preset_chain(p_, pi).presets) {
      const Stmt* def = p_.presets[static_cast<std::size_t>(at)].stmt;
      for (const Stmt& it : def->items) item(it, def);
    }
  }
  stdlib_matters_ = !setters_.empty() || !tainted_.empty() || all_conventions_.has_value();
}

ErrorCause ErrorReach::cause_at(const Stmt& s) const {
  if ((s.kind == SK::let || s.kind == SK::solve) && s.name != kNoSym)
    return ErrorCause{s.span, "`" + sym_name(s.name) + "`", false};
  return ErrorCause{s.span, first_line_of(p_.sources.slice(s.span)), false};
}

const Stmt* ErrorReach::decl_of(Target t) const {
  switch (t.kind) {
    case RefKind::global: return p_.globals[t.index].stmt;
    case RefKind::function: return p_.functions[t.index].stmt;
    case RefKind::native: return p_.natives[t.index].stmt;
    case RefKind::convention: return p_.conventions[t.index].stmt;
    default: return nullptr;
  }
}

void ErrorReach::propagate() {
  if (all_) return;
  // The nodes: the statements of the document and its imports; the prelude's too when a choice
  // may reach into it (a `use` of a convention that a prelude function matches on).
  std::unordered_map<const Stmt*, std::uint32_t> id;
  std::vector<const Stmt*> nodes;
  for (const Module& m : p_.modules)
    if (stdlib_matters_ || !p_.is_stdlib(m.file))
      for (const Stmt& s : m.stmts) {
        id.emplace(&s, static_cast<std::uint32_t>(nodes.size()));
        nodes.push_back(&s);
      }
  std::vector<std::vector<std::uint32_t>> readers(nodes.size());  // reverse edges
  std::vector<std::optional<ErrorCause>> cause(nodes.size());
  std::deque<std::uint32_t> queue;
  auto source = [&](std::uint32_t n, const ErrorCause& c) {
    if (cause[n]) return;
    cause[n] = c;
    queue.push_back(n);
  };
  for (std::uint32_t n = 0; n < nodes.size(); ++n)
    if (auto it = bad_.find(nodes[n]); it != bad_.end()) source(n, it->second);
  auto reads = [&](std::uint32_t n, const Stmt* decl) {
    if (auto it = id.find(decl); it != id.end() && it->second != n) readers[it->second].push_back(n);
  };
  std::vector<const Expr*> stack;
  for (std::uint32_t n = 0; n < nodes.size(); ++n) {
    const Stmt& s = *nodes[n];
    // A declaration reads what chooses its value, and is reached by a choice that did not parse.
    std::optional<Target> declares;
    if ((s.kind == SK::let || s.kind == SK::solve || s.kind == SK::convention || s.kind == SK::native) &&
        s.name != kNoSym)
      if (const auto t = target_of(s.name); t && decl_of(*t) == &s) declares = t;
    if (declares) {
      if (auto it = tainted_.find(*declares); it != tainted_.end()) source(n, it->second);
      if (declares->kind == RefKind::convention && all_conventions_) source(n, *all_conventions_);
      if (auto it = setters_.find(*declares); it != setters_.end())
        for (const Stmt* by : it->second) reads(n, by);
    }
    if (s.kind == SK::use)
      if (const auto t = target_of(s.name)) reads(n, decl_of(*t));
    if (s.kind == SK::preset_select)
      if (const int pi = p_.preset_index(s.name); pi >= 0)
        for (const int at : preset_chain(p_, pi).presets) reads(n, p_.presets[static_cast<std::size_t>(at)].stmt);
    stack.clear();
    auto push = [&](const Expr& e) { stack.push_back(&e); };
    for_each_stmt_expr(s, push);
    for (const Stmt& it : s.items) for_each_stmt_expr(it, push);
    while (!stack.empty()) {
      const Expr& e = *stack.back();
      stack.pop_back();
      if (e.kind == EK::name && e.name == kNoSym) source(n, cause_at(s));  // a cut expression: s did not parse
      if ((e.kind == EK::name || e.kind == EK::call) && e.name != kNoSym) {
        if (e.ref.kind == RefKind::none) {
          // Unresolved: a `let` that did not parse (not reported again), or an error of s.
          auto b = broken_.find(e.name);
          source(n, b != broken_.end() ? b->second : cause_at(s));
        } else if (e.ref.kind != RefKind::local) {
          const Target t{e.ref.kind, e.ref.index};
          if (const Stmt* d = decl_of(t)) {
            reads(n, d);
          } else if (auto it = tainted_.find(t); it != tainted_.end()) {
            source(n, it->second);
          }
        }
      }
      for_each_child(e, push);
    }
  }
  while (!queue.empty()) {
    const std::uint32_t n = queue.front();
    queue.pop_front();
    for (const std::uint32_t r : readers[n])
      if (!cause[r]) {
        cause[r] = cause[n];
        queue.push_back(r);
      }
  }
  for (std::uint32_t n = 0; n < nodes.size(); ++n)
    if (cause[n]) reached_.emplace(nodes[n], std::move(*cause[n]));
}

std::optional<ErrorCause> ErrorReach::cause_of_node(const Stmt* s) const {
  if (all_) return all_;
  if (auto it = reached_.find(s); it != reached_.end()) return it->second;
  return std::nullopt;
}

std::optional<ErrorCause> ErrorReach::cause(const Stmt& s) const { return cause_of_node(&s); }

std::optional<ErrorCause> ErrorReach::cause_of_global(std::uint32_t g) const {
  return cause_of_node(p_.globals[g].stmt);
}

std::optional<ErrorCause> ErrorReach::cause_of_convention(std::uint32_t c) const {
  return cause_of_node(p_.conventions[c].stmt);
}

std::vector<Stmt*> ErrorReach::clean_choices() const {
  std::vector<Stmt*> out;
  for (Stmt* s : p_.main_stmts)
    if ((s->kind == SK::use || s->kind == SK::set || s->kind == SK::preset_select) && !cause(*s)) out.push_back(s);
  return out;
}

}  // namespace mls
