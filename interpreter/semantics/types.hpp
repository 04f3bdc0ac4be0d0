// types.hpp — static types found by the checker: numbers carry a dimension, records their fields.
// Runtime values carry no dimensions; the checker proves them once, before evaluation.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "grammar/ast.hpp"
#include "units.hpp"

namespace mls {

struct Type;
using TypeP = std::shared_ptr<const Type>;

// How a number prefers to be displayed (from `-> unit @ resolution`); not part of type identity.
struct DisplayHint {
  std::string unit;  // text as written ("ms", "GB/s", "%", "1")
  Num factor;        // base units per display unit
  std::optional<Num> resolution;
};

struct Type {
  enum class K : std::uint8_t { error, num, boolean, str, record, list, convention, pending } k = K::error;
  Dim dim;
  std::vector<std::pair<Sym, TypeP>> fields;  // record, in declaration order
  TypeP elem;                                 // list (null: empty list, any element)
  std::uint32_t conv = 0;                     // convention index
  std::optional<DisplayHint> hint;
  bool loose_inside = false;  // this or a part of it is error/pending

  [[nodiscard]] const TypeP* field(Sym s) const {
    for (const auto& f : fields)
      if (f.first == s) return &f.second;
    return nullptr;
  }
};

[[nodiscard]] TypeP t_error();
[[nodiscard]] TypeP t_pending();
[[nodiscard]] TypeP t_bool();
[[nodiscard]] TypeP t_str();
[[nodiscard]] TypeP t_num(const Dim& d);
[[nodiscard]] TypeP t_num_hint(const Dim& d, DisplayHint h);
[[nodiscard]] TypeP t_list(TypeP elem);
[[nodiscard]] TypeP t_record(std::vector<std::pair<Sym, TypeP>> fields);
[[nodiscard]] TypeP t_convention(std::uint32_t conv);
[[nodiscard]] TypeP without_hint(const TypeP& t);

// Structural equality (record fields as a set); `error` and `pending` equal anything.
[[nodiscard]] bool same_type(const Type& a, const Type& b);
// Equality in which `pending` (a recursive call's result not known yet) equals only itself:
// tells whether another pass over a recursive function changed anything.
[[nodiscard]] bool same_type_strict(const Type& a, const Type& b);
// Two compatible types (same_type) combined, each part taken from the side that knows it: a
// recursive branch `{a: f(n - 1).a}` and a base case `{a: 1 s}` make `{a: Time}`.
[[nodiscard]] TypeP merge_types(const TypeP& a, const TypeP& b);
[[nodiscard]] std::size_t type_hash(const Type& t);
[[nodiscard]] bool is_loose(const Type& t);  // error or pending: suppress follow-on errors

class UnitTable;
// "Time (s)", "record {a, b}", "list of Information (B)", "bool".
[[nodiscard]] std::string describe(const Type& t, const UnitTable& units);
[[nodiscard]] std::string kind_word(const Type& t);  // "a number", "a record", ...

}  // namespace mls
