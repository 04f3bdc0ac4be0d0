// value.hpp — runtime values: immutable, shared, each carrying its dependency set.
// Numbers are in base units (s, B, FLOP, ...); dimensions were proven by the checker.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "deps.hpp"
#include "grammar/ast.hpp"
#include "grammar/number.hpp"

namespace mls {

struct Value;
struct RecordObj {
  std::vector<std::pair<Sym, Value>> fields;  // declaration order
  // The global a record was first bound to (`let DGX_H100 = {...}`): how a row keyed by it is
  // labelled (`node=DGX_H100`) and selected again by explain, sensitivity and diff.
  Sym label = kNoSym;
  [[nodiscard]] const Value* get(Sym s) const;
};
struct ListObj {
  std::vector<Value> items;
};
using Heap = std::variant<std::string, RecordObj, ListObj>;

struct Value {
  enum class K : std::uint8_t { num, boolean, str, record, list } k = K::num;
  bool b = false;
  DepSet deps = 0;
  Num n;
  std::shared_ptr<const Heap> h;

  Value() = default;
  Value(const Value&) = default;
  Value(Value&&) noexcept = default;
  Value& operator=(Value&&) noexcept = default;
  // Sweeps copy millions of plain numbers (keys, cells, the previous row of the regime notes):
  // when neither side holds a heap object there is no reference count to move, so the copy is
  // the plain fields, inline. Anything else takes the member-wise copy.
  [[gnu::always_inline]] Value& operator=(const Value& o) {
    if (!h && !o.h && !n.ex && !o.n.ex) {
      k = o.k;
      b = o.b;
      deps = o.deps;
      n.d = o.n.d;
      n.sn = o.n.sn;
      n.sd = o.n.sd;
      return *this;
    }
    return copy_shared(o);
  }
  // Out of line, so that the common case above stays small enough to inline at every copy.
  [[gnu::noinline]] Value& copy_shared(const Value& o) {
    Value copy(o);
    return *this = std::move(copy);
  }

  [[nodiscard]] static Value number(Num x, DepSet d = 0) {
    Value v;
    v.n = std::move(x);
    v.deps = d;
    return v;
  }
  [[nodiscard]] static Value boolean(bool x, DepSet d = 0) {
    Value v;
    v.k = K::boolean;
    v.b = x;
    v.deps = d;
    return v;
  }
  [[nodiscard]] static Value string(std::string s, DepSet d = 0) {
    Value v;
    v.k = K::str;
    v.h = std::make_shared<const Heap>(std::move(s));
    v.deps = d;
    return v;
  }
  [[nodiscard]] static Value record(RecordObj r) {
    Value v;
    v.k = K::record;
    v.h = std::make_shared<const Heap>(std::move(r));
    return v;
  }
  [[nodiscard]] static Value list(ListObj l) {
    Value v;
    v.k = K::list;
    v.h = std::make_shared<const Heap>(std::move(l));
    return v;
  }
  [[nodiscard]] const std::string& str() const { return std::get<std::string>(*h); }
  [[nodiscard]] const RecordObj& rec() const { return std::get<RecordObj>(*h); }
  [[nodiscard]] const ListObj& list() const { return std::get<ListObj>(*h); }
};

inline const Value* RecordObj::get(Sym s) const {
  for (const auto& f : fields)
    if (f.first == s) return &f.second;
  return nullptr;
}

// Union of the deps of every leaf inside a value (records and lists have no deps of their own).
[[nodiscard]] DepSet deep_deps(const Value& v, Deps& deps);

}  // namespace mls
