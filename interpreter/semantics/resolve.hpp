// resolve.hpp — name resolution: binds every name to a local slot or a declaration, creates
// branch sites (for regime notes) and the assumptions that literals bound to names stand for.
#pragma once

#include "program.hpp"

namespace mls {

void resolve_module(Program& p, Module& m);

// Resolves a standalone expression (command-line `--set` values) in the global scope.
void resolve_global_expr(Program& p, Expr& e, int& nslots);

// Source text with runs of whitespace collapsed, truncated for labels.
[[nodiscard]] std::string compact_text(std::string_view s, std::size_t max = 60);

}  // namespace mls
