// kv_sim.hpp — the KV-cache allocation simulation behind the native `kv_alloc_sim`: a seeded,
// long-tailed request trace served step by step by a static (contiguous, first-fit) or paged allocator.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "native_eval.hpp"

namespace mls::kvsim {

// One run's parameters. stdlib/kv_cache.mls (kv_allocation) documents each for users; the
// simulation is pure: the same Config always gives the same Result.
struct Config {
  std::int64_t budget_tokens = 0;  // KV capacity in token slots (one slot = one token's K and V)
  std::int64_t requests = 0;       // trace length; every request is queued at step 0
  std::uint64_t seed = 0;
  double prompt_median = 0;         // lognormal median of each request's own prompt part (tokens)
  double output_median = 0;         // lognormal median of the tokens each request generates
  double sigma = 0;                 // lognormal shape of both lengths: the long tail
  std::int64_t max_new_tokens = 0;  // each request's declared output cap (its max_tokens)
  std::int64_t max_seq = 0;         // context limit: prompt + output never exceeds it
  std::int64_t page_size = 1;       // tokens per KV block (paged allocator)
  std::int64_t prefix_tokens = 0;   // system prompt every request starts with
  bool paged = false;               // false: contiguous slots of prompt + max_new_tokens
  bool skip_ahead = false;          // false: admission stops at the first request that does not fit
  bool share_prefix = false;        // paged only: the prefix's full pages are stored once
};

// Counts and sums; the native turns sums into shares of the budget and per-step means.
struct Result {
  std::string error;  // non-empty: the trace is too large to simulate (nothing else is set)
  std::int64_t start_admitted = 0, start_used = 0, start_allocated = 0;  // after step 0's admission
  std::int64_t steps = 0;                                                // decode iterations until the trace is served
  std::int64_t window_steps = 0;  // steps averaged: those with requests still waiting (else all)
  std::int64_t tokens = 0;        // tokens generated (each running request adds one per step)
  std::int64_t trace_tokens = 0;  // sum of the served requests' final lengths
  std::int64_t served = 0, rejected = 0, preemptions = 0, frag_blocked_steps = 0;
  std::int64_t max_block_entries = 0;
  // Sums over the window's steps, in token slots (entries: block-table entries).
  std::int64_t running = 0, used = 0, reserved = 0, internal = 0, external = 0, free = 0, entries = 0, saved = 0;
};

// What is wrong with a configuration (as a message), if anything.
[[nodiscard]] std::optional<std::string> validate(const Config& c);
// Called with units of work as the simulation goes (a step costs the requests it runs): the
// native charges them to the evaluation's step budget, so limit.steps stops a huge trace.
using Charge = std::function<void(std::uint64_t)>;
[[nodiscard]] Result simulate(const Config& c, const Charge& charge = nullptr);

// The native's evaluation (native_eval.cpp's table; its type rule: semantics/kv_sim_type.hpp).
[[nodiscard]] Value evaluate(NativeEval& n);

}  // namespace mls::kvsim
