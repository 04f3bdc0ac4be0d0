// completion.hpp — what Tab offers at the REPL prompt: names in scope, record fields after `.`,
// units after a number, conventions and choices after `:use`, presets, dimensions, files.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "session.hpp"

namespace mls {

struct Completion {
  std::size_t start = 0;                // where the word being completed starts in the line
  std::vector<std::string> candidates;  // replacements for line[start, end), sorted, unique
};

// `line` is the text before the cursor; `meta` the meta commands (":help", ":use", ...).
// Field completion type-checks the expression before the dot in a probe (undone afterwards).
[[nodiscard]] Completion complete(ReplSession& s, std::string_view line, const std::vector<std::string>& meta);

// The longest common prefix of the candidates (what Tab inserts when several remain).
[[nodiscard]] std::string common_prefix(const std::vector<std::string>& candidates);

}  // namespace mls
