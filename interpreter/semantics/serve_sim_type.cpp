// serve_sim_type.cpp — the type rule of `serve_sim`: a configuration record with exactly the
// simulation's inputs, each of the right kind; the result is a record of dimensionless fields.
#include "serve_sim_type.hpp"

#include <algorithm>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "grammar/symbols.hpp"
#include "program.hpp"

namespace mls::servesim {

TypeP type_rule(NativeCheck& c) {
  std::vector<std::pair<Sym, TypeP>> out;
  for (const char* name : kOutputs) out.emplace_back(intern(name), t_num(Dim{}));
  TypeP result = t_record(std::move(out));
  if (c.loose()) return result;
  const Type& cfg = *c.args[0];
  if (cfg.k != Type::K::record) {
    c.error(0, ErrorKind::type_mismatch, "'serve_sim' expects a configuration record, got " + kind_word(cfg));
    return t_error();
  }
  bool ok = true;
  std::string missing, unknown;
  for (const auto& spec : kInputs) {
    const TypeP* f = cfg.field(intern(spec.name));
    if (!f) {
      missing += (missing.empty() ? "" : ", ") + std::string(spec.name);
      continue;
    }
    const Type& t = **f;
    const bool fits = spec.kind == FieldKind::text ? t.k == Type::K::str : (t.k == Type::K::num && t.dim.none());
    if (!is_loose(t) && !fits) {
      c.error(0, ErrorKind::type_mismatch,
              std::string("field '") + spec.name + "' must be " +
                  (spec.kind == FieldKind::text ? "a string" : "a dimensionless number") + ", got " +
                  describe(t, c.prog.units));
      ok = false;
    }
  }
  for (const auto& [name, t] : cfg.fields) {
    const std::string field = sym_name(name);  // a copy: clang 14 cannot capture a structured binding
    const bool known =
        std::any_of(std::begin(kInputs), std::end(kInputs), [&](const FieldSpec& s) { return field == s.name; });
    if (!known) unknown += (unknown.empty() ? "'" : ", '") + field + "'";
  }
  if (!missing.empty()) {
    c.error(0, ErrorKind::type_mismatch, "the configuration lacks the fields " + missing)
        .help.push_back("serving_sim() in stdlib/serving_sim.mls builds a complete configuration");
    ok = false;
  }
  if (!unknown.empty()) {
    c.error(0, ErrorKind::type_mismatch, "the configuration has unknown fields " + unknown);
    ok = false;
  }
  return ok ? result : t_error();
}

}  // namespace mls::servesim
