// fastpath_compiled.hpp — the compiled form of a sweep body, shared by the compiler
// (fastpath.cpp) and the machine that runs it (fastpath_run.cpp). Internal to runtime/.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fastpath.hpp"

namespace mls::fast {

// A branch's extent: instructions in [begin, end) run only as `cond` decides.
struct Region {
  std::size_t begin, end;
  std::uint32_t cond;
  std::uint32_t slot;      // the signature slot its arms mark
  std::uint64_t mask = 0;  // of cond (set by Compiler::masks)
};

struct CField;  // (name, value); a struct, not std::pair, see below

struct CVal {
  enum class K : std::uint8_t { num, boolean, str, record, list } k = K::num;
  bool cst = false;
  double v = 0;
  std::uint32_t reg = 0;
  // std::pair<Sym, CVal> here does not compile with clang and libstdc++: pair's constructor
  // traits need CVal complete while CVal is being defined (the fuzz build uses clang).
  std::vector<CField> fields;
  std::vector<CVal> items;

  [[nodiscard]] bool scalar() const { return k == K::num || k == K::boolean || k == K::str; }
  [[nodiscard]] const CVal* field(Sym s) const;
};

struct CField {
  Sym first = kNoSym;
  CVal second;
  CField() = default;
  CField(Sym name, CVal value) : first(name), second(std::move(value)) {}
};

inline const CVal* CVal::field(Sym s) const {
  for (const auto& f : fields)
    if (f.first == s) return &f.second;
  return nullptr;
}

// The provenance classes of one sweep variable's values (fastpath_classes.cpp): value i of
// binding `binding` is in class of[i], written in `bytes` bytes after the branch signature.
struct KeyClass {
  std::size_t binding = 0;
  std::uint8_t bytes = 1;
  std::vector<std::uint32_t> of;
};

struct Compiled {
  std::vector<Ins> code;
  std::vector<Region> regions;
  // Per instruction that begins a branch: the signature slots marked inside it (but its own),
  // cleared when the branch re-decides (its condition depends on a sweep variable that changed).
  std::vector<std::vector<std::uint32_t>> region_slots;
  std::vector<std::uint64_t> region_mask;
  std::uint32_t nregs = 0;
  std::vector<std::pair<std::uint32_t, double>> constants;  // (register, value): set before any run
  std::uint32_t nslots = 0;
  std::vector<std::string> strings;
  std::unordered_map<std::string, std::uint32_t> string_ids;
  std::vector<CVal> binding_shapes;  // per sweep variable, in key order
  std::vector<Slot> cells, objectives, feasibility;
  std::vector<std::pair<Slot, std::size_t>> asserts;
  std::vector<KeyClass> key_classes;  // the bindings whose values' provenance differs
  std::size_t class_bytes = 0;        // their classes' bytes in all
};

// Finds the bindings whose values carry different provenance (fastpath_classes.cpp).
void key_classes(const std::vector<std::vector<std::vector<Value>>>& domains, Compiled& c);

// Writes a binding value's leaves into the registers of its shape (fastpath.cpp).
void bind(const CVal& shape, const Value& v, const Compiled& c, double* r);

}  // namespace mls::fast
