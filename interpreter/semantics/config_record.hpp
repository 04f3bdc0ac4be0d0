// config_record.hpp — the type rule shared by natives that take one configuration record
// (kv_alloc_sim, serve_sim): exactly the listed fields, each of its kind, and a result record of
// dimensionless fields. One rule so both report missing, mistyped and unknown fields alike.
#pragma once

#include <span>

#include "natives.hpp"

namespace mls {

// Plain numbers (the stdlib wrappers strip and restore units), strings, or bools.
enum class ConfigFieldKind { number, text, flag };
struct ConfigFieldSpec {
  const char* name;
  ConfigFieldKind kind;
};

// One error for all missing fields (with `builder_help`, the stdlib function that builds a
// complete record), one per mistyped field, one for all unknown fields.
[[nodiscard]] TypeP config_record_rule(NativeCheck& c, const char* native, std::span<const ConfigFieldSpec> inputs,
                                       std::span<const char* const> outputs, const char* builder_help);

}  // namespace mls
