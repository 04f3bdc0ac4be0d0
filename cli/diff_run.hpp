// diff_run.hpp — the two evaluated sides of a comparison, shared by `mls diff` (text/JSON) and
// `mls report` in diff mode (HTML): which side gets which choices, and the checks before either
// side evaluates, live in one place (diff.cpp).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "commands.hpp"
#include "interpreter/results/diff.hpp"

namespace mls {

struct DiffRunSide {
  Scenario s{core_options()};  // configured with `sel`
  Selection sel;
  std::string file, label;
  std::optional<RunResult> run;
};

struct DiffRun {
  std::unique_ptr<DiffRunSide> left, right;
  DiffReport report;
};

// Whether the command line asks for a comparison at all: two files, two presets, or (with
// `--use`/`--set`) one file compared with itself as written. `cmd` names the command in messages.
// Both sides are loaded, checked and configured before either evaluates. 0 with `out` filled;
// else the exit code, after reporting (usage errors 64, the side's diagnostics 65...).
int run_diff(const Args& a, const char* cmd, DiffRun& out);

}  // namespace mls
