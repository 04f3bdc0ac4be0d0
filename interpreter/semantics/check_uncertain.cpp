// check_uncertain.cpp — the checker's rules for uncertain literals (docs/uncertainty.md): the
// parameters' dimensions agree with the value's, the range is not empty or reversed, spreads are
// positive. The literal's type is its value's; its nominal value (e.si) is what a run without
// --uncertainty computes with.
#include "check.hpp"
#include "resolve.hpp"

namespace mls {

namespace {
// A parameter is a number literal or its negation (the parser enforces it).
Num param_value(const Expr& k) {
  if (k.kind == EK::num) return k.si;
  return neg(k.kids.at(0)->si);
}
}  // namespace

TypeP Checker::uncertain(Expr& e, Env& env) {
  std::vector<TypeP> ts;
  bool loose = false;
  for (auto& k : e.kids) {
    ts.push_back(expr(*k, env));
    // A parameter that is not a literal was reported by the parser.
    const bool literal = k->kind == EK::num ||
                         (k->kind == EK::unary && k->op == Op::neg && !k->kids.empty() && k->kids[0]->kind == EK::num);
    loose = loose || !literal || is_loose(*ts.back()) || ts.back()->k != Type::K::num;
  }
  const std::size_t want = e.dist == Dist::triangular ? 3 : 2;
  if (loose || ts.size() != want) return t_error();  // reported by the parser or expr()
  const std::string what = e.dist == Dist::plus_minus ? "'+-'" : std::string("'") + dist_name(e.dist) + "'";
  auto same_dim = [&](std::size_t i, const char* role) {
    if (ts[i]->dim == ts[0]->dim) return true;
    error(ErrorKind::dim_mismatch, e.kids[i]->span,
          std::string("the ") + role + " of " + what + " has the wrong dimension: expected " + dim_text(ts[0]) +
              ", got " + dim_text(ts[i]),
          env)
        .help.push_back(e.dist == Dist::plus_minus ? "a relative spread is written in %: `50_000 h +- 30 %`"
                                                   : "write every parameter in a unit of the value's dimension");
    return false;
  };
  auto fail = [&](std::size_t i, const std::string& msg) {
    error(ErrorKind::uncertainty_decl, e.kids[i]->span, msg, env);
    return t_error();
  };
  auto text = [&](std::size_t i) { return compact_text(p_.sources.slice(e.kids[i]->span)); };
  std::vector<Num> v;
  for (auto& k : e.kids) v.push_back(param_value(*k));
  const Num zero = Num::of_int(0);
  bool lost = false;
  switch (e.dist) {
    case Dist::plus_minus: {
      // A spread written in % is relative to the centre; any other spread is absolute.
      const Expr& sp = *e.kids[1];
      const Expr& lit = sp.kind == EK::num ? sp : *sp.kids[0];
      e.bval = lit.unit && lit.unit->text == "%";
      if (!e.bval && !same_dim(1, "spread")) return t_error();
      if (compare(v[1], zero) <= 0)
        return fail(1, "expected a positive spread after '+-', got " + compact_text(p_.sources.slice(sp.span)));
      e.si = v[0];
      break;
    }
    case Dist::uniform:
    case Dist::triangular: {
      const std::size_t hi = want - 1;
      if (!same_dim(hi, "upper end")) return t_error();
      if (e.dist == Dist::triangular && !same_dim(1, "mode")) return t_error();
      if (compare(v[0], v[hi]) >= 0)
        return fail(hi, "expected the upper end of " + what + " above its lower end, got " +
                            compact_text(p_.sources.slice(e.kids[hi]->span)) +
                            " <= " + compact_text(p_.sources.slice(e.kids[0]->span)));
      if (e.dist == Dist::triangular && (compare(v[1], v[0]) < 0 || compare(v[1], v[2]) > 0))
        return fail(1, "expected the mode of 'triangular' between its ends, got " +
                           compact_text(p_.sources.slice(e.kids[1]->span)));
      e.si = e.dist == Dist::uniform ? div(add(v[0], v[1], lost), Num::of_int(2), lost) : v[1];
      break;
    }
    case Dist::normal:
      if (!same_dim(1, "standard deviation")) return t_error();
      if (compare(v[1], zero) <= 0)
        return fail(1, "expected a positive standard deviation for 'normal', got " + text(1));
      e.si = v[0];
      break;
    case Dist::lognormal:
      if (!ts[1]->dim.none()) {
        error(ErrorKind::dim_mismatch, e.kids[1]->span,
              "the sigma of 'lognormal' is the standard deviation of ln(value): expected a plain number, got " +
                  dim_text(ts[1]),
              env);
        return t_error();
      }
      if (compare(v[0], zero) <= 0) return fail(0, "expected a positive median for 'lognormal', got " + text(0));
      if (compare(v[1], zero) <= 0) return fail(1, "expected a positive sigma for 'lognormal', got " + text(1));
      e.si = v[0];
      break;
  }
  e.si_ready = true;
  return t_num(ts[0]->dim);
}

}  // namespace mls
