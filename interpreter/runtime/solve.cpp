// solve.cpp — the root finder behind `solve`: scan the range, bracket every sign change of
// EXPR - TARGET (or every change of the constraint's truth), refine each bracket by bisection on
// the binary64 evaluator, then confirm the answer on the caller's (exact) evaluator.
#include "solve.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "grammar/symbols.hpp"
#include "interpreter/results/run_result.hpp"
#include "interpreter/semantics/resolve.hpp"

namespace mls {

namespace {

// Points of the scan: enough to find the roots of the curves mls models (a few bends), few
// enough that a formula as heavy as train() solves in well under a second in binary64.
constexpr int kScanIntervals = 200;
// Bisection halves the bracket: 200 halvings exhaust binary64 from any finite bracket.
constexpr int kMaxHalvings = 200;
// Nudges of a boundary into its satisfying side when the exact evaluation disagrees with binary64.
constexpr int kMaxNudges = 64;

class Solver {
 public:
  Solver(Evaluator& ev, const Stmt& s, TypeP lhs_type)
      : ev_(ev),
        lhs_type_(std::move(lhs_type)),
        s_(s),
        cmp_(*s.value),
        lhs_(*s.value->kids.at(0)),
        rhs_(*s.value->kids.at(1)) {
    if (ev.exact()) {
      fast_owned_ = std::make_unique<Evaluator>(ev.program(), ev.config(), false);
      fast_owned_->max_steps = ev.max_steps;
      fast_ = fast_owned_.get();
    } else {
      fast_ = &ev;
    }
    slot_ = s.bindings.at(0).slots.at(0);
    if (const Decl* d = ev.program().lookup(s.name); d && d->kind == RefKind::global)
      type_ = ev.program().globals[d->index].type;
  }

  SolveOutcome run() {
    const Binding& b = s_.bindings.at(0);
    const Value lo = ev_.eval_in(*b.domains.at(0), s_.nslots);
    const Value hi = ev_.eval_in(*b.range_to, s_.nslots);
    lo_ = lo.n.d;
    hi_ = hi.n.d;
    if (!(lo_ < hi_))
      fail(ErrorKind::solve_decl, b.span,
           "a solve range must run from low to high, got " + text(lo_) + ".." + text(hi_),
           "write the smaller end first: " + text(std::min(lo_, hi_)) + ".." + text(std::max(lo_, hi_)));
    out_.integer = whole(b, lo, hi);
    if (out_.integer) {
      lo_ = std::ceil(lo_);
      hi_ = std::floor(hi_);
    }
    scan();
    if (cmp_.op == Op::eq)
      roots();
    else
      boundaries();
    out_.evaluations = evals_;
    return std::move(out_);
  }

 private:
  // Whole-number ranges (`8..16384` GPUs) are integer variables: dimensionless, integral ends,
  // neither end written with a decimal point (`0.0..1` asks for a continuous fraction).
  bool whole(const Binding& b, const Value& lo, const Value& hi) const {
    if (!type_ || type_->k != Type::K::num || !type_->dim.none()) return false;
    if (!to_int(lo.n) || !to_int(hi.n)) return false;
    for (const Expr* e : {b.domains[0].get(), b.range_to.get()})
      if (ev_.program().sources.slice(e->span).find_first_of(".eE") != std::string_view::npos && e->kind == EK::num)
        return false;
    return true;
  }

  Value arg(double x, bool exact) const {
    if (out_.integer) return Value::number(Num::of_int(static_cast<std::int64_t>(std::llround(x))));
    return Value::number(exact ? Num::exact_of_double(x) : Num::of_double(x));
  }

  // EXPR and TARGET at x on evaluator e; a runtime error names the value of NAME it occurred at.
  std::pair<Value, Value> sides(Evaluator& e, double x) {
    ++evals_;
    std::vector<Value> slots(static_cast<std::size_t>(std::max(s_.nslots, 1)));
    slots[static_cast<std::size_t>(slot_)] = arg(x, e.exact());
    Evaluator::BudgetScope budget(e);
    try {
      Value l = e.eval(lhs_, slots.data(), 0);
      Value r = e.eval(rhs_, slots.data(), 0);
      return {std::move(l), std::move(r)};
    } catch (DiagnosticError& err) {
      err.diag.help.push_back("while solving for " + sym_name(s_.name) + " = " + text(x));
      throw;
    }
  }

  double g(double x) {
    const auto [l, r] = sides(*fast_, x);
    return l.n.d - r.n.d;
  }

  [[nodiscard]] bool holds(double gx) const { return cmp_.op == Op::le || cmp_.op == Op::lt ? gx <= 0 : gx >= 0; }

  // Evenly spaced points, geometric when the range spans two decades or more of positive values
  // (bandwidths, GPU counts): a linear scan would put almost every point in the top decade.
  void scan() {
    const bool geometric = lo_ > 0 && hi_ / lo_ >= 100;
    if (out_.integer && hi_ - lo_ <= kScanIntervals) {
      for (double x = lo_; x <= hi_; x += 1) xs_.push_back(x);
    } else {
      for (int i = 0; i <= kScanIntervals; ++i) {
        const double t = static_cast<double>(i) / kScanIntervals;
        double x = geometric ? lo_ * std::pow(hi_ / lo_, t) : lo_ + (hi_ - lo_) * t;
        if (i == 0) x = lo_;
        if (i == kScanIntervals) x = hi_;
        if (out_.integer) x = std::round(x);
        if (xs_.empty() || x > xs_.back()) xs_.push_back(x);
      }
    }
    for (double x : xs_) gs_.push_back(g(x));
    bool up = true, down = true;
    for (std::size_t i = 1; i < gs_.size(); ++i) {
      up = up && gs_[i] >= gs_[i - 1];
      down = down && gs_[i] <= gs_[i - 1];
    }
    out_.monotone = up || down;
  }

  // Between a and b the sign of g (==) or the truth of the constraint changes: halve until the
  // bracket cannot shrink (adjacent binary64 numbers, or adjacent integers).
  template <typename Same>
  std::pair<double, double> bisect(double a, double b, Same same_as_a) {
    for (int i = 0; i < kMaxHalvings; ++i) {
      const double m = out_.integer ? std::floor(a + (b - a) / 2) : a + (b - a) / 2;
      if (m <= a || m >= b) break;
      if (same_as_a(m))
        a = m;
      else
        b = m;
    }
    return {a, b};
  }

  void roots() {
    for (std::size_t i = 0; i < xs_.size(); ++i) {
      if (gs_[i] == 0) {
        add(xs_[i], "root");
        continue;
      }
      if (i + 1 >= xs_.size() || gs_[i + 1] == 0 || (gs_[i] < 0) == (gs_[i + 1] < 0)) continue;
      const bool neg = gs_[i] < 0;
      double ga = gs_[i], gb = gs_[i + 1];
      auto [a, b] = bisect(xs_[i], xs_[i + 1], [&](double m) {
        const double gm = g(m);
        if (gm != 0 && (gm < 0) == neg) {
          ga = gm;
          return true;
        }
        gb = gm;  // an exact zero ends up as b, the nearer end
        return false;
      });
      // The end nearer TARGET (for integers: the whole number nearest the crossing).
      add(std::abs(ga) <= std::abs(gb) ? a : b, "root");
    }
    if (out_.answers.empty()) no_answer("never equals");
  }

  void boundaries() {
    std::vector<bool> ok;
    for (double gx : gs_) ok.push_back(holds(gx));
    if (std::all_of(ok.begin(), ok.end(), [](bool v) { return v; })) no_answer("holds everywhere");
    if (std::none_of(ok.begin(), ok.end(), [](bool v) { return v; })) no_answer("never holds");
    for (std::size_t i = 0; i + 1 < xs_.size(); ++i) {
      if (ok[i] == ok[i + 1]) continue;
      const bool start = ok[i + 1];  // the constraint starts holding: the smallest value
      auto [a, b] = bisect(xs_[i], xs_[i + 1], [&](double m) { return holds(g(m)) == ok[i]; });
      add(start ? b : a, start ? "min" : "max");
    }
  }

  // Confirms an answer on the caller's evaluator (exact for `mls run`) and takes the assumptions
  // of both sides there. A boundary found in binary64 that the exact evaluation puts a rounding
  // outside the constraint moves into it, so an `assert` at the answer holds.
  void add(double x, const char* role) {
    auto [l, r] = sides(ev_, x);
    if (!out_.integer && cmp_.op != Op::eq) {
      const double dir = std::string(role) == "min" ? 1 : -1;
      double step = std::max(std::abs(x), 1e-300) * 0x1p-52;
      for (int i = 0; i < kMaxNudges && !exact_holds(l, r); ++i, step *= 2) {
        x += dir * step;
        std::tie(l, r) = sides(ev_, x);
      }
    }
    SolveAnswer a;
    a.value = Value::number(arg(x, ev_.exact()).n, ev_.unite(l.deps, r.deps));
    a.role = role;
    if (!out_.answers.empty() && out_.answers.back().value.n.d == x && out_.answers.back().role == a.role) return;
    out_.answers.push_back(std::move(a));
  }

  [[nodiscard]] bool exact_holds(const Value& l, const Value& r) const {
    const int c = compare(l.n, r.n);
    return cmp_.op == Op::le || cmp_.op == Op::lt ? c <= 0 : c >= 0;
  }

  [[noreturn]] void no_answer(const std::string& what) {
    const auto [mn, mx] = std::minmax_element(gs_.begin(), gs_.end());
    const std::string lhs = compact(lhs_), rhs = compact(rhs_);
    std::string msg = "no solution for '" + sym_name(s_.name) + "' in " + text(lo_) + ".." + text(hi_) + ": ";
    msg += what == "never equals" ? lhs + " never equals " + rhs
                                  : lhs + " " + op_word() + " " + rhs + " " + what +
                                        (what == "holds everywhere" ? " (its boundary is outside the range)" : "");
    std::string help = lhs + " - " + rhs + " goes from " + side_text(*mn) + " to " + side_text(*mx) + " over " +
                       std::to_string(xs_.size()) + " points of the range";
    help += out_.monotone ? "; widen the range or check the target"
                          : "; it is not monotone: a root between two "
                            "points can be missed, narrow the range";
    fail(ErrorKind::solve_no_root, s_.span, msg, help);
  }

  [[nodiscard]] std::string op_word() const {
    switch (cmp_.op) {
      case Op::le: return "<=";
      case Op::lt: return "<";
      case Op::ge: return ">=";
      case Op::gt: return ">";
      default: return "==";
    }
  }

  [[noreturn]] void fail(ErrorKind k, Span at, std::string msg, std::string help) const {
    throw_diagnostic(k, at, std::move(msg), {std::move(help)});
  }

  [[nodiscard]] std::string compact(const Expr& e) const {
    return compact_text(ev_.program().sources.slice(e.span), 60);
  }

  // NAME's value in the unit it is displayed in.
  [[nodiscard]] std::string text(double si) const {
    if (out_.integer) return sig(si);
    const Display d = display_for(scope_of(ev_.program()), type_, si);
    const std::string t = format_sig(in_unit(Num::of_double(si), d), 6);
    return d.unit.empty() ? t : t + " " + d.unit;
  }

  [[nodiscard]] static std::string sig(double v) { return format_sig(Num::of_double(v), 6); }

  // A value of EXPR - TARGET in EXPR's display unit (base units when its type is not known).
  [[nodiscard]] std::string side_text(double si) const {
    if (!lhs_type_ || lhs_type_->k != Type::K::num) return sig(si) + " (base units)";
    const Display d = display_for(scope_of(ev_.program()), lhs_type_, si);
    const std::string t = format_sig(in_unit(Num::of_double(si), d), 6);
    return d.unit.empty() ? t : t + " " + d.unit;
  }

  Evaluator& ev_;
  TypeP lhs_type_;
  Evaluator* fast_ = nullptr;
  std::unique_ptr<Evaluator> fast_owned_;
  const Stmt& s_;
  const Expr& cmp_;
  const Expr& lhs_;
  const Expr& rhs_;
  int slot_ = 0;
  TypeP type_;
  double lo_ = 0, hi_ = 0;
  std::vector<double> xs_, gs_;
  std::size_t evals_ = 0;
  SolveOutcome out_;
};

}  // namespace

SolveOutcome solve_statement(Evaluator& ev, const Stmt& s, TypeP lhs_type) {
  return Solver(ev, s, std::move(lhs_type)).run();
}

Value solve_value(Evaluator& ev, const Stmt& s) { return solve_statement(ev, s).answers.at(0).value; }

}  // namespace mls
