// listing.cpp — `mls conventions` and `mls presets`: the documentation of every named choice
// (the text comes from the facade, interpreter/tooling/listing).
#include "interpreter/tooling/listing.hpp"

#include "commands.hpp"

namespace mls {

int cmd_conventions(const Args& a) {
  Session s;
  if (!s.prog.load_prelude()) return report(s);
  return emit(a, conventions_listing(s.prog));
}

int cmd_presets(const Args& a) {
  Session s;
  if (!s.prog.load_prelude()) return report(s);
  return emit(a, presets_listing(s.prog));
}

}  // namespace mls
