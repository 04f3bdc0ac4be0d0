// driver.hpp — the phases in order (load prelude -> load scenario -> resolve -> check ->
// configure -> run), shared by the CLI, the REPL, diff, the tests and the fuzzer.
#pragma once

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "interpreter/runtime/run.hpp"
#include "interpreter/semantics/check.hpp"
#include "interpreter/semantics/config.hpp"
#include "interpreter/semantics/program.hpp"

namespace mls {

struct Session {
  Program prog;
  Checker ck{prog};
};

// Loads the prelude and the scenario (a path, or text when `text` is given) and checks them.
// Returns false if any phase reported an error (see s.prog.diags).
[[nodiscard]] bool prepare(Session& s, const std::string& path, const std::optional<std::string>& text = std::nullopt);

// Configures and runs; runtime errors are added to s.prog.diags and yield nullopt.
[[nodiscard]] std::optional<RunResult> execute(Session& s, const Selection& sel, const RunOptions& opt,
                                               std::optional<Config>* cfg_out = nullptr);

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
