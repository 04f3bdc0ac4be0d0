// types.cpp — constructing, comparing and describing static types.
#include "types.hpp"

#include "symbols.hpp"

namespace mls {

namespace {
TypeP make(Type t) { return std::make_shared<const Type>(std::move(t)); }
}  // namespace

TypeP t_error() {
  static const TypeP t = make(Type{});
  return t;
}
TypeP t_pending() {
  static const TypeP t = [] {
    Type x;
    x.k = Type::K::pending;
    return make(std::move(x));
  }();
  return t;
}
TypeP t_bool() {
  static const TypeP t = [] {
    Type x;
    x.k = Type::K::boolean;
    return make(std::move(x));
  }();
  return t;
}
TypeP t_str() {
  static const TypeP t = [] {
    Type x;
    x.k = Type::K::str;
    return make(std::move(x));
  }();
  return t;
}
TypeP t_num(const Dim& d) {
  Type x;
  x.k = Type::K::num;
  x.dim = d;
  return make(std::move(x));
}
TypeP t_num_hint(const Dim& d, DisplayHint h) {
  Type x;
  x.k = Type::K::num;
  x.dim = d;
  x.hint = std::move(h);
  return make(std::move(x));
}
TypeP t_list(TypeP elem) {
  Type x;
  x.k = Type::K::list;
  x.elem = std::move(elem);
  return make(std::move(x));
}
TypeP t_record(std::vector<std::pair<Sym, TypeP>> fields) {
  Type x;
  x.k = Type::K::record;
  x.fields = std::move(fields);
  return make(std::move(x));
}
TypeP t_convention(std::uint32_t conv) {
  Type x;
  x.k = Type::K::convention;
  x.conv = conv;
  return make(std::move(x));
}
TypeP without_hint(const TypeP& t) {
  if (!t || !t->hint) return t;
  return t_num(t->dim);
}

bool is_loose(const Type& t) { return t.k == Type::K::error || t.k == Type::K::pending; }

bool same_type(const Type& a, const Type& b) {
  if (is_loose(a) || is_loose(b)) return true;
  if (a.k != b.k) return false;
  switch (a.k) {
    case Type::K::num: return a.dim == b.dim;
    case Type::K::convention: return a.conv == b.conv;
    case Type::K::list:
      if (!a.elem || !b.elem) return true;
      return same_type(*a.elem, *b.elem);
    case Type::K::record:
      if (a.fields.size() != b.fields.size()) return false;
      for (const auto& [name, t] : a.fields) {
        const TypeP* o = b.field(name);
        if (!o || !same_type(*t, **o)) return false;
      }
      return true;
    default: return true;
  }
}

std::size_t type_hash(const Type& t) {
  std::size_t h = static_cast<std::size_t>(t.k) * 0x9E3779B97F4A7C15ull;
  switch (t.k) {
    case Type::K::num: return h ^ t.dim.hash();
    case Type::K::convention: return h ^ t.conv;
    case Type::K::list: return h ^ (t.elem ? type_hash(*t.elem) * 31 : 7);
    case Type::K::record: {
      // Order-insensitive: fields form a set.
      std::size_t acc = 0;
      for (const auto& [name, ft] : t.fields) acc += (name * 0x100000001B3ull) ^ type_hash(*ft);
      return h ^ acc;
    }
    default: return h;
  }
}

std::string kind_word(const Type& t) {
  switch (t.k) {
    case Type::K::num: return "a number";
    case Type::K::boolean: return "a bool";
    case Type::K::str: return "a string";
    case Type::K::record: return "a record";
    case Type::K::list: return "a list";
    case Type::K::convention: return "a convention";
    default: return "a value";
  }
}

std::string describe(const Type& t, const UnitTable& units) {
  switch (t.k) {
    case Type::K::num: {
      if (t.dim.none()) return "dimensionless";
      return units.dim_name(t.dim) + " (" + units.base_units(t.dim) + ")";
    }
    case Type::K::boolean: return "bool";
    case Type::K::str: return "string";
    case Type::K::convention: return "convention";
    case Type::K::list: return t.elem ? "list of " + describe(*t.elem, units) : "empty list";
    case Type::K::record: {
      std::string s = "record {";
      std::size_t n = 0;
      for (const auto& [name, ft] : t.fields) {
        if (n++) s += ", ";
        if (n > 6) {
          s += "...";
          break;
        }
        s += sym_name(name);
      }
      return s + "}";
    }
    case Type::K::pending: return "(recursive)";
    case Type::K::error: return "(error)";
  }
  return "?";
}

}  // namespace mls
