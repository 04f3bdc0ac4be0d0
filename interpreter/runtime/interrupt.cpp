// interrupt.cpp — the SIGINT handler and the interrupted diagnostic (see interrupt.hpp).
#include "interrupt.hpp"

#include "grammar/diagnostic.hpp"

namespace mls {

std::atomic<bool> g_interrupted{false};

namespace {
void on_sigint(int) { g_interrupted.store(true, std::memory_order_relaxed); }
}  // namespace

InterruptScope::InterruptScope() {
  g_interrupted.store(false);
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocking read (the REPL's) returns at once
  installed_ = sigaction(SIGINT, &sa, &old_) == 0;
}

InterruptScope::~InterruptScope() {
  if (installed_) sigaction(SIGINT, &old_, nullptr);
}

Diagnostic interrupted_diagnostic(Span at) {
  return make_diagnostic(ErrorKind::interrupted, at, "interrupted (Ctrl-C) while evaluating this");
}

void throw_interrupted(Span at) { throw DiagnosticError{interrupted_diagnostic(at)}; }

}  // namespace mls
