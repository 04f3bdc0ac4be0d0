// harness.hpp — the session core as the unit tests drive it: a Core whose Program and Checker the
// test reads directly (tests may include any layer), and the two calls most tests make.
#pragma once

#include <optional>
#include <string>

#include "interpreter/tooling/driver.hpp"

namespace mls {

struct Harness {
  Core core;
  Program& prog = core.session().prog;
  Checker& ck = core.session().ck;
};

// The prelude and `path` (or `text` under that name), checked.
[[nodiscard]] inline bool prepare(Harness& h, const std::string& path,
                                  const std::optional<std::string>& text = std::nullopt) {
  return h.core.prepare(Input{path, text});
}

// Configured under `sel` and run; nullopt with the errors in h.prog.diags.
[[nodiscard]] inline std::optional<RunResult> execute(Harness& h, const Selection& sel, const RunOptions& opt) {
  if (!h.core.configure(sel)) return std::nullopt;
  return h.core.run(opt);
}

}  // namespace mls
