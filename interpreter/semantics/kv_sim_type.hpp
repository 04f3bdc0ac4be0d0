// kv_sim_type.hpp — the records of the native `kv_alloc_sim`: the configuration it accepts and the
// fields of its result, with the type rule that checks them (its evaluation: runtime/kv_sim.cpp).
#pragma once

#include "natives.hpp"

namespace mls::kvsim {

// The result record's fields, in the order the evaluation fills them.
inline constexpr const char* kOutputs[] = {
    "start_admitted",
    "start_used_share",
    "start_allocated_share",
    "mean_running",
    "used_share",
    "reserved_share",
    "internal_share",
    "external_share",
    "free_share",
    "saved_share",
    "waste_share",
    "frag_blocked_steps",
    "preemptions",
    "rejected",
    "served",
    "steps",
    "window_steps",
    "tokens",
    "tokens_per_step",
    "mean_length",
    "block_entries",
    "max_block_entries",
};

// The native's type rule (registered in natives.cpp's table).
[[nodiscard]] TypeP type_rule(NativeCheck& c);

}  // namespace mls::kvsim
