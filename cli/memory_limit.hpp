// memory_limit.hpp — the memory mls may use: its C++ heap is counted, and an allocation past
// the limit fails as the machine's last byte would (std::bad_alloc, reported as limit.memory)
// instead of running into the kernel's out-of-memory killer (issue 38, item 8).
#pragma once

#include <cstddef>
#include <string>

namespace mls {

// The default limit, and the environment variable that replaces it (bytes, or with a suffix
// K, M, G: binary multiples; 0 or "off": no limit).
inline constexpr std::size_t kDefaultMemoryLimit = std::size_t{4} << 30;
inline constexpr const char* kMemoryLimitVariable = "MLS_MAX_MEMORY";

// The limit in force (0: none; also 0 in a sanitizer build, whose allocator is its own, unless
// built with MLS_HEAP_LIMIT_UNDER_SANITIZER).
[[nodiscard]] std::size_t memory_limit();
// Whether an allocation failed because of the limit (rather than the machine or `ulimit -v`),
// since the start or the last clear_memory_limit_reached() (a process that goes on after one
// input ran out: the pipeline's fuzz target).
[[nodiscard]] bool memory_limit_reached();
void clear_memory_limit_reached();
// The bytes of C++ heap in use as last counted (off by up to 256 KiB per thread; 0 where the heap
// is not counted).
[[nodiscard]] std::size_t memory_in_use();
// "4 GiB", for messages.
[[nodiscard]] std::string memory_limit_text();
// A problem with MLS_MAX_MEMORY ("" if none): a value that does not parse keeps the default.
[[nodiscard]] std::string memory_limit_warning();

}  // namespace mls
