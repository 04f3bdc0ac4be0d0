// config_record.cpp — see config_record.hpp.
#include "config_record.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "grammar/symbols.hpp"
#include "program.hpp"

namespace mls {

namespace {

const char* kind_text(ConfigFieldKind k) {
  switch (k) {
    case ConfigFieldKind::number: return "a dimensionless number";
    case ConfigFieldKind::text: return "a string";
    case ConfigFieldKind::flag: return "a bool";
  }
  return "";
}

bool kind_fits(ConfigFieldKind k, const Type& t) {
  switch (k) {
    case ConfigFieldKind::number: return t.k == Type::K::num && t.dim.none();
    case ConfigFieldKind::text: return t.k == Type::K::str;
    case ConfigFieldKind::flag: return t.k == Type::K::boolean;
  }
  return false;
}

}  // namespace

TypeP config_record_rule(NativeCheck& c, const char* native, std::span<const ConfigFieldSpec> inputs,
                         std::span<const char* const> outputs, const char* builder_help) {
  std::vector<std::pair<Sym, TypeP>> out;
  for (const char* name : outputs) out.emplace_back(intern(name), t_num(Dim{}));
  TypeP result = t_record(std::move(out));
  if (c.loose()) return result;
  const Type& cfg = *c.args[0];
  if (cfg.k != Type::K::record) {
    c.error(0, ErrorKind::type_mismatch,
            std::string("'") + native + "' expects a configuration record, got " + kind_word(cfg));
    return t_error();
  }
  bool ok = true;
  std::string missing, unknown;
  for (const auto& spec : inputs) {
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
    const std::string field = sym_name(name);  // a copy: clang 14 cannot capture a structured binding
    const bool known =
        std::any_of(inputs.begin(), inputs.end(), [&](const ConfigFieldSpec& s) { return field == s.name; });
    if (!known) unknown += (unknown.empty() ? "'" : ", '") + field + "'";
  }
  if (!missing.empty()) {
    c.error(0, ErrorKind::type_mismatch, "the configuration lacks the fields " + missing).help.push_back(builder_help);
    ok = false;
  }
  if (!unknown.empty()) {
    c.error(0, ErrorKind::type_mismatch, "the configuration has unknown fields " + unknown);
    ok = false;
  }
  return ok ? result : t_error();
}

}  // namespace mls
