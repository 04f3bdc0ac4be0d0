// selection.hpp — the choices a front end makes outside the scenario (--preset, --use, --set),
// apart from config.hpp so that a front end can state them without the Program and the Checker
// that configure() reads them against.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mls {

// Choices made outside the scenario.
struct Selection {
  std::optional<std::string> preset;
  std::vector<std::pair<std::string, std::string>> uses;  // NAME=CHOICE
  std::vector<std::pair<std::string, std::string>> sets;  // NAME=VALUE (mls expression text)
  // False: ignore the scenario's `preset NAME` and `use` statements (its `set`s still apply).
  // The REPL's `:diff` compares the session's choices with these defaults.
  bool scenario_choices = true;
  // False: validated() attaches no summary (`mls validate` evaluates the cases themselves).
  bool validation_summaries = true;
};

inline constexpr const char* kDefaultPreset = "mls";

}  // namespace mls
