// hf_config.hpp — Hugging Face config.json files read by `model_from_hf("path")` (stdlib
// transformer.mls) through the native `hf_config`. A file is read, checked and mapped to the shape
// fields of transformer() while the program is resolved (a string-literal path, before evaluation,
// so that each key's value is an assumption whose place is the key in the file); the evaluator only
// reads the result. The JSON library is confined to hf_config.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "deps.hpp"
#include "grammar/number.hpp"
#include "grammar/source.hpp"

namespace mls {

class Program;

// One field of the record hf_config returns (names and kinds: kHfFields in hf_config.cpp).
struct HfField {
  enum class K : std::uint8_t { num, str, flag };
  std::string name;
  K k = K::num;
  Num n;
  std::string s;
  bool b = false;
  std::vector<AtomId> atoms;  // the keys (or absent-key defaults) the value comes from
};

struct HfConfig {
  std::vector<HfField> fields;  // in hf_field_names() order
  AtomId first_atom = 0;        // REPL rollback check: atoms at or above atom_count() are gone
};

// The record's field names and kinds, in order (type rule and evaluation share them).
struct HfFieldSpec {
  const char* name;
  HfField::K kind;
};
[[nodiscard]] const std::vector<HfFieldSpec>& hf_field_specs();

// Reads, checks and maps the config at `literal` (relative to the file of `at`) into
// p.hf_configs[literal]; reports errors (file:line:col in the JSON) and returns false on failure.
bool load_hf_config(Program& p, const std::string& literal, Span at);

}  // namespace mls
