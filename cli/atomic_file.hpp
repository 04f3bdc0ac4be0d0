// atomic_file.hpp — file output that never leaves half a file (`--out`, the REPL history). Writing
// files is a front end's concern, so it lives in cli/, not in the interpreter's layers.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace mls {

// Writes `data` to `path` atomically (see AtomicFile).
[[nodiscard]] bool write_atomically(const std::string& path, const std::string& data, std::string& error);

// An output destination. A regular file (or a new one) is written atomically: a temporary file
// beside it, renamed over it by commit(); an interrupted or failed run leaves the old file
// intact, and the temporary file is removed also when a signal ends the process (what a SIGKILL
// leaves is removed by the next write to the same target, once no process writes it). A symbolic
// link is followed: its target is replaced, the link stays. A device or FIFO is written
// directly (it cannot be replaced, only written to). Empty path: stdout.
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
  std::string path_;    // as given, for messages
  std::string target_;  // path_ with symbolic links followed
  std::string tmp_;     // empty: written directly (stdout, a device, a FIFO)
  std::string error_;
  std::FILE* file_ = nullptr;
  int mode_ = -1;  // permissions of the file being replaced; -1: a new file
  int slot_ = -1;  // this temporary file's place in the signal-cleanup registry
};

// If `out` names the same file as one of `inputs` (after links; also a hard link), a message
// saying so; empty otherwise. Writing there would destroy the input that the run reads.
[[nodiscard]] std::string same_file_as_input(const std::string& out, const std::vector<std::string>& inputs);

}  // namespace mls
