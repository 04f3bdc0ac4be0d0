// listing.cpp — the text of `mls conventions` and `mls presets` (see listing.hpp).
#include "listing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "grammar/diagnostic.hpp"
#include "grammar/symbols.hpp"
#include "interpreter/semantics/config.hpp"
#include "interpreter/semantics/program.hpp"
#include "interpreter/semantics/resolve.hpp"

namespace mls {

namespace {

// The choice each preset makes for a convention: its own `use`, else the nearest base's.
std::string preset_choice(const Program& p, int preset, Sym conv) {
  for (int at : preset_chain(p, preset).presets) {
    std::string found;
    for (const auto& it : p.presets[static_cast<std::size_t>(at)].stmt->items)
      if (it.kind == SK::use && it.name == conv) found = sym_name(it.choice);
    if (!found.empty()) return found;
  }
  return "";
}

}  // namespace

std::string conventions_listing(const Program& p) {
  std::vector<const ConventionDef*> list;
  for (const auto& c : p.conventions) list.push_back(&c);
  std::sort(list.begin(), list.end(), [](auto* x, auto* y) { return sym_name(x->name) < sym_name(y->name); });
  std::string out;
  for (const ConventionDef* c : list) {
    out += sym_name(c->name) + " — " + c->stmt->str + "\n";
    out += "  declared at " + p.sources.where_line(c->stmt->name_span) + "\n";
    std::size_t w = 0;
    for (const auto& ch : c->stmt->choices) w = std::max(w, sym_name(ch.name).size());
    for (std::size_t i = 0; i < c->stmt->choices.size(); ++i) {
      const auto& ch = c->stmt->choices[i];
      std::string who;
      if (static_cast<int>(i) == c->default_choice) who += "default";
      for (std::size_t pi = 0; pi < p.presets.size(); ++pi)
        if (preset_choice(p, static_cast<int>(pi), c->name) == sym_name(ch.name))
          who += (who.empty() ? "" : ", ") + ("preset " + sym_name(p.presets[pi].name));
      std::string name = sym_name(ch.name);
      name.resize(w, ' ');
      out += "  " + name + "  " + ch.description + (who.empty() ? "" : "  [" + who + "]") + "\n";
    }
    out += "\n";
  }
  return out;
}

bool current_conventions_listing(const Program& p, const Config& cfg, const std::vector<std::string>& names,
                                 std::string& out, std::string& err) {
  std::vector<std::size_t> order;
  if (names.empty()) {
    for (std::size_t i = 0; i < p.conventions.size(); ++i) order.push_back(i);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return sym_name(p.conventions[a].name) < sym_name(p.conventions[b].name);
    });
  }
  for (const auto& n : names) {
    const int ci = p.convention_index(intern(n));
    if (ci >= 0) {
      order.push_back(static_cast<std::size_t>(ci));
      continue;
    }
    std::vector<std::string> all;
    for (const auto& c : p.conventions) all.push_back(sym_name(c.name));
    std::sort(all.begin(), all.end());
    Diagnostic d = make_diagnostic(ErrorKind::convention_unknown, Span{}, "unknown convention '" + n + "'");
    d.subject = n;
    suggest(d, n, all);
    err += render_unplaced(d);
  }
  if (!err.empty()) return false;
  out = "preset " + cfg.preset + " (" + cfg.preset_via.text() + ")\n";
  if (p.conventions.empty()) out += "no conventions are declared\n";
  for (std::size_t i : order) {
    const ConventionDef& c = p.conventions[i];
    const ConvSel& sel = cfg.conv[i];
    const auto& choices = c.stmt->choices;
    std::string who = sel.via.text();
    if (sel.via.kind == ViaKind::scenario) who = "use at " + p.sources.where_line(sel.at);
    out += sym_name(c.name) + " = " + sym_name(choices[static_cast<std::size_t>(sel.choice)].name) + " (" + who +
           ") — " + c.stmt->str + "\n";
    std::size_t w = 0;
    for (const auto& ch : choices) w = std::max(w, sym_name(ch.name).size());
    for (std::size_t k = 0; k < choices.size(); ++k) {
      const bool current = static_cast<int>(k) == sel.choice;
      std::string l = fmt::format("  {} {:<{}}  {}{}", current ? '*' : ' ', sym_name(choices[k].name), w,
                                  choices[k].description, static_cast<int>(k) == c.default_choice ? " [default]" : "");
      out += l + "\n";
    }
  }
  return true;
}

std::string presets_listing(const Program& p) {
  std::string out;
  std::vector<const PresetDef*> list;
  for (const auto& d : p.presets) list.push_back(&d);
  std::sort(list.begin(), list.end(), [](auto* x, auto* y) { return sym_name(x->name) < sym_name(y->name); });
  for (const PresetDef* d : list) {
    out += sym_name(d->name) + (d->stmt->extends != kNoSym ? " (extends " + sym_name(d->stmt->extends) + ")" : "") +
           " — " + d->stmt->str + "\n";
    out += "  declared at " + p.sources.where_line(d->stmt->name_span) + "\n";
    for (const auto& it : d->stmt->items) {
      if (it.kind == SK::use) {
        out += "  use " + sym_name(it.name) + " = " + sym_name(it.choice) + "\n";
      } else {
        std::string path;
        for (Sym x : it.path) path += (path.empty() ? "" : ".") + sym_name(x);
        out += "  set " + path + " = " + compact_text(p.sources.slice(it.value->span)) + "\n";
      }
    }
    out += "\n";
  }
  return out;
}

}  // namespace mls
