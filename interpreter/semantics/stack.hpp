// stack.hpp — the stack every phase runs on: threads with a fixed, large stack, and a guard that
// turns "about to overflow" into a clean error instead of a crash.
#pragma once

#include <cstddef>
#include <functional>

namespace mls {

// Stack of the threads that parse, check and evaluate (the pipeline thread and sweep workers).
// All of them get the same size, so a depth limit that holds on one holds on all: results do
// not depend on the thread count or on `ulimit -s`. Only touched pages are committed.
inline constexpr std::size_t kPipelineStackBytes = std::size_t{256} << 20;

// The guard trips when less than this is left (a few frames of the deepest phase, even under
// AddressSanitizer, whose frames are several times larger).
inline constexpr std::size_t kStackReserveBytes = std::size_t{1} << 20;

// Runs `fn` on a new thread with kPipelineStackBytes of stack and waits for it; an exception
// thrown by `fn` is rethrown here. Falls back to running `fn` directly if no thread can be made.
void run_on_pipeline_stack(const std::function<void()>& fn);

// A joinable thread with kPipelineStackBytes of stack (sweep workers).
class PipelineThread {
 public:
  explicit PipelineThread(std::function<void()> fn);
  ~PipelineThread();
  PipelineThread(const PipelineThread&) = delete;
  PipelineThread& operator=(const PipelineThread&) = delete;
  PipelineThread(PipelineThread&& o) noexcept;
  PipelineThread& operator=(PipelineThread&&) = delete;
  // False if the thread could not be created (the caller then runs the work itself).
  [[nodiscard]] bool started() const { return started_; }
  void join();

 private:
  struct State;
  State* state_ = nullptr;
  bool started_ = false;
};

// True when the current thread is within kStackReserveBytes of the end of its stack. Cheap
// (one thread-local read and a compare); the recursive phases call it once per level.
[[nodiscard]] bool stack_nearly_exhausted();

}  // namespace mls
