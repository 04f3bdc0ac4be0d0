// workspace.cpp — open documents, their analysis (the `mls check` phases: prelude, scenario,
// resolve, check, configure) and the answers that read the syntax tree: diagnostics,
// definitions, references, completion and symbols. Hover is in workspace_hover.cpp.
#include "workspace.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "completion.hpp"
#include "grammar/symbols.hpp"
#include "interpreter/semantics/stack.hpp"
#include "interpreter/semantics/stdlib_embed.hpp"
#include "workspace_impl.hpp"

namespace mls {

// ---- positions --------------------------------------------------------------------------------

namespace {

// UTF-16 code units of the UTF-8 sequence starting with byte `c` (1, or 2 for 4-byte sequences).
int utf16_units(unsigned char c) { return c >= 0xF0 ? 2 : 1; }
bool continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

std::string normal(const std::string& path) { return std::filesystem::path(path).lexically_normal().generic_string(); }

}  // namespace

TextPos text_pos(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  TextPos p;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset; ++i)
    if (text[i] == '\n') {
      ++p.line;
      line_start = i + 1;
    }
  for (std::size_t i = line_start; i < offset; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (!continuation(c)) p.character += static_cast<std::uint32_t>(utf16_units(c));
  }
  return p;
}

std::size_t text_offset(std::string_view text, TextPos p) {
  std::size_t i = 0;
  for (std::uint32_t line = 0; line < p.line; ++line) {
    const std::size_t nl = text.find('\n', i);
    if (nl == std::string_view::npos) return text.size();
    i = nl + 1;
  }
  std::uint32_t units = 0;
  while (i < text.size() && text[i] != '\n' && units < p.character) {
    units += static_cast<std::uint32_t>(utf16_units(static_cast<unsigned char>(text[i])));
    ++i;
    while (i < text.size() && continuation(static_cast<unsigned char>(text[i]))) ++i;
  }
  return i;
}

TextRange range_of(const Program& p, Span s) {
  if (!s.valid() || s.file >= p.sources.size()) return {};
  const std::string_view text = p.sources.get(s.file).text;
  return TextRange{text_pos(text, s.begin), text_pos(text, s.end)};
}

std::string file_of(const Program& p, FileId f, const std::string& stdlib_dir) {
  if (f == kNoFile || f >= p.sources.size()) return "";
  const SourceFile& sf = p.sources.get(f);
  if (!sf.is_stdlib) return sf.name;
  const std::string_view prefix = "stdlib/";
  if (stdlib_dir.empty() || sf.name.rfind(prefix, 0) != 0) return "";
  return (std::filesystem::path(stdlib_dir) / sf.name.substr(prefix.size())).generic_string();
}

std::string find_stdlib_dir(const std::vector<std::string>& candidates) {
  for (const auto& dir : candidates) {
    bool all = kStdlibCount > 0;
    for (std::size_t i = 0; all && i < kStdlibCount; ++i) {
      const std::string name = kStdlib[i].name;
      std::ifstream in(std::filesystem::path(dir) / name.substr(name.find('/') + 1), std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      all = in && ss.str() == std::string_view(kStdlib[i].text, kStdlib[i].size);
    }
    if (all) return normal(std::filesystem::absolute(dir).string());
  }
  return "";
}

// ---- documents and their analysis -------------------------------------------------------------

Workspace::Workspace() = default;
Workspace::~Workspace() = default;

void Workspace::changed() {
  // Any document may import any other: every analysis and cached answer is stale.
  current_.reset();
  for (auto& [_, doc] : docs_) doc->diags.reset();
}

void Workspace::open(const std::string& path, std::string text) {
  auto& d = docs_[normal(path)];
  if (!d) d = std::make_unique<Doc>();
  d->text = std::move(text);
  changed();
}

void Workspace::close(const std::string& path) {
  docs_.erase(normal(path));
  changed();
}

void Workspace::close_all() {
  docs_.clear();
  changed();
}

bool Workspace::is_open(const std::string& path) const { return docs_.count(normal(path)) != 0; }

namespace {

// Renew the base after this many analyses (what rollback keeps grows a little with each).
constexpr std::size_t kAnalysesPerBase = 256;

// A document with errors (issue 36): what they reach, and the choices configured from the clean
// `use`, `set` and `preset` statements alone, so the rest evaluates as without the errors. A
// choice the configuration refuses (a `use` of a choice that does not exist) is an error of its
// own: it joins the others and the clean choices are configured again. Those errors are not
// published (the diagnostics stay those of `mls check`, which configures only a checked file).
void configure_clean(Core& core, Workspace::Analysis& an) {
  Program& p = core.session().prog;
  const std::size_t reported = p.diags.size();
  struct Unreport {
    Diagnostics& d;
    std::size_t n;
    ~Unreport() { d.truncate(n); }
  } unreport{p.diags, reported};
  an.reach = std::make_unique<ErrorReach>(p, an.first_diag);
  std::string why = "the document has errors";
  for (int round = 0; round < 4; ++round) {
    // configure() reads the main statements' choices: for now, the clean ones only.
    struct Restore {
      Program& p;
      std::vector<Stmt*> all;
      ~Restore() { p.main_stmts = std::move(all); }
    } restore{p, p.main_stmts};
    p.main_stmts = an.reach->clean_choices();
    const std::size_t before = p.diags.size();
    if (core.configure(Selection{})) {
      an.cfg = core.config();
      return;
    }
    if (p.diags.size() == before) break;
    why = "the choices cannot be configured: " + p.diags.items()[before].message;
    an.reach = std::make_unique<ErrorReach>(p, an.first_diag);
  }
  an.no_config = why;
}

}  // namespace

Workspace::Analysis* Workspace::analysis(const std::string& raw) {
  const std::string path = normal(raw);
  if (!docs_.count(path)) return nullptr;
  if (current_ && current_->path == path) return current_.get();
  current_.reset();
  if (!base_ || base_->analyses >= kAnalysesPerBase) {
    Core::Options opt = core_options;
    // Open documents are read from the editor, not the disk: unsaved imports count.
    opt.reader = [this](const std::string& file) -> std::optional<std::string> {
      auto open_doc = docs_.find(normal(file));
      if (open_doc != docs_.end()) return open_doc->second->text;
      return Core::read_disk(file);
    };
    base_ = std::make_unique<Base>(std::move(opt));
    Base& b = *base_;
    b.ok = b.core.load_prelude() && b.core.check();
  }
  Base& b = *base_;
  if (b.document) b.core.rollback(*b.document);
  b.document = b.core.begin();  // the prelude stays; the document's analysis is rolled back
  auto an = std::make_unique<Analysis>();
  an->s = &b.core.session();
  an->path = path;
  an->first_diag = b.ok ? b.core.diagnostics().size() : 0;
  Program& p = b.core.session().prog;
  ++b.analyses;
  try {
    // What `mls check` does after the prelude: load, check, configure.
    if (b.ok) {
      an->ok = b.core.add_main(Input{path, std::nullopt});
      if (p.main_file != kNoFile && b.core.check() && b.core.configure(Selection{})) an->cfg = b.core.config();
    }
    an->ok = an->ok && an->cfg && !p.diags.has_errors();
    if (b.ok && p.main_file != kNoFile && !an->ok) configure_clean(b.core, *an);
  } catch (const std::bad_alloc&) {
    p.diags.error(ErrorKind::limit_memory, Span{}, "out of memory while checking the document");
  }
  for (const auto& m : p.modules)
    if (m.file == p.main_file && p.main_file != kNoFile && !p.is_stdlib(m.file)) an->main = &m;
  current_ = std::move(an);
  return current_.get();
}

// ---- diagnostics ------------------------------------------------------------------------------

std::vector<WsDiagnostic> Workspace::diagnostics(const std::string& path) {
  std::vector<WsDiagnostic> out;
  auto doc = docs_.find(normal(path));
  if (doc == docs_.end()) return out;
  if (doc->second->diags) return *doc->second->diags;
  Analysis* an = analysis(path);
  const Program& p = an->s->prog;
  for (std::size_t i = an->first_diag; i < p.diags.size(); ++i) {
    const Diagnostic& d = p.diags.items()[i];
    if (out.size() >= limits.max_diagnostics) break;
    WsDiagnostic w;
    w.error = d.severity == Severity::error;
    w.code = info(d.kind).code;
    w.message = d.message;
    w.help = d.help;
    if (d.span.valid() && d.span.file == p.main_file) {
      w.range = range_of(p, d.span);
    } else if (d.span.valid()) {
      // In an imported file or the stdlib: said where, and shown at the document's call that
      // reached it when a note names one (the checker labels it, check.cpp note_calls), else at
      // the top.
      w.message = p.sources.where_col(d.span) + ": " + d.message;
      w.related.push_back({Location{file_of(p, d.span.file, stdlib_dir), range_of(p, d.span)}, d.label});
      for (const auto& n : d.notes)
        if (n.span.valid() && n.span.file == p.main_file) {
          w.range = range_of(p, n.span);
          break;
        }
    }
    for (const auto& n : d.notes)
      if (n.span.valid())
        w.related.push_back({Location{file_of(p, n.span.file, stdlib_dir), range_of(p, n.span)}, n.text});
    w.suggestions = d.suggestions;
    // A related place the editor cannot open (the prelude without stdlib_dir) is dropped.
    std::erase_if(w.related, [](const auto& r) { return r.first.file.empty(); });
    out.push_back(std::move(w));
  }
  doc->second->diags = out;
  return out;
}

// ---- definition and references ------------------------------------------------------------------

namespace {

// The declaration a hit names, as a span in some loaded file (invalid: none).
Span declaration(const Program& p, const Hit& h, std::string_view text) {
  auto decl_of = [&](Sym s) -> Span {
    if (const Decl* d = p.lookup(s)) return d->span;
    const int pi = p.preset_index(s);
    if (pi >= 0) return p.presets[static_cast<std::size_t>(pi)].stmt->name_span;
    return {};
  };
  switch (h.k) {
    case Hit::K::name:
      if (h.expr->ref.kind == RefKind::local && h.stmt)
        return local_decl_span(*h.stmt, static_cast<int>(h.expr->ref.index), text);
      return decl_of(h.name);
    case Hit::K::decl:
    case Hit::K::local_decl: return h.span;
    case Hit::K::preset: return decl_of(h.name);
    case Hit::K::use: {
      const int ci = p.convention_index(h.name);
      if (ci < 0) return {};
      const Stmt& conv = *p.conventions[static_cast<std::size_t>(ci)].stmt;
      if (!h.choice) return conv.name_span;
      for (const auto& c : conv.choices)
        if (c.name == h.choice_name) return c.span;
      return {};
    }
    case Hit::K::unit:
      if (const UnitDef* u = p.units.unit(h.unit->atom)) return u->decl;
      return {};
    default: return {};
  }
}

}  // namespace

std::vector<Location> Workspace::definition(const std::string& path, TextPos pos) {
  Analysis* an = analysis(path);
  if (!an || !an->main) return {};
  const Program& p = an->s->prog;
  const auto off = static_cast<std::uint32_t>(text_offset(an->text(), pos));
  const Hit h = find_at(an->main->stmts, an->text(), off);
  const Span d = declaration(p, h, an->text());
  if (!d.valid()) return {};
  std::string file = file_of(p, d.file, stdlib_dir);
  if (file.empty()) return {};
  return {Location{std::move(file), range_of(p, d)}};
}

std::vector<Location> Workspace::references(const std::string& path, TextPos pos, bool with_decl) {
  Analysis* an = analysis(path);
  if (!an || !an->main) return {};
  const Program& p = an->s->prog;
  const std::string_view text = an->text();
  const Hit h = find_at(an->main->stmts, text, static_cast<std::uint32_t>(text_offset(text, pos)));
  const Span target = declaration(p, h, text);
  if (!target.valid()) return {};
  std::vector<Location> out;
  if (with_decl && !file_of(p, target.file, stdlib_dir).empty())
    out.push_back(Location{file_of(p, target.file, stdlib_dir), range_of(p, target)});
  // A use refers to the target when the walk from it arrives at the same declaration.
  each_name_expr(an->main->stmts, [&](const Stmt& s, const Expr& e) {
    Hit use;
    use.k = Hit::K::name;
    use.expr = &e;
    use.stmt = &s;
    use.name = e.name;
    const Span d = declaration(p, use, text);
    if (d.file == target.file && d.begin == target.begin && d.end == target.end)
      out.push_back(Location{an->path, range_of(p, e.name_span)});
  });
  return out;
}

// ---- completion -------------------------------------------------------------------------------

namespace {

bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// `root.f.g.` before `end` (the dot at end - 1): {"root", "f", "g"}, or empty if it is not a
// plain chain of names (a call or an index before the dot is left to the REPL's engine).
std::vector<std::string> name_chain(std::string_view line, std::size_t end) {
  std::vector<std::string> out;
  while (end > 0 && line[end - 1] == '.') {
    std::size_t b = end - 1;
    while (b > 0 && ident_char(line[b - 1])) --b;
    if (b == end - 1) return {};
    out.insert(out.begin(), std::string(line.substr(b, end - 1 - b)));
    end = b;
  }
  if (end > 0 && (line[end - 1] == ')' || line[end - 1] == ']')) return {};
  return out;
}

}  // namespace

CompletionList Workspace::completion(const std::string& raw, TextPos pos) {
  CompletionList out;
  const std::string path = normal(raw);
  auto it = docs_.find(path);
  if (it == docs_.end()) return out;
  const std::string& text = it->second->text;
  const std::size_t off = text_offset(text, pos);
  const std::size_t nl = off == 0 ? std::string::npos : text.rfind('\n', off - 1);
  const std::size_t from = nl == std::string::npos ? 0 : nl + 1;
  const std::string line = text.substr(from, off - from);
  // The REPL's engine over the prelude, loaded once: stdlib names, fields of stdlib values (H100.),
  // units after a number, conventions and their choices, presets.
  if (!repl_) {
    repl_ = std::make_unique<ReplSession>();
    run_on_pipeline_stack([&] { (void)repl_->start({}); });
  }
  Completion c;
  run_on_pipeline_stack([&] { c = complete(*repl_, line, {}); });
  const std::size_t start = std::min(c.start, line.size());
  const std::string word = line.substr(start);
  std::vector<std::string> labels = std::move(c.candidates);
  // The document's own names and the fields of its values, from its analysis (a text that does
  // not parse still declares the statements that do).
  const Analysis* an = analysis(path);
  if (an && an->main) {
    const Program& p = an->s->prog;
    const std::vector<std::string> chain =
        start > 0 && line[start - 1] == '.' ? name_chain(line, start) : std::vector<std::string>{};
    for (const Stmt& st : an->main->stmts) {
      if (st.kind != SK::let || st.name == kNoSym) continue;
      const std::string& name = sym_name(st.name);
      if (chain.empty() && (start == 0 || line[start - 1] != '.')) {
        if (name.rfind(word, 0) == 0) labels.push_back(name);
        continue;
      }
      if (chain.empty() || name != chain[0]) continue;
      const Decl* d = p.lookup(st.name);
      if (!d || d->kind != RefKind::global) continue;
      TypeP t = p.globals[d->index].type;
      for (std::size_t i = 1; t && i < chain.size(); ++i) {
        const TypeP* f = t->k == Type::K::record ? t->field(intern(chain[i])) : nullptr;
        t = f ? *f : nullptr;
      }
      if (t && t->k == Type::K::record)
        for (const auto& [f, _] : t->fields)
          if (sym_name(f).rfind(word, 0) == 0) labels.push_back(sym_name(f));
    }
  }
  std::sort(labels.begin(), labels.end());
  labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
  out.labels = std::move(labels);
  out.replace = TextRange{text_pos(text, from + start), text_pos(text, off)};
  return out;
}

// ---- symbols ----------------------------------------------------------------------------------

std::vector<SymbolInfo> Workspace::symbols(const std::string& path) {
  std::vector<SymbolInfo> out;
  Analysis* an = analysis(path);
  if (!an || !an->main) return out;
  const Program& p = an->s->prog;
  for (const Stmt& s : an->main->stmts) {
    SymbolInfo si;
    switch (s.kind) {
      case SK::let: si.kind = s.has_params ? SymbolInfo::Kind::function : SymbolInfo::Kind::variable; break;
      case SK::sweep: si.kind = SymbolInfo::Kind::sweep; break;
      case SK::search: si.kind = SymbolInfo::Kind::search; break;
      case SK::convention: si.kind = SymbolInfo::Kind::convention; break;
      case SK::preset_def: si.kind = SymbolInfo::Kind::preset; break;
      case SK::unit: si.kind = SymbolInfo::Kind::unit; break;
      case SK::dimension: si.kind = SymbolInfo::Kind::dimension; break;
      default: continue;
    }
    si.name = s.kind == SK::unit ? s.unit_name : s.name != kNoSym ? sym_name(s.name) : "";
    if (si.name.empty() || !s.name_span.valid()) continue;
    si.detail = s.str;
    si.range = range_of(p, s.span);
    si.selection = range_of(p, s.name_span);
    out.push_back(std::move(si));
  }
  return out;
}

std::optional<HoverInfo> Workspace::hover(const std::string& path, TextPos pos) {
  Analysis* an = analysis(path);
  if (!an || !an->main) return std::nullopt;
  const Hit h = find_at(an->main->stmts, an->text(), static_cast<std::uint32_t>(text_offset(an->text(), pos)));
  if (h.k == Hit::K::none) return std::nullopt;
  return hover_of(*an, h, limits);
}

}  // namespace mls
