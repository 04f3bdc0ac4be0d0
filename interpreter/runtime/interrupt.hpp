// interrupt.hpp — Ctrl-C as an error. While an InterruptScope lives, SIGINT only sets a flag;
// evaluation polls it (the evaluator every few thousand steps, sweeps at every point) and
// stops with a `run.interrupted` diagnostic, so a REPL session survives a runaway input and
// `mls run --out` leaves the old file in place.
#pragma once

#include <atomic>
#include <csignal>

#include "grammar/source.hpp"

namespace mls {

// Set by the handler: a lock-free atomic store is async-signal-safe.
extern std::atomic<bool> g_interrupted;

class InterruptScope {
 public:
  InterruptScope();   // clears the flag and installs the handler
  ~InterruptScope();  // restores the previous handler
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  struct sigaction old_ {};
  bool installed_ = false;
};

inline bool interrupt_requested() { return g_interrupted.load(std::memory_order_relaxed); }

struct Diagnostic;
// The `run.interrupted` diagnostic, placed at `at`; and throwing it.
[[nodiscard]] Diagnostic interrupted_diagnostic(Span at);
[[noreturn]] void throw_interrupted(Span at);

}  // namespace mls
