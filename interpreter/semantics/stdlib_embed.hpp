// stdlib_embed.hpp — the prelude (stdlib/*.mls) compiled into the binary.
// The definition is generated at build time by cmake/embed.cmake; never committed.
#pragma once

#include <cstddef>

namespace mls {

struct EmbeddedFile {
  const char* name;  // "stdlib/units.mls"
  const char* text;
  std::size_t size;
};

extern const EmbeddedFile kStdlib[];
extern const std::size_t kStdlibCount;

}  // namespace mls
