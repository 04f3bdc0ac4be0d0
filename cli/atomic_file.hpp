// atomic_file.hpp — file output that never leaves half a file (`--out`). Writing files is a front
// end's concern, so it lives in cli/, not in the interpreter's layers.
#pragma once

#include <cstdio>
#include <string>

namespace mls {

// Writes `data` to `path` atomically (temporary file in the same folder, then rename).
[[nodiscard]] bool write_atomically(const std::string& path, const std::string& data, std::string& error);

// An output destination written atomically: a temporary file beside `path`, renamed over it by
// commit(); an interrupted or failed run leaves the old file intact. Empty path: stdout.
class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  [[nodiscard]] bool ok() const { return file_ != nullptr; }
  [[nodiscard]] std::FILE* file() const { return file_; }
  [[nodiscard]] const std::string& error() const { return error_; }
  [[nodiscard]] bool commit();  // flush, close, rename
  void abandon();               // close and remove the temporary file

 private:
  std::string path_, tmp_, error_;
  std::FILE* file_ = nullptr;
  int mode_ = -1;  // permissions of the file being replaced; -1: a new file
};

}  // namespace mls
