// listing.hpp — `mls conventions` and `mls presets`: every convention with its choices (which
// is the default, which presets choose it) and every preset with what it uses and sets, as the
// commands print them. In tooling because they read the program's declarations, which front
// ends reach only through the facade.
#pragma once

#include <string>
#include <vector>

namespace mls {

class Program;
struct Config;

[[nodiscard]] std::string conventions_listing(const Program& p);
[[nodiscard]] std::string presets_listing(const Program& p);

// How the REPL's help names the listing: its `:conventions` command, which prints
// current_conventions_listing (the command line's `mls conventions` prints conventions_listing).
inline constexpr const char* kReplConventionsCommand = "`:conventions`";

// The REPL's `:conventions [NAME...]` (and `:use` alone): the preset in force, then every
// convention (or the named ones, in the order given) with its choices, the current one marked
// and who chose it, under `cfg`. False, with each unknown name rendered into `err` (and a
// did-you-mean), when a name is no convention.
[[nodiscard]] bool current_conventions_listing(const Program& p, const Config& cfg,
                                               const std::vector<std::string>& names, std::string& out,
                                               std::string& err);

}  // namespace mls
