// ordered_map_test.cpp — the ordered parallel map under the sweep pipeline: results reach the
// consumer in index order whatever the threads, look-ahead stays within its window, per-thread
// state is per thread, and an exception from the consumer or from a worker stops the workers and
// propagates.
#include "interpreter/runtime/ordered_map.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <new>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace mls;

namespace {
struct Item {
  std::size_t index = 0;
  std::vector<int> payload;  // a buffer that is reused, as the sweep's rows are
};
struct Scratch {
  int uses = 0;
};
}  // namespace

TEST_CASE("ordered_parallel_map: index order on any number of threads") {
  for (unsigned threads : {1u, 2u, 4u, 8u}) {
    CAPTURE(threads);
    std::vector<std::size_t> seen;
    std::atomic<long> ahead{0}, most_ahead{0};
    ordered_parallel_map<Item, Scratch>(
        3, 500, threads,
        [&](std::size_t i, Item& out, Scratch& st) {
          ++st.uses;
          out.index = i;
          out.payload.assign(i % 7, static_cast<int>(i));
          long now = ++ahead;
          long prev = most_ahead.load();
          while (now > prev && !most_ahead.compare_exchange_weak(prev, now)) {
          }
        },
        [&](std::size_t i, Item& r) {
          --ahead;
          CHECK(r.index == i);
          CHECK(r.payload.size() == i % 7);
          seen.push_back(i);
        });
    REQUIRE(seen.size() == 497);
    for (std::size_t k = 0; k < seen.size(); ++k) CHECK(seen[k] == k + 3);
    // Computed but not yet consumed: never more than the window (plus the one being consumed).
    CHECK(most_ahead.load() <= static_cast<long>(ordered_map_window(threads)) + 1);
  }
}

TEST_CASE("ordered_parallel_map: empty and single ranges") {
  int calls = 0;
  ordered_parallel_map<Item, Scratch>(
      5, 5, 4, [&](std::size_t, Item&, Scratch&) { ++calls; }, [&](std::size_t, Item&) { ++calls; });
  CHECK(calls == 0);
  ordered_parallel_map<Item, Scratch>(
      5, 6, 4, [&](std::size_t i, Item& o, Scratch&) { o.index = i; },
      [&](std::size_t i, Item& r) {
        CHECK(r.index == i);
        ++calls;
      });
  CHECK(calls == 1);
}

TEST_CASE("ordered_parallel_map: a consumer's exception stops the map and propagates") {
  for (unsigned threads : {1u, 4u}) {
    CAPTURE(threads);
    std::atomic<std::size_t> computed{0};
    std::size_t consumed = 0;
    // (A lambda: the macro would split the template argument list at its comma.)
    auto run = [&] {
      ordered_parallel_map<Item, Scratch>(
          0, 100000, threads,
          [&](std::size_t i, Item& o, Scratch&) {
            o.index = i;
            ++computed;
          },
          [&](std::size_t i, Item&) {
            ++consumed;
            if (i == 40) throw std::runtime_error("stop");
          });
    };
    CHECK_THROWS_AS(run(), std::runtime_error);
    CHECK(consumed == 41);
    // Workers stopped near the failure: they never ran more than a window past the consumer.
    CHECK(computed.load() <= 41 + ordered_map_window(threads) + threads);
  }
}

TEST_CASE("ordered_parallel_map: a worker's exception reaches the calling thread, never a wait") {
  // Issue 38, item 5: a worker that failed (std::bad_alloc under a memory limit) after claiming
  // an item never handed it back, and the calling thread waited for it forever at 0 % CPU. Here
  // every item a worker computes fails; the calling thread is slowed down so that workers surely
  // claim items. A watchdog turns a hang into a failure instead of a stuck test run.
  std::atomic<std::size_t> consumed{0};
  auto run = [&] {
    const std::thread::id caller = std::this_thread::get_id();  // the thread that calls the map
    ordered_parallel_map<Item, Scratch>(
        0, 10000, 4,
        [&](std::size_t i, Item& o, Scratch&) {
          if (std::this_thread::get_id() != caller) throw std::bad_alloc();
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
          o.index = i;
        },
        [&](std::size_t, Item&) { ++consumed; });
  };
  std::future<bool> outcome = std::async(std::launch::async, [&] {
    try {
      run();
    } catch (const std::bad_alloc&) {
      return true;
    }
    return false;
  });
  if (outcome.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    std::fputs("ordered_parallel_map: still waiting 60 s after a worker failed (hang)\n", stderr);
    std::_Exit(1);
  }
  CHECK(outcome.get());
  CHECK(consumed.load() < 10000);
}
