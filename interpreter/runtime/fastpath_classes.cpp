// fastpath_classes.cpp — the provenance classes of a sweep's domains (fastpath.hpp): which values
// of a sweep variable read different assumption atoms, so the signature cache keeps them apart.
#include <map>

#include "fastpath_compiled.hpp"

namespace mls::fast {

namespace {

// Whether two values carry the same provenance leaf for leaf, their numbers aside: a point that
// reads one reads the same assumption atoms as a point that reads the other on the same branches
// (a record's fields are read by name, so field names and order must agree as well).
bool same_provenance(const Value& a, const Value& b) {
  if (a.k != b.k || a.deps != b.deps) return false;
  if (a.h == b.h || (a.k != Value::K::record && a.k != Value::K::list)) return true;
  if (a.k == Value::K::record) {
    const auto& fa = a.rec().fields;
    const auto& fb = b.rec().fields;
    if (fa.size() != fb.size()) return false;
    for (std::size_t i = 0; i < fa.size(); ++i)
      if (fa[i].first != fb[i].first || !same_provenance(fa[i].second, fb[i].second)) return false;
    return true;
  }
  const auto& ia = a.list().items;
  const auto& ib = b.list().items;
  if (ia.size() != ib.size()) return false;
  for (std::size_t i = 0; i < ia.size(); ++i)
    if (!same_provenance(ia[i], ib[i])) return false;
  return true;
}

// A value's provenance as words, equal for two values exactly when same_provenance holds.
void provenance_words(const Value& v, std::vector<std::uint32_t>& out) {
  out.push_back(static_cast<std::uint32_t>(v.k));
  out.push_back(v.deps);
  if (v.k == Value::K::record) {
    out.push_back(static_cast<std::uint32_t>(v.rec().fields.size()));
    for (const auto& [name, f] : v.rec().fields) {
      out.push_back(name);
      provenance_words(f, out);
    }
  } else if (v.k == Value::K::list) {
    out.push_back(static_cast<std::uint32_t>(v.list().items.size()));
    for (const auto& x : v.list().items) provenance_words(x, out);
  }
}

}  // namespace

// Per binding whose values do not all carry the same provenance, each value's class. The
// common case (numbers from literals and ranges, every one with the same deps) is one pass of
// comparisons with the first value and adds nothing to the signature.
void key_classes(const std::vector<std::vector<std::vector<Value>>>& domains, Compiled& c) {
  c.key_classes.clear();
  c.class_bytes = 0;
  for (std::size_t b = 0; b < domains.size(); ++b) {
    const auto& d = domains[b];
    bool one = true;
    for (std::size_t i = 1; one && i < d.size(); ++i)
      for (std::size_t k = 0; one && k < d[i].size() && k < d[0].size(); ++k) one = same_provenance(d[i][k], d[0][k]);
    if (one) continue;
    KeyClass kc;
    kc.binding = b;
    std::map<std::vector<std::uint32_t>, std::uint32_t> ids;
    std::vector<std::uint32_t> words;
    for (const auto& tuple : d) {
      words.clear();
      for (const auto& v : tuple) provenance_words(v, words);
      kc.of.push_back(ids.emplace(words, static_cast<std::uint32_t>(ids.size())).first->second);
    }
    kc.bytes = ids.size() <= 0x100 ? 1 : ids.size() <= 0x10000 ? 2 : 4;
    c.class_bytes += kc.bytes;
    c.key_classes.push_back(std::move(kc));
  }
}

std::size_t SweepProgram::class_bytes() const { return c_->class_bytes; }

void SweepProgram::write_classes(const std::vector<std::size_t>& pick, std::uint8_t* out) const {
  for (const KeyClass& kc : c_->key_classes) {
    const std::uint32_t x = kc.of[pick[kc.binding]];
    for (std::uint8_t i = 0; i < kc.bytes; ++i) *out++ = static_cast<std::uint8_t>(x >> (8 * i));
  }
}

}  // namespace mls::fast
