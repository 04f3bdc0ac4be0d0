// kv_sim_type.cpp — the type rule of `kv_alloc_sim`: a configuration record with exactly the
// simulation's inputs, each of the right kind; the result is a record of dimensionless fields.
#include "kv_sim_type.hpp"

#include "config_record.hpp"

namespace mls::kvsim {

namespace {

using K = ConfigFieldKind;
constexpr ConfigFieldSpec kInputs[] = {
    {"budget_tokens", K::number},  {"requests", K::number},      {"seed", K::number},
    {"prompt_median", K::number},  {"output_median", K::number}, {"sigma", K::number},
    {"max_new_tokens", K::number}, {"max_seq", K::number},       {"page_size", K::number},
    {"prefix_tokens", K::number},  {"allocator", K::text},       {"admission", K::text},
    {"share_prefix", K::flag},
};

}  // namespace

TypeP type_rule(NativeCheck& c) {
  return config_record_rule(c, "kv_alloc_sim", kInputs, kOutputs,
                            "kv_allocation() in stdlib/kv_cache.mls builds a complete configuration");
}

}  // namespace mls::kvsim
