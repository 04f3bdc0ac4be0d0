// types.cpp — constructing, comparing and describing static types.
#include "types.hpp"

#include <unordered_map>
#include <unordered_set>

#include "grammar/symbols.hpp"

namespace mls {

namespace {
TypeP make(Type t) { return std::make_shared<const Type>(std::move(t)); }
}  // namespace

TypeP t_error() {
  static const TypeP t = [] {
    Type x;
    x.loose_inside = true;
    return make(std::move(x));
  }();
  return t;
}
TypeP t_pending() {
  static const TypeP t = [] {
    Type x;
    x.k = Type::K::pending;
    x.loose_inside = true;
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
// A number type without a display hint is the same for every literal of its dimension: one per
// dimension and thread (types are immutable and shared), not one per literal (240 bytes each, a
// sixth of what a `show 1` statement costs). The few dimensions a program uses fill the cache;
// past kCached a type is made as before.
TypeP t_num(const Dim& d) {
  constexpr std::size_t kCached = 64;
  thread_local std::vector<TypeP> cache;
  for (const TypeP& t : cache)
    if (t->dim == d) return t;
  Type x;
  x.k = Type::K::num;
  x.dim = d;
  TypeP t = make(std::move(x));
  if (cache.size() < kCached) cache.push_back(t);
  return t;
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
  x.loose_inside = elem && elem->loose_inside;
  x.elem = std::move(elem);
  return make(std::move(x));
}
TypeP t_record(std::vector<std::pair<Sym, TypeP>> fields) {
  Type x;
  x.k = Type::K::record;
  for (const auto& f : fields) x.loose_inside = x.loose_inside || (f.second && f.second->loose_inside);
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

namespace {

// Types are immutable DAGs: `{a: t, b: t}` nested 60 times is small but has 2^60 paths, so a
// structural walk must not revisit shared parts. The walk is plain until it has visited
// kPlainSteps nodes, then remembers the pairs it has proven equal (or merged).
constexpr std::size_t kPlainSteps = 4096;

struct PairHash {
  std::size_t operator()(const std::pair<const Type*, const Type*>& p) const {
    return std::hash<const void*>()(p.first) * 31 + std::hash<const void*>()(p.second);
  }
};

struct Walk {
  bool strict = false;
  std::size_t steps = 0;
  std::unordered_set<std::pair<const Type*, const Type*>, PairHash> equal;
  std::unordered_map<std::pair<const Type*, const Type*>, TypeP, PairHash> merged;

  bool eq(const Type& a, const Type& b) {
    if (&a == &b) return true;
    if (!strict && (is_loose(a) || is_loose(b))) return true;
    if (a.k != b.k) return false;
    switch (a.k) {
      case Type::K::num: return a.dim == b.dim;
      case Type::K::convention: return a.conv == b.conv;
      case Type::K::list:
        if (!a.elem || !b.elem) return strict ? !a.elem && !b.elem : true;
        return memo_eq(*a.elem, *b.elem);
      case Type::K::record:
        if (a.fields.size() != b.fields.size()) return false;
        for (const auto& [name, t] : a.fields) {
          const TypeP* o = b.field(name);
          if (!o || !memo_eq(*t, **o)) return false;
        }
        return true;
      default: return true;
    }
  }

  bool memo_eq(const Type& a, const Type& b) {
    if (++steps < kPlainSteps) return eq(a, b);
    const auto key = std::make_pair(&a, &b);
    if (equal.count(key)) return true;
    if (!eq(a, b)) return false;
    equal.insert(key);
    return true;
  }

  TypeP merge(const TypeP& a, const TypeP& b) {
    if (!a || is_loose(*a)) return b;
    if (!b || is_loose(*b) || a == b) return a;
    if (a->k == Type::K::num) return a->hint ? b : a;
    // Only parts that are still unknown can gain anything from the other side.
    if (!a->loose_inside || a->k != b->k) return a;
    if (++steps >= kPlainSteps) {
      const auto key = std::make_pair(a.get(), b.get());
      auto it = merged.find(key);
      if (it != merged.end()) return it->second;
      TypeP m = merge_parts(a, b);
      merged.emplace(key, m);
      return m;
    }
    return merge_parts(a, b);
  }

  TypeP merge_parts(const TypeP& a, const TypeP& b) {
    if (a->k == Type::K::list) {
      if (!a->elem) return b;
      if (!b->elem) return a;
      TypeP e = merge(a->elem, b->elem);
      return e == a->elem ? a : t_list(e);
    }
    if (a->k != Type::K::record) return a;
    std::vector<std::pair<Sym, TypeP>> fields = a->fields;
    bool changed = false;
    for (auto& [name, t] : fields)
      if (const TypeP* o = b->field(name)) {
        TypeP m = merge(t, *o);
        changed = changed || m != t;
        t = m;
      }
    return changed ? t_record(std::move(fields)) : a;
  }
};

}  // namespace

bool same_type(const Type& a, const Type& b) {
  Walk w;
  return w.eq(a, b);
}

bool same_type_strict(const Type& a, const Type& b) {
  Walk w;
  w.strict = true;
  return w.eq(a, b);
}

TypeP merge_types(const TypeP& a, const TypeP& b) {
  Walk w;
  return w.merge(a, b);
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
