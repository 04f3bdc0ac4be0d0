// kv_sim_type.cpp — the type rule of `kv_alloc_sim`: a configuration record with exactly the
// simulation's inputs, each of the right kind; the result is a record of dimensionless fields.
#include "kv_sim_type.hpp"

#include <algorithm>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "grammar/symbols.hpp"
#include "program.hpp"

namespace mls::kvsim {

namespace {

enum class FieldKind { count, real, text, flag };
struct FieldSpec {
  const char* name;
  FieldKind kind;
};
constexpr FieldSpec kInputs[] = {
    {"budget_tokens", FieldKind::count},  {"requests", FieldKind::count},     {"seed", FieldKind::count},
    {"prompt_median", FieldKind::real},   {"output_median", FieldKind::real}, {"sigma", FieldKind::real},
    {"max_new_tokens", FieldKind::count}, {"max_seq", FieldKind::count},      {"page_size", FieldKind::count},
    {"prefix_tokens", FieldKind::count},  {"allocator", FieldKind::text},     {"admission", FieldKind::text},
    {"share_prefix", FieldKind::flag},
};

const char* kind_text(FieldKind k) {
  switch (k) {
    case FieldKind::count:
    case FieldKind::real: return "a dimensionless number";
    case FieldKind::text: return "a string";
    case FieldKind::flag: return "a bool";
  }
  return "";
}

bool kind_fits(FieldKind k, const Type& t) {
  switch (k) {
    case FieldKind::count:
    case FieldKind::real: return t.k == Type::K::num && t.dim.none();
    case FieldKind::text: return t.k == Type::K::str;
    case FieldKind::flag: return t.k == Type::K::boolean;
  }
  return false;
}

}  // namespace

TypeP type_rule(NativeCheck& c) {
  std::vector<std::pair<Sym, TypeP>> out;
  for (const char* name : kOutputs) out.emplace_back(intern(name), t_num(Dim{}));
  TypeP result = t_record(std::move(out));
  if (c.loose()) return result;
  const Type& cfg = *c.args[0];
  if (cfg.k != Type::K::record) {
    c.error(0, ErrorKind::type_mismatch, "'kv_alloc_sim' expects a configuration record, got " + kind_word(cfg));
    return t_error();
  }
  // One error for all missing fields, one per mistyped field, one for all unknown fields.
  bool ok = true;
  std::string missing, unknown;
  for (const auto& spec : kInputs) {
    const TypeP* f = cfg.field(intern(spec.name));
    if (!f) {
      missing += (missing.empty() ? "" : ", ") + std::string(spec.name);
    } else if (!is_loose(**f) && !kind_fits(spec.kind, **f)) {
      c.error(0, ErrorKind::type_mismatch,
              std::string("field '") + spec.name + "' must be " + kind_text(spec.kind) + ", got " +
                  describe(**f, c.prog.units));
      ok = false;
    }
  }
  for (const auto& [name, t] : cfg.fields) {
    // A copy: clang 14 (the fuzz build) cannot capture a structured binding in a lambda.
    const std::string field = sym_name(name);
    const bool known =
        std::any_of(std::begin(kInputs), std::end(kInputs), [&](const FieldSpec& s) { return field == s.name; });
    if (!known) unknown += (unknown.empty() ? "'" : ", '") + sym_name(name) + "'";
  }
  if (!missing.empty()) {
    c.error(0, ErrorKind::type_mismatch, "the configuration lacks the fields " + missing)
        .help.push_back("kv_allocation() in stdlib/kv_cache.mls builds a complete configuration");
    ok = false;
  }
  if (!unknown.empty()) {
    c.error(0, ErrorKind::type_mismatch, "the configuration has unknown fields " + unknown);
    ok = false;
  }
  return ok ? result : t_error();
}

}  // namespace mls::kvsim
