// diag_data.hpp — diagnostics as the Python module hands them over (mls.Error's fields), as plain
// data without pybind11: made while the GIL is released, by the module and by cli_commands.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mls {

class Diagnostics;
class Sources;
struct Diagnostic;

namespace binding {

// One diagnostic, turned into a dict once the GIL is held again.
struct DiagData {
  std::string severity, code, message, file, at, label, subject, expected, got, text;
  int exit_code = 0;
  std::uint32_t line = 0, col = 0, end_line = 0, end_col = 0;  // 0: no place (the command line)
  std::vector<std::string> help, suggestions;
  std::vector<std::pair<std::string, std::string>> notes;  // (file:line:col, text)
};

// Diagnostics from number `from` on; `text` gets their rendering (what the command line prints).
[[nodiscard]] std::vector<DiagData> diag_data(const Sources& src, const Diagnostics& ds, std::size_t from,
                                              std::string* text = nullptr);
[[nodiscard]] DiagData diag_data(const Sources& src, const Diagnostic& d);
// What went wrong in a call, gathered without the GIL: the errors (then the warnings) and their
// rendering.
struct Failure {
  std::vector<DiagData> diags;
  std::string text;
};

}  // namespace binding
}  // namespace mls
