// stack.cpp — pipeline threads with a fixed stack size (POSIX threads: std::thread cannot set
// one), and the stack guard, which reads the current thread's stack bounds once.
#include "stack.hpp"

#include <pthread.h>

#include <cstdint>
#include <exception>
#include <utility>

namespace mls {

namespace {

// Lowest usable address of this thread's stack; 0 until looked up, 1 if it cannot be known.
thread_local std::uintptr_t t_stack_low = 0;
// Set on pipeline threads, so that nested run_on_pipeline_stack calls run in place.
thread_local bool t_on_pipeline = false;

std::uintptr_t lookup_stack_low() {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return 1;
  void* addr = nullptr;
  std::size_t size = 0;
  const int rc = pthread_attr_getstack(&attr, &addr, &size);
  pthread_attr_destroy(&attr);
  if (rc != 0 || addr == nullptr) return 1;
  return reinterpret_cast<std::uintptr_t>(addr);
}

struct Job {
  std::function<void()> fn;
  std::exception_ptr error;
};

void* trampoline(void* arg) {
  auto* job = static_cast<Job*>(arg);
  t_on_pipeline = true;
  try {
    job->fn();
  } catch (...) {
    job->error = std::current_exception();
  }
  return nullptr;
}

bool spawn(pthread_t& th, Job* job) {
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return false;
  bool ok =
      pthread_attr_setstacksize(&attr, kPipelineStackBytes) == 0 && pthread_create(&th, &attr, trampoline, job) == 0;
  pthread_attr_destroy(&attr);
  return ok;
}

}  // namespace

bool stack_nearly_exhausted() {
  if (t_stack_low == 0) t_stack_low = lookup_stack_low();
  if (t_stack_low == 1) return false;
  char here = 0;
  const auto sp = reinterpret_cast<std::uintptr_t>(&here);
  // Stacks grow down on every platform mls builds for.
  return sp < t_stack_low + kStackReserveBytes;
}

void run_on_pipeline_stack(const std::function<void()>& fn) {
  if (t_on_pipeline) {
    fn();
    return;
  }
  Job job{fn, nullptr};
  pthread_t th;
  if (!spawn(th, &job)) {
    fn();  // no thread: the guard still protects against overflow, on a smaller stack
    return;
  }
  pthread_join(th, nullptr);
  if (job.error) std::rethrow_exception(job.error);
}

struct PipelineThread::State {
  Job job;
  pthread_t th{};
};

PipelineThread::PipelineThread(std::function<void()> fn) : state_(new State{Job{std::move(fn), nullptr}, {}}) {
  started_ = spawn(state_->th, &state_->job);
}

PipelineThread::PipelineThread(PipelineThread&& o) noexcept : state_(o.state_), started_(o.started_) {
  o.state_ = nullptr;
  o.started_ = false;
}

void PipelineThread::join() {
  if (!started_) return;
  pthread_join(state_->th, nullptr);
  started_ = false;
  if (state_->job.error) std::rethrow_exception(std::exchange(state_->job.error, nullptr));
}

PipelineThread::~PipelineThread() {
  if (started_) pthread_join(state_->th, nullptr);  // never leave a thread running on freed state
  delete state_;
}

}  // namespace mls
