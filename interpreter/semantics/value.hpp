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
