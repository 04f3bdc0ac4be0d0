// symbols.hpp — interning of identifiers: names become small integers compared in O(1).
#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ast.hpp"

namespace mls {

// Process-wide and append-only; symbol 0 is the empty name. The mutex matters only when the
// REPL or a test interns while worker threads read names for error messages.
class Symbols {
 public:
  static Symbols& instance();
  Sym intern(std::string_view s);
  [[nodiscard]] const std::string& name(Sym s) const;

 private:
  Symbols();
  mutable std::mutex mu_;
  std::unordered_map<std::string, Sym> index_;
  std::vector<const std::string*> names_;
};

inline Sym intern(std::string_view s) { return Symbols::instance().intern(s); }
inline const std::string& sym_name(Sym s) { return Symbols::instance().name(s); }

}  // namespace mls
