// cli_commands.hpp — `mls validate` and `mls list` as functions for the Python module: the
// command line's own handlers, their output in a string (cli_commands.cpp).
#pragma once

#include <optional>
#include <string>

#include "diag_data.hpp"
#include "interpreter/semantics/selection.hpp"

namespace mls::binding {

struct CliOutput {
  int rc = 0;                      // the command's exit code (validate: 1 when a case is out of band)
  std::string out;                 // what it printed: its JSON
  std::string usage;               // a usage error's message (exit 64)
  std::optional<Failure> failure;  // the diagnostics it reported
};

// `mls validate --format json` under `sel`.
[[nodiscard]] CliOutput validate(const Selection& sel);
// `mls list KIND [--where EXPR] --format json` under `sel`.
[[nodiscard]] CliOutput list(const std::string& kind, const std::string& where, const Selection& sel);

}  // namespace mls::binding
