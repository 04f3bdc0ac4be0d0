// program.cpp — loading files (prelude, scenario, imports), declaring top-level names,
// and building the unit table from the prelude's declarations.
#include "program.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "grammar/parse.hpp"
#include "grammar/symbols.hpp"
#include "natives.hpp"
#include "resolve.hpp"
#include "stdlib_embed.hpp"

namespace mls {

namespace {

constexpr std::size_t kMaxFileBytes = 16u << 20;

// The text with every byte that is not ASCII replaced by '?': safe to show in a diagnostic.
std::string ascii_only(const std::string& s) {
  std::string out(s);
  for (char& c : out)
    if (static_cast<unsigned char>(c) >= 0x80 || c == 0) c = '?';
  return out;
}

// Constant folding for unit definitions (`unit h = 3600 s`): literals, units, * / ^ and -.
struct ConstQ {
  Num n;
  Dim d;
};

}  // namespace

int ConventionDef::choice_index(Sym s) const {
  for (std::size_t i = 0; i < stmt->choices.size(); ++i)
    if (stmt->choices[i].name == s) return static_cast<int>(i);
  return -1;
}

bool is_literal(const Expr& e) {
  if (e.kind == EK::num || e.kind == EK::boolean || e.kind == EK::uncertain) return true;
  if (e.kind == EK::unary && e.op == Op::neg && e.kids[0]->kind == EK::num) return true;
  return false;
}

// Reads at most kMaxFileBytes + 1 bytes: enough to tell that a file is too large without
// reading (or holding) all of a huge one. Devices and FIFOs are not regular files: refused.
std::optional<std::string> read_disk(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string out;
  char buf[1 << 16];
  while (out.size() <= kMaxFileBytes && in.read(buf, sizeof buf).gcount() > 0)
    out.append(buf, static_cast<std::size_t>(in.gcount()));
  if (in.bad()) return std::nullopt;
  return out;
}

Program::Program() {
  reader = [](const std::string& path) { return read_disk(path); };
}

Program::Mark Program::begin_input() {
  global_floor_ = globals.size();
  marked_ = true;
  return Mark{sources.size(),
              diags.size(),
              modules.size(),
              globals.size(),
              functions.size(),
              natives.size(),
              conventions.size(),
              presets.size(),
              main_stmts.size(),
              loaded_paths_.size(),
              validated_families.size(),
              scope_log_.size(),
              global_log_.size(),
              main_file,
              units.mark(),
              deps.mark()};
}

void Program::bind(Sym name, Decl d) {
  auto it = scope_.find(name);
  if (marked_) scope_log_.emplace_back(name, it == scope_.end() ? std::nullopt : std::optional<Decl>(it->second));
  if (it == scope_.end())
    scope_.emplace(name, d);
  else
    it->second = d;
}

void Program::unbind(Sym name) {
  auto it = scope_.find(name);
  if (it == scope_.end()) return;
  if (marked_) scope_log_.emplace_back(name, it->second);
  scope_.erase(it);
}

void Program::touch_global(std::uint32_t g) {
  if (g < global_floor_) global_log_.emplace_back(g, globals[g]);
}

void Program::commit(const Mark& m) {
  // The entries since m could only serve a rollback to m (or before), which the caller gives up.
  scope_log_.resize(m.scope_log);
  global_log_.resize(m.global_log, {0, GlobalDef{}});
}

void Program::rollback(const Mark& m) {
  // Undo logged changes newest first, so that each entry ends as it was at the mark.
  for (std::size_t i = scope_log_.size(); i-- > m.scope_log;) {
    auto& [name, old] = scope_log_[i];
    if (old)
      scope_[name] = *old;
    else
      scope_.erase(name);
  }
  scope_log_.resize(m.scope_log);
  for (std::size_t i = global_log_.size(); i-- > m.global_log;)
    if (global_log_[i].first < m.globals) globals[global_log_[i].first] = std::move(global_log_[i].second);
  global_log_.resize(m.global_log, {0, GlobalDef{}});
  globals.resize(m.globals);
  functions.resize(m.functions);
  conventions.resize(m.conventions);
  presets.resize(m.presets);
  natives.resize(m.natives);
  main_stmts.resize(m.main_stmts);
  main_file = m.main_file;
  loaded_paths_.resize(m.loaded_paths);
  validated_families.resize(m.validated_families);
  {
    std::lock_guard<std::mutex> lock(validation_memo->mu);
    validation_memo->atoms.clear();
  }
  units.rollback(m.units);
  deps.rollback(m.deps);
  // Nothing above refers to the modules, diagnostics or sources being dropped any more.
  while (modules.size() > m.modules) modules.pop_back();
  diags.truncate(m.diags);
  sources.truncate(m.sources);
}

const Decl* Program::lookup(Sym s) const {
  auto it = scope_.find(s);
  return it == scope_.end() ? nullptr : &it->second;
}

int Program::convention_index(Sym s) const {
  const Decl* d = lookup(s);
  return d && d->kind == RefKind::convention ? static_cast<int>(d->index) : -1;
}

int Program::preset_index(Sym s) const {
  for (std::size_t i = 0; i < presets.size(); ++i)
    if (presets[i].name == s) return static_cast<int>(i);
  return -1;
}

std::vector<std::string> Program::global_names() const {
  std::vector<std::string> out;
  for (const auto& [s, d] : scope_) out.push_back(sym_name(s));
  std::sort(out.begin(), out.end());
  return out;
}

bool Program::load_prelude() {
  loading_stdlib = true;
  std::vector<const EmbeddedFile*> files;
  for (std::size_t i = 0; i < kStdlibCount; ++i) files.push_back(&kStdlib[i]);
  // Units first: every other file writes quantities.
  std::stable_sort(files.begin(), files.end(), [](const EmbeddedFile* a, const EmbeddedFile* b) {
    const bool ua = std::string_view(a->name) == "stdlib/units.mls";
    const bool ub = std::string_view(b->name) == "stdlib/units.mls";
    return ua > ub;
  });
  // Declare every prelude file before resolving any, so that stdlib files may use each
  // other's names in any order (declarations are order-independent across files).
  const std::size_t first = modules.size();
  for (const EmbeddedFile* f : files) {
    const FileId id = sources.add(f->name, std::string(f->text, f->size), true);
    loaded_paths_.push_back(f->name);
    modules.push_back(parse_module(sources, id, diags));
    declare_units(modules.back());
    declare(modules.back());
  }
  for (std::size_t i = first; i < modules.size(); ++i) resolve_module(*this, modules[i]);
  loading_stdlib = false;
  check_natives_declared(*this);
  return !diags.has_errors();
}

bool Program::load_main(const std::string& path) {
  std::vector<std::string> stack;
  return load_file(path, Span{}, stack, true);
}

bool Program::load_main_text(const std::string& name, std::string text) {
  const FileId id = sources.add(name, std::move(text), false);
  Module m = parse_module(sources, id, diags);
  return add_module(std::move(m), true);
}

bool Program::load_file(const std::string& path, Span from, std::vector<std::string>& stack, bool is_main) {
  const std::string norm = std::filesystem::path(path).lexically_normal().generic_string();
  if (std::find(stack.begin(), stack.end(), norm) != stack.end()) {
    auto& d = diags.error(ErrorKind::load_cycle, from, "import cycle: '" + norm + "' imports itself");
    std::string chain;
    for (const auto& s : stack) chain += s + " -> ";
    d.help.push_back("the chain is " + chain + norm);
    return false;
  }
  if (std::find(loaded_paths_.begin(), loaded_paths_.end(), norm) != loaded_paths_.end()) return true;
  if (!is_main && std::filesystem::path(norm).extension() != ".mls") {
    // Checked before the file is opened: an error excerpt must never show a line of a file that
    // is not mls source (`import "../../etc/shadow"` once printed its first line).
    auto& d = diags.error(ErrorKind::load_not_mls, from, "only .mls files can be imported, got '" + path + "'");
    d.help.push_back("import names an mls source file, relative to the importing file (docs/language.md)");
    return false;
  }
  if (std::filesystem::path(norm).extension() == ".mls") {
    // A link named x.mls to a file that is not mls source (x.mls -> ~/.ssh/id_rsa) is refused
    // before it is read, as an import of a non-mls file is: no excerpt may show a line of it.
    std::error_code ec;
    const std::filesystem::path target = std::filesystem::canonical(path, ec);
    if (!ec && target.extension() != ".mls") {
      auto& d = diags.error(ErrorKind::load_not_mls, from,
                            "'" + path + "' is a link to '" + target.generic_string() + "', which is not an .mls file");
      d.help.push_back("mls reads scenarios and imports from .mls files; name the file itself if it is one");
      return false;
    }
  }
  auto text = reader(path);
  if (!text) {
    auto& d = diags.error(ErrorKind::load_missing, from, "cannot read '" + path + "'");
    if (from.valid()) d.help.push_back("import paths are relative to the importing file");
    return false;
  }
  if (text->size() > kMaxFileBytes) {
    diags.error(ErrorKind::load_too_large, from, "'" + path + "' is larger than 16 MiB")
        .help.push_back("mls files are hand-written models; split generated data into several files");
    return false;
  }
  if (const auto bad = first_non_text(*text)) {
    const auto byte = static_cast<unsigned char>((*text)[*bad]);
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", byte);
    const std::string what = byte == 0 ? "a NUL byte" : std::string("byte ") + hex;
    if (from.valid()) {
      diags.error(ErrorKind::load_binary, from, "'" + path + "' is not UTF-8 text (" + what + ")");
    } else {
      // The main file: point at the first offending byte, in a copy that is safe to print.
      const FileId id = sources.add(norm, ascii_only(*text), false);
      const auto at = static_cast<std::uint32_t>(*bad);
      diags.error(ErrorKind::load_binary, Span{id, at, at + 1}, "not UTF-8 text: " + what)
          .help.push_back("mls reads UTF-8 text files; is this the right file?");
    }
    return false;
  }
  // A byte order mark would be a syntax error at 1:1 with an invisible cause: skipped.
  if (std::string_view(*text).substr(0, kUtf8Bom.size()) == kUtf8Bom) text->erase(0, kUtf8Bom.size());
  loaded_paths_.push_back(norm);
  const FileId id = sources.add(norm, std::move(*text), false);
  Module m = parse_module(sources, id, diags);
  // Imports load first so that their declarations exist when this file resolves.
  stack.push_back(norm);
  const std::filesystem::path dir = std::filesystem::path(norm).parent_path();
  for (const Stmt& s : m.stmts) {
    if (s.kind != SK::import_) continue;
    if (s.str.rfind("stdlib/", 0) == 0 &&
        std::find(loaded_paths_.begin(), loaded_paths_.end(), s.str) != loaded_paths_.end())
      continue;  // the prelude is always loaded
    load_file((dir / s.str).generic_string(), s.name_span, stack, false);
  }
  stack.pop_back();
  if (!is_main) refuse_run_statements(m);
  return add_module(std::move(m), is_main);
}

// An import shares declarations (names, functions, units, conventions, presets). Statements that
// choose or run something apply only in the file `mls run` was given: obeyed in an import they
// would depend on which file imports which; ignored, they would look applied. So they are errors.
void Program::refuse_run_statements(const Module& m) {
  for (const Stmt& s : m.stmts) {
    const char* what = nullptr;
    switch (s.kind) {
      case SK::use: what = "`use`"; break;
      case SK::set: what = "`set`"; break;
      case SK::preset_select: what = "`preset NAME`"; break;
      case SK::show: what = "`show`"; break;
      case SK::assert_: what = "`assert`"; break;
      case SK::sweep: what = "`sweep`"; break;
      case SK::search: what = "`search`"; break;
      default: continue;
    }
    auto& d = diags.error(ErrorKind::load_import_statement, s.span,
                          std::string(what) + " in an imported file would not apply to the run");
    const bool choice = s.kind == SK::use || s.kind == SK::set || s.kind == SK::preset_select;
    d.help.push_back(choice
                         ? "to share choices and settings, declare a preset in this file (`preset shared \"...\" { use "
                           "... set ... }`) and select it in the main file: `preset shared` or --preset shared"
                         : "imported files share declarations; move results and checks to the main file");
  }
}

bool Program::add_module(Module m, bool is_main) {
  const std::size_t before = diags.size();
  modules.push_back(std::move(m));
  Module& mod = modules.back();
  declare_units(mod);
  declare(mod);
  resolve_module(*this, mod);
  for (auto& [name, decl] : deferred_) bind(name, decl);
  deferred_.clear();
  if (is_main) {
    main_file = mod.file;
    for (Stmt& s : mod.stmts) main_stmts.push_back(&s);
  }
  for (std::size_t i = before; i < diags.size(); ++i)
    if (diags.items()[i].severity == Severity::error) return false;
  return true;
}

// ---- units ----------------------------------------------------------------------------------

namespace {

struct UnitBuilder {
  Program& p;

  std::optional<ResolvedUnit> unit_expr(const UnitExpr& u) {
    const UnitTable::Reading r = p.units.read(u, false);
    switch (r.fail) {
      case UnitTable::Reading::Fail::none: return r.unit;
      case UnitTable::Reading::Fail::unknown: {
        const UnitTerm& t = u.terms[r.term];
        auto& d = p.diags.error(ErrorKind::unit_unknown, t.span, "unknown unit '" + t.atom + "'");
        d.subject = t.atom;
        p.units.suggest(d, t.atom);
        return std::nullopt;
      }
      case UnitTable::Reading::Fail::dim_range:
        p.diags.error(ErrorKind::unit_decl, u.span, "the dimension of '" + u.text + "' is out of range");
        return std::nullopt;
      case UnitTable::Reading::Fail::inexact: exact_ok(r.unit.factor, r.lost, u.span); return std::nullopt;
    }
    return std::nullopt;
  }

  // Unit sizes are exact and nonzero by promise: anything else is a declaration error.
  bool exact_ok(const Num& n, bool lost, Span at) {
    if (!lost && n.exact() && std::isfinite(n.d) && !is_zero(n)) return true;
    p.diags.error(ErrorKind::unit_decl, at,
                  is_zero(n) && !lost ? "a unit's size cannot be zero" : "this size cannot be represented exactly");
    return false;
  }

  std::optional<ConstQ> eval(const Expr& e) {
    switch (e.kind) {
      case EK::num: {
        if (!e.unit) return ConstQ{e.num, Dim{}};
        auto u = unit_expr(*e.unit);
        if (!u) return std::nullopt;
        bool lost = false;
        Num n = mul(e.num, u->factor, lost);
        if (lost || !std::isfinite(n.d)) {
          p.diags.error(ErrorKind::unit_decl, e.span, "this size cannot be represented exactly");
          return std::nullopt;
        }
        return ConstQ{std::move(n), u->dim};
      }
      case EK::unary:
        if (e.op == Op::neg) {
          auto a = eval(*e.kids[0]);
          if (!a) return std::nullopt;
          return ConstQ{neg(a->n), a->d};
        }
        break;
      case EK::binary: {
        auto a = eval(*e.kids[0]);
        auto b = eval(*e.kids[1]);
        if (!a || !b) return std::nullopt;
        bool lost = false;
        std::optional<ConstQ> r;
        if (e.op == Op::mul) {
          if (auto d = a->d.times(b->d)) r = ConstQ{mul(a->n, b->n, lost), *d};
        } else if (e.op == Op::div) {
          if (is_zero(b->n)) break;
          if (auto d = a->d.over(b->d)) r = ConstQ{div(a->n, b->n, lost), *d};
        } else if (e.op == Op::pow && b->d.none()) {
          auto k = to_int(b->n);
          auto dim = k ? a->d.pow(*k, 1) : std::nullopt;
          if (!k || !dim || (*k < 0 && is_zero(a->n))) break;
          r = ConstQ{pow_int(a->n, *k, lost), *dim};
        } else {
          break;
        }
        if (!r) {
          p.diags.error(ErrorKind::unit_decl, e.span, "the dimension of this definition is out of range");
          return std::nullopt;
        }
        if (lost || !std::isfinite(r->n.d)) {
          p.diags.error(ErrorKind::unit_decl, e.span, "this size cannot be represented exactly");
          return std::nullopt;
        }
        return r;
      }
      default: break;
    }
    p.diags.error(ErrorKind::unit_decl, e.span, "a unit is defined by a constant: numbers and units with * / ^");
    return std::nullopt;
  }
};

}  // namespace

void Program::declare_units(Module& m) {
  UnitBuilder ub{*this};
  for (Stmt& s : m.stmts) {
    switch (s.kind) {
      case SK::dimension: {
        const std::string name = sym_name(s.name);
        if (s.dim_factors.empty()) {
          if (!units.add_base_dimension(name, s.str, s.name_span))
            diags.error(ErrorKind::unit_decl, s.name_span,
                        units.dimension(name) ? "dimension '" + name + "' is declared twice"
                                              : "too many base dimensions (at most 16)");
          break;
        }
        Dim d;
        bool ok = true;
        for (std::size_t i = 0; i < s.dim_factors.size(); ++i) {
          const auto& [fac, ex] = s.dim_factors[i];
          const DimensionDef* def = units.dimension(sym_name(fac));
          if (!def) {
            auto& dg = diags.error(ErrorKind::unit_decl, s.dim_spans[i], "unknown dimension '" + sym_name(fac) + "'");
            std::vector<std::string> names;
            for (const auto& dd : units.dimensions()) names.push_back(dd.name);
            suggest(dg, sym_name(fac), names);
            ok = false;
            break;
          }
          auto pw = def->dim.pow(ex, 1);
          if (pw) pw = d.times(*pw);
          if (!pw) {
            diags.error(ErrorKind::unit_decl, s.dim_spans[i], "the dimension of this declaration is out of range");
            ok = false;
            break;
          }
          d = *pw;
        }
        if (ok && !units.add_derived_dimension(name, d, s.str, s.name_span))
          diags.error(ErrorKind::unit_decl, s.name_span, "dimension '" + name + "' is declared twice");
        break;
      }
      case SK::prefixes: {
        PrefixSet ps;
        ps.name = sym_name(s.name);
        ps.decl = s.name_span;
        ps.prefixes = s.prefix_defs;
        // A zero prefix would make a zero-sized unit (and a division by zero when converting).
        bool bad = false;
        for (const auto& [pname, factor] : ps.prefixes)
          if (compare(factor, Num::of_int(0)) <= 0) bad = true;
        if (bad) {
          diags.error(ErrorKind::unit_decl, s.name_span, "prefix factors must be positive");
          break;
        }
        if (!units.add_prefix_set(std::move(ps)))
          diags.error(ErrorKind::unit_decl, s.name_span, "prefix set '" + sym_name(s.name) + "' is declared twice");
        break;
      }
      case SK::unit: {
        UnitDef u;
        u.name = s.unit_name;
        u.description = s.str;
        u.decl = s.name_span;
        if (s.base_dim != kNoSym) {
          const DimensionDef* def = units.dimension(sym_name(s.base_dim));
          if (!def) {
            diags.error(ErrorKind::unit_decl, s.choice_span, "unknown dimension '" + sym_name(s.base_dim) + "'");
            break;
          }
          u.dim = def->dim;
          u.factor = Num::of_int(1);
        }
        if (s.value) {
          auto q = ub.eval(*s.value);
          if (!q) break;
          if (s.base_dim != kNoSym && q->d != u.dim) {
            diags.error(ErrorKind::unit_decl, s.value->span,
                        "the definition's dimension differs from the declared one");
            break;
          }
          if (compare(q->n, Num::of_int(0)) <= 0) {
            // Converting to a zero-sized unit divides by zero; a negative one flips every sign.
            diags.error(ErrorKind::unit_decl, s.value->span, "a unit's size must be positive");
            break;
          }
          u.factor = q->n;
          u.dim = q->d;
        } else if (s.base_dim == kNoSym) {
          diags.error(ErrorKind::unit_decl, s.name_span,
                      "a unit needs a dimension (`unit s: Time`) or a definition (`unit h = 3600 s`)");
          break;
        }
        for (Sym ps : s.prefix_sets) {
          if (!units.prefix_set(sym_name(ps))) {
            diags.error(ErrorKind::unit_decl, s.name_span, "unknown prefix set '" + sym_name(ps) + "'");
            continue;
          }
          u.prefix_sets.push_back(sym_name(ps));
        }
        if (!units.add_unit(std::move(u)))
          diags.error(ErrorKind::unit_decl, s.name_span, "unit '" + s.unit_name + "' is declared twice");
        break;
      }
      case SK::display:
        for (const auto& du : s.display_units) {
          auto r = ub.unit_expr(du);
          if (r) units.add_display(DisplayUnit{du.text, r->factor}, r->dim);
        }
        break;
      default: break;
    }
  }
}

// ---- declarations ---------------------------------------------------------------------------

void Program::declare(Module& m) {
  const bool stdlib = is_stdlib(m.file);
  auto add = [&](const Stmt& s, RefKind kind, std::uint32_t index) {
    const Sym name = s.name;
    const Span span = s.name_span;
    auto it = scope_.find(name);
    const Redefine r = it != scope_.end() && may_redefine ? may_redefine(s, it->second, kind) : Redefine::no;
    if (r == Redefine::now) {
      bind(name, Decl{kind, index, span});
      return;
    }
    if (r == Redefine::after_resolve) {
      deferred_.emplace_back(name, Decl{kind, index, span});
      return;
    }
    if (it != scope_.end()) {
      auto& d = diags.error(ErrorKind::name_duplicate, span, "'" + sym_name(name) + "' is already defined");
      d.subject = sym_name(name);
      d.notes.push_back({it->second.span, "first defined here"});
      d.help.push_back("names are global across the prelude and scenario files; choose another name");
      return;
    }
    bind(name, Decl{kind, index, span});
  };
  for (Stmt& s : m.stmts) {
    switch (s.kind) {
      case SK::let:
        if (s.has_params) {
          functions.push_back({s.name, &s, stdlib});
          add(s, RefKind::function, static_cast<std::uint32_t>(functions.size() - 1));
        } else {
          GlobalDef g;
          g.name = s.name;
          g.stmt = &s;
          g.stdlib = stdlib;
          g.literal = s.value && is_literal(*s.value) && s.literals_are_assumptions;
          globals.push_back(std::move(g));
          add(s, RefKind::global, static_cast<std::uint32_t>(globals.size() - 1));
        }
        break;
      case SK::solve: {
        // A solve declares its NAME as a global whose value is the answer (runtime/solve).
        GlobalDef g;
        g.name = s.name;
        g.stmt = &s;
        g.stdlib = stdlib;
        globals.push_back(std::move(g));
        add(s, RefKind::global, static_cast<std::uint32_t>(globals.size() - 1));
        break;
      }
      case SK::native: {
        if (!stdlib) {
          diags.error(ErrorKind::name_duplicate, s.name_span, "native functions are declared only in the prelude");
          break;
        }
        NativeDef n;
        n.name = s.name;
        n.stmt = &s;
        n.impl = find_native(sym_name(s.name));
        if (n.impl < 0) {
          diags.error(ErrorKind::internal, s.name_span, "native '" + sym_name(s.name) + "' has no implementation");
          break;
        }
        natives.push_back(n);
        add(s, RefKind::native, static_cast<std::uint32_t>(natives.size() - 1));
        break;
      }
      case SK::convention: {
        ConventionDef c;
        c.name = s.name;
        c.stmt = &s;
        if (s.choices.size() < 2)
          diags.error(ErrorKind::convention_decl, s.name_span, "a convention needs at least two choices");
        for (std::size_t i = 0; i < s.choices.size(); ++i)
          for (std::size_t j = 0; j < i; ++j)
            if (s.choices[i].name == s.choices[j].name)
              diags.error(ErrorKind::convention_decl, s.choices[i].span,
                          "choice '" + sym_name(s.choices[i].name) + "' is listed twice");
        if (s.default_choice == kNoSym) {
          diags.error(ErrorKind::convention_decl, s.name_span, "convention '" + sym_name(s.name) + "' has no default")
              .help.push_back("add `default CHOICE` inside the braces");
        } else {
          c.default_choice = c.choice_index(s.default_choice);
          if (c.default_choice < 0) {
            diags.error(ErrorKind::convention_choice, s.default_span,
                        "the default '" + sym_name(s.default_choice) + "' is not one of the choices");
            c.default_choice = 0;
          }
        }
        conventions.push_back(c);
        add(s, RefKind::convention, static_cast<std::uint32_t>(conventions.size() - 1));
        break;
      }
      case SK::preset_def: {
        if (preset_index(s.name) >= 0) {
          auto& d = diags.error(ErrorKind::name_duplicate, s.name_span,
                                "preset '" + sym_name(s.name) + "' is already defined");
          d.subject = sym_name(s.name);
          d.notes.push_back(
              {presets[static_cast<std::size_t>(preset_index(s.name))].stmt->name_span, "first defined here"});
          break;
        }
        PresetDef p;
        p.name = s.name;
        p.stmt = &s;
        presets.push_back(p);
        break;
      }
      default: break;
    }
  }
}

}  // namespace mls
