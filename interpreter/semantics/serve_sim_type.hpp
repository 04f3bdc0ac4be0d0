// serve_sim_type.hpp — the records of the native `serve_sim`: the configuration it accepts and the
// fields of its result, with the type rule that checks them (its evaluation: runtime/serve_sim_eval.cpp).
#pragma once

#include "config_record.hpp"
#include "natives.hpp"

namespace mls::servesim {

// The configuration's fields: plain numbers (times in seconds, rates per second: the stdlib
// wrapper serving_sim() strips and restores the units) and strings.
using FieldKind = ConfigFieldKind;
inline constexpr ConfigFieldSpec kInputs[] = {
    {"policy", FieldKind::text},        {"combine", FieldKind::text},          {"lengths", FieldKind::text},
    {"trace", FieldKind::text},         {"requests", FieldKind::number},       {"rate", FieldKind::number},
    {"seed", FieldKind::number},        {"prompt_median", FieldKind::number},  {"output_median", FieldKind::number},
    {"sigma", FieldKind::number},       {"engines", FieldKind::number},        {"groups", FieldKind::number},
    {"max_batch", FieldKind::number},   {"token_budget", FieldKind::number},   {"kv_capacity", FieldKind::number},
    {"page_size", FieldKind::number},   {"max_seq", FieldKind::number},        {"slo_ttft", FieldKind::number},
    {"slo_tpot", FieldKind::number},    {"overhead", FieldKind::number},       {"t_token", FieldKind::number},
    {"t_pair", FieldKind::number},      {"t_pair_decode", FieldKind::number},  {"t_weights", FieldKind::number},
    {"t_kv_token", FieldKind::number},  {"t_expert_token", FieldKind::number}, {"t_expert_weights", FieldKind::number},
    {"expert_miss", FieldKind::number}, {"comm_fixed", FieldKind::number},     {"comm_token", FieldKind::number},
    {"phase", FieldKind::text},         {"transfer_fixed", FieldKind::number}, {"transfer_token", FieldKind::number},
    {"steady_trim", FieldKind::number},
};

// The result record's fields, in the order the evaluation fills them (all plain numbers; times in s).
inline constexpr const char* kOutputs[] = {
    "ttft_mean",   "ttft_p50",   "ttft_p90",     "ttft_p99",      "tpot_mean",   "tpot_p50",
    "tpot_p90",    "tpot_p99",   "e2e_mean",     "e2e_p50",       "e2e_p90",     "e2e_p99",
    "queue_mean",  "queue_p99",  "served",       "rejected",      "preemptions", "steps",
    "slo_met",     "makespan",   "input_tokens", "output_tokens", "busy",        "prefill_busy",
    "decode_busy", "mean_batch", "max_queue",    "steady_tokens", "steady_time",
};

// The native's type rule (registered in natives.cpp's table).
[[nodiscard]] TypeP type_rule(NativeCheck& c);

}  // namespace mls::servesim
