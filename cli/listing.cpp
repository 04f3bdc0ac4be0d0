// listing.cpp — `mls conventions` and `mls presets`: the documentation of every named choice
// (the text comes from the facade, Scenario).
#include "commands.hpp"

namespace mls {

int cmd_conventions(const Args& a) {
  Scenario s(core_options());
  if (!s.load_prelude()) return report(s);
  return emit(a, s.conventions_listing());
}

int cmd_presets(const Args& a) {
  Scenario s(core_options());
  if (!s.load_prelude()) return report(s);
  return emit(a, s.presets_listing());
}

}  // namespace mls
