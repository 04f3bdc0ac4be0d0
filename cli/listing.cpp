// listing.cpp — `mls conventions` and `mls presets`: the documentation of every named choice.
#include <algorithm>
#include <cstdio>

#include "commands.hpp"
#include "grammar/symbols.hpp"
#include "interpreter/semantics/config.hpp"
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

int cmd_conventions(const Args& a) {
  Session s;
  if (!s.prog.load_prelude()) return report(s);
  std::vector<const ConventionDef*> list;
  for (const auto& c : s.prog.conventions) list.push_back(&c);
  std::sort(list.begin(), list.end(), [](auto* x, auto* y) { return sym_name(x->name) < sym_name(y->name); });
  std::string out;
  for (const ConventionDef* c : list) {
    out += sym_name(c->name) + " — " + c->stmt->str + "\n";
    out += "  declared at " + s.prog.sources.where_line(c->stmt->name_span) + "\n";
    std::size_t w = 0;
    for (const auto& ch : c->stmt->choices) w = std::max(w, sym_name(ch.name).size());
    for (std::size_t i = 0; i < c->stmt->choices.size(); ++i) {
      const auto& ch = c->stmt->choices[i];
      std::string who;
      if (static_cast<int>(i) == c->default_choice) who += "default";
      for (std::size_t pi = 0; pi < s.prog.presets.size(); ++pi)
        if (preset_choice(s.prog, static_cast<int>(pi), c->name) == sym_name(ch.name))
          who += (who.empty() ? "" : ", ") + ("preset " + sym_name(s.prog.presets[pi].name));
      std::string name = sym_name(ch.name);
      name.resize(w, ' ');
      out += "  " + name + "  " + ch.description + (who.empty() ? "" : "  [" + who + "]") + "\n";
    }
    out += "\n";
  }
  return emit(a, out);
}

int cmd_presets(const Args& a) {
  Session s;
  if (!s.prog.load_prelude()) return report(s);
  std::string out;
  std::vector<const PresetDef*> list;
  for (const auto& p : s.prog.presets) list.push_back(&p);
  std::sort(list.begin(), list.end(), [](auto* x, auto* y) { return sym_name(x->name) < sym_name(y->name); });
  for (const PresetDef* p : list) {
    out += sym_name(p->name) + (p->stmt->extends != kNoSym ? " (extends " + sym_name(p->stmt->extends) + ")" : "") +
           " — " + p->stmt->str + "\n";
    out += "  declared at " + s.prog.sources.where_line(p->stmt->name_span) + "\n";
    for (const auto& it : p->stmt->items) {
      if (it.kind == SK::use) {
        out += "  use " + sym_name(it.name) + " = " + sym_name(it.choice) + "\n";
      } else {
        std::string path;
        for (Sym x : it.path) path += (path.empty() ? "" : ".") + sym_name(x);
        out += "  set " + path + " = " + compact_text(s.prog.sources.slice(it.value->span)) + "\n";
      }
    }
    out += "\n";
  }
  return emit(a, out);
}

}  // namespace mls
