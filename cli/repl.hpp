// repl.hpp — the pieces of `mls repl` shared between cli/repl*.cpp: the caret under the prompt
// line. What an input printed and the inspecting commands' text come from ReplSession.
#pragma once

#include <string>

#include "interpreter/tooling/session.hpp"

namespace mls {

// ---- repl_print.cpp ----

// Diagnostics drawn under the line just typed at the prompt: the caret sits under the prompt
// line itself, then `error[code]: message`. Falls back to the usual rendering otherwise.
struct PromptLine {
  bool active = false;  // the input was one line typed at the prompt
  std::string text;     // as typed
  std::size_t prompt_width = 0;
};
[[nodiscard]] std::string render_at_prompt(const Sources& src, const Diagnostic& d, const PromptLine& pl);

}  // namespace mls
