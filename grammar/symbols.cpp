// symbols.cpp — the identifier interner.
#include "symbols.hpp"

namespace mls {

Symbols& Symbols::instance() {
  static Symbols s;
  return s;
}

Symbols::Symbols() { intern(""); }

Sym Symbols::intern(std::string_view s) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(std::string(s));
  if (it != index_.end()) return it->second;
  const auto id = static_cast<Sym>(names_.size());
  auto [pos, ok] = index_.emplace(std::string(s), id);
  names_.push_back(&pos->first);  // unordered_map nodes are stable
  return id;
}

const std::string& Symbols::name(Sym s) const {
  std::lock_guard<std::mutex> lock(mu_);
  return *names_[s];
}

}  // namespace mls
