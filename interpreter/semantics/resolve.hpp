// resolve.hpp — name resolution: binds every name to a local slot or a declaration, creates
// branch sites (for regime notes) and the assumptions that literals bound to names stand for.
#pragma once

#include "program.hpp"

namespace mls {

void resolve_module(Program& p, Module& m);

// Resolves a standalone expression (command-line `--set` values) in the global scope.
void resolve_global_expr(Program& p, Expr& e, int& nslots);

// The literals whose assumption is printed as `name` ("distributed.efficiency", "H100.hbm.size"):
// `set`/`--set`/`:set` of that name replaces them wherever they are written, so every value that
// lists the assumption moves (a function's parameter default, a registry constructor's argument).
[[nodiscard]] std::vector<Expr*> literals_named(Program& p, const std::string& name);

// What `set PATH = v` replaces: a top-level name is replaced whole (a global override, empty
// result); a dotted name that an assumption list prints replaces those literals.
[[nodiscard]] std::vector<Expr*> override_targets_literals(Program& p, const std::vector<Sym>& path);

// At most max_bytes of s, cut between UTF-8 characters (truncated labels stay valid text).
[[nodiscard]] std::string utf8_prefix(std::string_view s, std::size_t max_bytes);

// Source text with runs of whitespace collapsed, truncated for labels.
[[nodiscard]] std::string compact_text(std::string_view s, std::size_t max = 60);

}  // namespace mls
