// driver.hpp — the phases in order (load prelude -> load scenario -> resolve -> check ->
// configure -> run), shared by the CLI, the REPL, diff, the tests and the fuzzer.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "check.hpp"
#include "config.hpp"
#include "program.hpp"
#include "run.hpp"

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

// False (with a limit.output diagnostic in s.prog.diags) if formatted output of `bytes` bytes
// exceeds opt.max_output_bytes.
[[nodiscard]] bool check_output_size(Session& s, std::size_t bytes, const RunOptions& opt);

// Writes `data` to `path` atomically (temporary file in the same folder, then rename).
[[nodiscard]] bool write_atomically(const std::string& path, const std::string& data, std::string& error);

}  // namespace mls
