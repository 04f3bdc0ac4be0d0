// ordered_map.hpp — an ordered parallel map: items computed on a pool of threads, consumed in
// index order on the calling thread, with bounded look-ahead. The sweep runner's pipeline (its
// chunks of points, rows streamed in enumeration order) is one; tests/unit/ordered_map_test.cpp
// checks the order, the bound and the stop on a consumer's exception on its own.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <utility>
#include <vector>

#include "interpreter/semantics/stack.hpp"

namespace mls {

// Calls compute(i, result, state) for each i in [first, end) on up to `threads` threads and
// consume(i, result) for each in index order on the calling thread. At most
// ordered_map_window(threads) items are computed ahead of the consumer, so memory stays flat
// however many items there are; while the next item is not ready the calling thread computes
// items itself, so `threads` cores stay busy. Workers run on the pipeline stack (the depth limits
// hold on every thread alike, see stack.hpp); if no thread can be made, the calling thread
// computes every item. Results are swapped between threads, never copied, so their buffers are
// reused: compute must overwrite all of `result`. An error of an item belongs in its Result,
// raised by consume — in index order, so the first failing item decides, deterministically. An
// exception from consume (or from compute on the calling thread) stops the workers and
// propagates. An exception on a worker (std::bad_alloc when memory runs out, or anything else
// compute did not keep in its Result) stops the map too and is rethrown on the calling thread:
// the item the worker had claimed is never delivered, so waiting for it would wait forever
// (issue 38, item 5). State is per thread (scratch space), default-constructed.
inline std::size_t ordered_map_window(unsigned threads) { return 2 * static_cast<std::size_t>(threads) + 2; }

template <class Result, class State, class Compute, class Consume>
void ordered_parallel_map(std::size_t first, std::size_t end, unsigned threads, Compute&& compute, Consume&& consume) {
  if (end <= first) return;
  if (end - first < 2) threads = 1;
  if (threads <= 1) {
    Result r;
    State st;
    for (std::size_t i = first; i < end; ++i) {
      compute(i, r, st);
      consume(i, r);
    }
    return;
  }
  struct Slot {
    Result value;
    bool ready = false;
  };
  const std::size_t window = ordered_map_window(threads);
  std::vector<Slot> slots(window);
  std::mutex mu;
  std::condition_variable cv;
  std::size_t consumed = first;
  std::atomic<std::size_t> next{first};
  bool stop = false;
  std::exception_ptr failed;  // a worker's exception (under mu), for the calling thread to raise
  // Moves a computed result into its slot (under the lock) and marks it ready.
  auto deliver = [&slots, window](std::size_t i, Result& from) {
    Slot& slot = slots[i % window];
    std::swap(slot.value, from);
    slot.ready = true;
  };
  auto worker = [&] {
    try {
      State st;
      Result local;
      while (true) {
        const std::size_t i = next.fetch_add(1);
        if (i >= end) return;
        {
          std::unique_lock<std::mutex> lock(mu);
          cv.wait(lock, [&] { return stop || i < consumed + window; });
          if (stop) return;
        }
        compute(i, local, st);
        {
          std::lock_guard<std::mutex> lock(mu);
          deliver(i, local);
        }
        cv.notify_all();
      }
    } catch (...) {
      {
        std::lock_guard<std::mutex> lock(mu);
        if (!failed) failed = std::current_exception();
        stop = true;
      }
      cv.notify_all();
    }
  };
  std::vector<PipelineThread> pool;
  auto halt = [&] {
    {
      std::lock_guard<std::mutex> lock(mu);
      stop = true;
    }
    cv.notify_all();
    for (auto& th : pool) th.join();
    pool.clear();
  };
  try {
    pool.reserve(threads);
    for (unsigned t = 0; t + 1 < threads; ++t) {
      pool.emplace_back(worker);
      if (!pool.back().started()) {
        pool.pop_back();
        break;
      }
    }
  } catch (...) {
    // No memory for another thread's state: the threads made so far are stopped before the
    // error leaves (they would otherwise wait for a consumer that is gone).
    halt();
    throw;
  }
  try {
    State own_state;
    Result own;
    Result current;
    for (std::size_t i = first; i < end; ++i) {
      {
        std::unique_lock<std::mutex> lock(mu);
        Slot& slot = slots[i % window];
        while (!slot.ready) {
          // A worker failed: the item it claimed will never arrive.
          if (failed) std::rethrow_exception(failed);
          // Help: claim the next unclaimed item if its slot is free, else wait.
          std::size_t claim = next.load();
          if (claim < end && claim < consumed + window && next.compare_exchange_strong(claim, claim + 1)) {
            lock.unlock();
            compute(claim, own, own_state);
            lock.lock();
            deliver(claim, own);
            cv.notify_all();
            continue;
          }
          cv.wait(lock, [&] { return failed || slot.ready || (next.load() < end && next.load() < consumed + window); });
        }
        std::swap(current, slot.value);
        slot.ready = false;
        consumed = i + 1;
      }
      cv.notify_all();
      consume(i, current);
    }
  } catch (...) {
    halt();
    throw;
  }
  halt();
}

}  // namespace mls
