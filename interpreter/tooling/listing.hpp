// listing.hpp — `mls conventions` and `mls presets`: every convention with its choices (which
// is the default, which presets choose it) and every preset with what it uses and sets, as the
// commands print them. In tooling because they read the program's declarations, which front
// ends reach only through the facade.
#pragma once

#include <string>

namespace mls {

class Program;

[[nodiscard]] std::string conventions_listing(const Program& p);
[[nodiscard]] std::string presets_listing(const Program& p);

}  // namespace mls
