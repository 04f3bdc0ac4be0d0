// fuzz_part.cpp — libFuzzer target for the shard-part reader (`mls merge`'s input files,
// results/shard_part_read.cpp): any bytes as a part end in its items or a PartError — never a
// crash, a hang, a leak or a reader thread left running. The digest check reads the same bytes.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "interpreter/results/shard_part.hpp"
#include "interpreter/results/shard_part_format.hpp"

namespace {

// One file per fuzzing process, rewritten for each input (PartFile reads a path, as merge does).
const std::string& part_path() {
  static const std::string p =
      (std::filesystem::temp_directory_path() / ("mls_fuzz_part_" + std::to_string(::getpid()) + ".json")).string();
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = part_path();
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    if (size) std::fwrite(data, 1, size, f);
    std::fclose(f);
  } else {
    __builtin_trap();  // the temporary directory must be writable
  }
  try {
    mls::check_part_digest(path);
  } catch (const mls::PartError&) {
  }
  try {
    mls::PartFile part(path);
    // Every item is read to the end: an input cannot hold more items than bytes.
    for (std::size_t i = 0; i <= size; ++i)
      if (part.next_item().kind == mls::PartItem::Kind::end) break;
  } catch (const mls::PartError&) {
  }
  return 0;
}
