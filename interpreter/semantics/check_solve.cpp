// check_solve.cpp — the checker's rules for `solve NAME in LO..HI [by STEP] such that EXPR ==
// TARGET`: the range ends are numbers of one dimension (NAME's), a step a plain number, EXPR and
// TARGET numbers of one dimension.
#include "check.hpp"
#include "grammar/symbols.hpp"

namespace mls {

// The answer has the type of the range's start. EXPR is checked with NAME bound to that type;
// the comparison itself reports EXPR and TARGET of different dimensions (dim.mismatch).
TypeP Checker::solve(Stmt& s, Env& env) {
  Binding& b = s.bindings.at(0);
  TypeP lo = expr(*b.domains.at(0), env);
  TypeP hi = b.range_to ? expr(*b.range_to, env) : t_error();
  if (!is_loose(*lo) && lo->k != Type::K::num) {
    error(ErrorKind::solve_decl, b.domains[0]->span, "a solve range starts with a number, got " + kind_word(*lo), env);
    lo = t_error();
  }
  if (!is_loose(*hi) && hi->k != Type::K::num) {
    error(ErrorKind::solve_decl, b.range_to->span, "a solve range ends with a number, got " + kind_word(*hi), env);
    hi = t_error();
  }
  if (!is_loose(*lo) && !is_loose(*hi) && lo->dim != hi->dim)
    error(ErrorKind::dim_mismatch, b.range_to->span,
          "a solve range's ends disagree: expected " + dim_text(lo) + ", got " + dim_text(hi), env)
        .help.push_back("both ends give '" + sym_name(s.name) + "' its unit");
  // `by STEP`: a whole number of the range's dimension (dimensionless: an integer variable; the
  // runtime refuses a step on a continuous range, whose ends it has to evaluate to tell).
  if (b.step) {
    const TypeP st = expr(*b.step, env);
    if (!is_loose(*st) && (st->k != Type::K::num || !st->dim.none()))
      error(ErrorKind::solve_decl, b.step->span,
            "a solve step is a whole number (an integer variable's increment), got " +
                (st->k == Type::K::num ? dim_text(st) : kind_word(*st)),
            env)
          .help.push_back("e.g. `solve nodes in 16..4096 by 4 such that ...`");
  }
  if (static_cast<std::size_t>(s.nslots) > env.slots.size()) env.slots.resize(static_cast<std::size_t>(s.nslots));
  if (!b.slots.empty()) env.slots[static_cast<std::size_t>(b.slots[0])] = without_hint(lo);
  Expr& cmp = *s.value;
  // Both sides' types are kept (expr_type) for the runtime's messages and displays.
  if (cmp.kind == EK::binary && cmp.kids.size() == 2)
    for (auto& k : cmp.kids) note_expr(k.get(), expr(*k, env));
  (void)expr(cmp, env);
  if (cmp.kind == EK::binary && cmp.kids.size() == 2) {
    const TypeP lhs = expr_type(cmp.kids[0].get());
    if (!is_loose(*lhs) && lhs->k != Type::K::num)
      error(ErrorKind::solve_decl, cmp.kids[0]->span, "solve needs a number to the left, got " + kind_word(*lhs), env);
  }
  return without_hint(lo);
}

}  // namespace mls
