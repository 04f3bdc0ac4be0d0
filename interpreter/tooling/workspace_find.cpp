// workspace_find.cpp — the walks behind workspace_find.hpp. Spans are inclusive at their end
// here: an editor's cursor right after a word (`H100|`) is on that word.
#include "workspace_find.hpp"

#include <string>

#include "grammar/symbols.hpp"

namespace mls {

namespace {

bool in(Span s, std::uint32_t off) { return s.valid() && s.begin <= off && off <= s.end; }

bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// A span that starts at `begin` and covers the identifier there (parameters' spans also cover
// their annotation and default).
Span ident_at(FileId file, std::uint32_t begin, std::string_view text) {
  std::uint32_t end = begin;
  while (end < text.size() && ident_char(text[end])) ++end;
  return Span{file, begin, end};
}

struct Finder {
  std::string_view text;
  std::uint32_t off;
  Hit& h;

  void set(Hit::K k, Span s) {
    h.k = k;
    h.span = s;
  }

  void unit_expr(const UnitExpr& u) {
    for (const auto& t : u.terms)
      if (in(t.span, off)) {
        set(Hit::K::unit, t.span);
        h.unit = &t;
      }
  }

  // Children are visited after the node itself, so the innermost hit wins.
  void expr(const Expr& e) {
    if ((e.kind == EK::name || e.kind == EK::call) && in(e.name_span, off)) {
      set(Hit::K::name, e.name_span);
      h.expr = &e;
      h.name = e.name;
    } else if (e.kind == EK::field && in(e.name_span, off)) {
      set(Hit::K::field, e.name_span);
      h.expr = &e;
      h.name = e.name;
    }
    if (e.unit) unit_expr(*e.unit);
    if (e.kind == EK::convert) unit_expr(e.target);
    for (const auto& it : e.items)
      if (it.is_let && in(it.name_span, off)) {
        set(Hit::K::local_decl, it.name_span);
        h.slot = it.slot;
        h.name = it.name;
      }
    for_each_child(e, [&](const Expr& k) { expr(k); });
  }

  void shows(const std::vector<ShowItem>& items) {
    for (const auto& si : items) {
      if (!in(si.span, off)) continue;
      h.show = &si;
      if (si.explicit_label && off <= si.span.begin + si.label.size())
        set(Hit::K::show_label,
            Span{si.span.file, si.span.begin, static_cast<std::uint32_t>(si.span.begin + si.label.size())});
      if (si.expr) expr(*si.expr);
    }
  }

  void stmt(const Stmt& s) {
    const bool named = s.kind != SK::use && s.kind != SK::preset_select && s.kind != SK::set;
    if (named && in(s.name_span, off)) {
      set(Hit::K::decl, s.name_span);
      h.name = s.name;
    }
    if (s.kind == SK::use && (in(s.name_span, off) || in(s.choice_span, off))) {
      h.choice = in(s.choice_span, off);
      set(Hit::K::use, h.choice ? s.choice_span : s.name_span);
      h.name = s.name;
      h.choice_name = s.choice;
    }
    if (s.kind == SK::preset_select && in(s.name_span, off)) {
      set(Hit::K::preset, s.name_span);
      h.name = s.name;
    }
    if (s.kind == SK::preset_def && in(s.extends_span, off)) {
      set(Hit::K::preset, s.extends_span);
      h.name = s.extends;
    }
    for (const auto& item : s.items) stmt(item);
    for (const auto& p : s.params) {
      if (in(p.span, off)) {
        const Span name = ident_at(p.span.file, p.span.begin, text);
        if (in(name, off)) {
          set(Hit::K::local_decl, name);
          h.slot = p.slot;
          h.name = p.name;
        }
      }
      if (p.annotation) unit_expr(*p.annotation);
      if (p.default_value) expr(*p.default_value);
    }
    if (s.value) expr(*s.value);
    shows(s.shows);
    for (const auto& b : s.bindings) {
      for (std::size_t i = 0; i < b.name_spans.size() && i < b.names.size(); ++i)
        if (in(b.name_spans[i], off)) {
          set(Hit::K::local_decl, b.name_spans[i]);
          h.slot = i < b.slots.size() ? b.slots[i] : -1;
          h.name = b.names[i];
        }
      for (const auto& d : b.domains) expr(*d);
      if (b.range_to) expr(*b.range_to);
      if (b.step) expr(*b.step);
    }
    for (const auto& b : s.body) {
      if (b.kind == BK::let) {
        const Span name = body_let_name(b, text);
        if (in(name, off)) {
          set(Hit::K::local_decl, name);
          h.slot = b.slot;
          h.name = b.name;
        }
      }
      for (const auto& e : b.exprs) expr(*e);
      shows(b.shows);
    }
    for (const auto& u : s.display_units) unit_expr(u);
  }
};

void walk_expr(const Stmt& s, const Expr& e, const std::function<void(const Stmt&, const Expr&)>& f) {
  if (e.kind == EK::name || e.kind == EK::call) f(s, e);
  for_each_child(e, [&](const Expr& k) { walk_expr(s, k, f); });
}

void walk_stmt(const Stmt& top, const Stmt& s, const std::function<void(const Stmt&, const Expr&)>& f) {
  for (const auto& item : s.items) walk_stmt(top, item, f);
  for_each_stmt_expr(s, [&](const Expr& e) { walk_expr(top, e, f); });
}

Span record_let_span(const Expr& e, int slot) {
  for (const auto& it : e.items)
    if (it.is_let && it.slot == slot) return it.name_span;
  Span found;
  for_each_child(e, [&](const Expr& k) {
    if (!found.valid()) found = record_let_span(k, slot);
  });
  return found;
}

}  // namespace

Span body_let_name(const BodyItem& b, std::string_view text) {
  std::uint32_t p = b.span.begin;
  if (p + 3 <= text.size() && text.substr(p, 3) == "let") p += 3;
  while (p < text.size() && (text[p] == ' ' || text[p] == '\t')) ++p;
  return ident_at(b.span.file, p, text);
}

Hit find_at(const std::vector<Stmt>& stmts, std::string_view text, std::uint32_t offset) {
  Hit h;
  for (const auto& s : stmts) {
    if (!in(s.span, offset)) continue;
    Finder f{text, offset, h};
    f.stmt(s);
    h.stmt = &s;
    if (h.k != Hit::K::none) break;  // a statement ending where the next begins: try the next
  }
  return h;
}

Span local_decl_span(const Stmt& s, int slot, std::string_view text) {
  if (slot < 0) return {};
  for (const auto& p : s.params)
    if (p.slot == slot) return ident_at(p.span.file, p.span.begin, text);
  for (const auto& b : s.bindings)
    for (std::size_t i = 0; i < b.slots.size() && i < b.name_spans.size(); ++i)
      if (b.slots[i] == slot) return b.name_spans[i];
  for (const auto& b : s.body)
    if (b.kind == BK::let && b.slot == slot) return body_let_name(b, text);
  Span found;
  auto look = [&](const ExprP& x) {
    if (x && !found.valid()) found = record_let_span(*x, slot);
  };
  look(s.value);
  for (const auto& b : s.body)
    for (const auto& x : b.exprs) look(x);
  return found;
}

void each_name_expr(const std::vector<Stmt>& stmts, const std::function<void(const Stmt&, const Expr&)>& f) {
  for (const auto& s : stmts) walk_stmt(s, s, f);
}

}  // namespace mls
