// structured.hpp — the fuzz targets' structured mode: a small input (a recipe) that expands to a
// large one, up to 16 MiB, so that the fuzzer reaches inputs at the size limits — nesting
// millions deep, lists of a million elements, a hundred thousand statements, JSON nested
// millions deep — which its mutations of a few KB never build (docs/fuzzing.md).
//
// A recipe is segments separated by the byte 0x1F, each `COUNT:TEXT`, TEXT repeated COUNT times.
// COUNT is decimal, or `^D` (one digit): the count of the segment D before this one, so a closing
// run can mirror its opening one (`3000000:(`, `1:x`, `^2:)`). A segment without a count is TEXT
// once. The expansion stops at kMaxExpanded bytes.
//
// An input is a recipe when it starts with the byte 0x01 (which no text input does), or always
// when the environment sets MLS_FUZZ_STRUCTURED=1: the structured fuzz runs set it, so that every
// mutation stays a recipe.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace mls_fuzz {

inline constexpr std::size_t kMaxExpanded = std::size_t{16} << 20;

// Whether `input` is a recipe; `recipe` is then its text (the 0x01 marker dropped).
inline bool recipe_of(std::string_view input, std::string_view& recipe) {
  static const bool always = [] {
    const char* e = std::getenv("MLS_FUZZ_STRUCTURED");
    return e && *e && *e != '0';
  }();
  if (!input.empty() && input.front() == '\x01') {
    recipe = input.substr(1);
    return true;
  }
  recipe = input;
  return always;
}

inline std::string expand(std::string_view recipe, std::size_t cap = kMaxExpanded) {
  std::string out;
  std::vector<std::size_t> counts;
  std::size_t pos = 0;
  while (pos <= recipe.size() && out.size() < cap) {
    std::size_t end = recipe.find('\x1f', pos);
    if (end == std::string_view::npos) end = recipe.size();
    std::string_view seg = recipe.substr(pos, end - pos);
    pos = end + 1;
    std::size_t count = 1;
    const std::size_t colon = seg.find(':');
    if (colon != std::string_view::npos && colon > 0) {
      const std::string_view c = seg.substr(0, colon);
      if (c.size() == 2 && c[0] == '^' && c[1] >= '1' && c[1] <= '9') {
        const auto back = static_cast<std::size_t>(c[1] - '0');
        count = back <= counts.size() ? counts[counts.size() - back] : 1;
        seg.remove_prefix(colon + 1);
      } else if (c.find_first_not_of("0123456789") == std::string_view::npos && c.size() <= 9) {
        count = std::stoul(std::string(c));
        seg.remove_prefix(colon + 1);
      }
    }
    counts.push_back(count);
    for (std::size_t i = 0; i < count && !seg.empty() && out.size() < cap; ++i)
      out.append(seg.substr(0, cap - out.size()));
  }
  return out;
}

}  // namespace mls_fuzz
