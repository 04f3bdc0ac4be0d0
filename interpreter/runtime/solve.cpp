// solve.cpp — the root finder behind `solve`: scan the range, bracket every sign change of
// EXPR - TARGET (or every change of the constraint's truth), refine each bracket by bisection on
// the binary64 evaluator until it cannot shrink, then confirm the answer forward on the caller's
// (exact) evaluator: an answer that does not satisfy the comparison there is an error.
#include "solve.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "grammar/symbols.hpp"
#include "interpreter/results/run_result.hpp"
#include "interpreter/semantics/resolve.hpp"

namespace mls {

namespace {

// Points of the scan: enough to find the roots of the curves mls models (a few bends), few
// enough that a formula as heavy as train() solves in well under a second in binary64.
constexpr int kScanIntervals = 200;
// Bisection by the arithmetic midpoint converges in about 54 halvings when both ends are of one
// magnitude; past this many the bracket spans magnitudes (0..1e80), and the midpoint of the
// ends' binary64 encodings takes over, which reaches adjacent numbers in at most 64 more.
constexpr int kArithmeticHalvings = 64;
// Nudges of a boundary into its satisfying side when the exact evaluation disagrees with binary64.
constexpr int kMaxNudges = 64;
// A root of a continuous EXPR: across the final bracket of adjacent binary64 numbers, EXPR -
// TARGET changes by at most this many times what the scan interval around it predicts linearly
// (curvature), plus rounding noise (kNoise of the sides' magnitude). A larger jump is a
// discontinuity that steps over TARGET, not a point where EXPR equals it.
constexpr double kCurvature = 1e6;
constexpr double kNoise = 1e-9;

// A point of a whole-number range that cannot be evaluated is skipped (as a search counts an
// infeasible point) unless the error says the run itself must stop.
// A whole number as int64 exactly (to_int stops at 9e15, where binary64 still holds every
// integer; an integer variable's values above it are exact, in the small exact form).
std::optional<std::int64_t> whole_value(const Num& a) {
  if (a.sd == 1) return a.sn;
  return to_int(a);
}

bool skippable(ErrorKind k) {
  return k != ErrorKind::interrupted && k != ErrorKind::internal && k != ErrorKind::limit_output;
}

// Binary64 numbers as ordered integers: adjacent numbers differ by one, -0 and +0 coincide.
std::int64_t ordered(double x) {
  const auto i = std::bit_cast<std::int64_t>(x);
  return i < 0 ? std::numeric_limits<std::int64_t>::min() - i : i;
}
double from_ordered(std::int64_t i) {
  return std::bit_cast<double>(i < 0 ? std::numeric_limits<std::int64_t>::min() - i : i);
}

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
    if (b.step) step_of(b);
    if (out_.integer) {
      ilo_ = *whole_value(lo.n);
      const std::int64_t ihi = *whole_value(hi.n);
      std::int64_t span = 0;
      if (__builtin_sub_overflow(ihi, ilo_, &span))
        fail(ErrorKind::solve_decl, b.span, "this solve range is wider than 2^63 whole numbers",
             "narrow the range, or write an end with a decimal point to solve for a continuous value");
      last_ = span / istep_;
      lo_ = static_cast<double>(ilo_);
      hi_ = static_cast<double>(value_at(last_));
      if (last_ < 1)
        fail(ErrorKind::solve_decl, b.span, "this solve range holds a single whole number, " + int_text(ilo_),
             "widen the range or make the step smaller");
    }
    scan();
    if (cmp_.op == Op::eq)
      roots();
    else
      boundaries();
    finish();
    return std::move(out_);
  }

 private:
  void finish() {
    out_.evaluations = evals_;
    out_.skipped = skipped_.size();
    out_.skip_reasons.assign(reasons_.begin(), reasons_.end());
    std::stable_sort(out_.skip_reasons.begin(), out_.skip_reasons.end(),
                     [](const auto& x, const auto& y) { return x.second > y.second; });
  }

  // Whole-number ranges (`8..16384` GPUs) are integer variables: dimensionless, integral ends,
  // neither end written with a decimal point (`0.0..1` asks for a continuous fraction).
  bool whole(const Binding& b, const Value& lo, const Value& hi) const {
    if (!type_ || type_->k != Type::K::num || !type_->dim.none()) return false;
    if (!whole_value(lo.n) || !whole_value(hi.n)) return false;
    for (const Expr* e : {b.domains[0].get(), b.range_to.get()}) {
      while (e->kind == EK::unary && e->kids.size() == 1) e = e->kids[0].get();  // -1.0 is written as 1.0
      if (e->kind == EK::num && ev_.program().sources.slice(e->span).find_first_of(".eE") != std::string_view::npos)
        return false;
    }
    return true;
  }

  // `by STEP`: the whole numbers LO, LO + STEP, ... up to HI (an integer variable only).
  void step_of(const Binding& b) {
    const Value st = ev_.eval_in(*b.step, s_.nslots);
    if (!out_.integer)
      fail(ErrorKind::solve_decl, b.step->span,
           "a step applies to a whole-number range (an integer variable such as a node count)",
           "write both ends as whole numbers (16..4096 by 4), or drop the step to solve for a continuous value");
    const auto k = whole_value(st.n);
    if (!k || *k < 1)
      fail(ErrorKind::solve_decl, b.step->span, "a solve step is a positive whole number, got " + sig(st.n.d),
           "e.g. `solve nodes in 16..4096 by 4 such that ...`");
    istep_ = *k;
  }

  [[nodiscard]] std::int64_t value_at(std::int64_t k) const { return ilo_ + k * istep_; }

  Value arg_int(std::int64_t v) const { return Value::number(Num::of_int(v)); }
  Value arg(double x, bool exact) const { return Value::number(exact ? Num::exact_of_double(x) : Num::of_double(x)); }

  // EXPR and TARGET at NAME = a on evaluator e; a runtime error names the value it occurred at.
  std::pair<Value, Value> sides_at(Evaluator& e, const Value& a, const std::string& at) {
    ++evals_;
    std::vector<Value> slots(static_cast<std::size_t>(std::max(s_.nslots, 1)));
    slots[static_cast<std::size_t>(slot_)] = a;
    Evaluator::BudgetScope budget(e);
    try {
      Value l = e.eval(lhs_, slots.data(), 0);
      Value r = e.eval(rhs_, slots.data(), 0);
      return {std::move(l), std::move(r)};
    } catch (DiagnosticError& err) {
      err.diag.help.push_back("while solving for " + sym_name(s_.name) + " = " + at);
      throw;
    }
  }
  std::pair<Value, Value> sides(Evaluator& e, double x) { return sides_at(e, arg(x, e.exact()), text(x)); }

  double g(double x) {
    const auto [l, r] = sides(*fast_, x);
    return l.n.d - r.n.d;
  }

  // EXPR - TARGET at the k-th whole number of the range, in binary64; nullopt when the point
  // cannot be evaluated (skipped and counted, as a search counts an infeasible point).
  std::optional<double> gk(std::int64_t k) {
    if (skipped_.count(k)) return std::nullopt;
    try {
      const auto [l, r] = sides_at(*fast_, arg_int(value_at(k)), int_text(value_at(k)));
      return l.n.d - r.n.d;
    } catch (DiagnosticError& e) {
      if (!skippable(e.diag.kind)) throw;
      skip(k, e.diag);
      return std::nullopt;
    }
  }
  void skip(std::int64_t k, const Diagnostic& d) {
    if (!skipped_.insert(k).second) return;
    if (!first_skip_) first_skip_ = d;
    ++reasons_[std::string(info(d.kind).code) + ": " + d.message];
  }

  [[nodiscard]] bool holds(double gx) const { return cmp_.op == Op::le || cmp_.op == Op::lt ? gx <= 0 : gx >= 0; }

  // Evenly spaced points, geometric when the range spans two decades or more of positive values
  // (bandwidths, GPU counts): a linear scan would put almost every point in the top decade.
  void scan() {
    const bool geometric = lo_ > 0 && hi_ / lo_ >= 100;
    // Only a geometric scan divides by lo_ (which may be 0: a float division by zero is UB).
    const double ratio = geometric ? hi_ / lo_ : 0.0, width = hi_ - lo_;
    auto at = [&](double t) {
      if (geometric)
        return std::isfinite(ratio) ? lo_ * std::pow(ratio, t) : std::exp(std::log(lo_) * (1 - t) + std::log(hi_) * t);
      return std::isfinite(width) ? lo_ + width * t : lo_ * (1 - t) + hi_ * t;
    };
    if (out_.integer) {
      std::vector<std::int64_t> ks;
      if (last_ + 1 <= kScanIntervals + 1) {
        for (std::int64_t k = 0; k <= last_; ++k) ks.push_back(k);
      } else {
        for (int i = 0; i <= kScanIntervals; ++i) {
          const double t = static_cast<double>(i) / kScanIntervals;
          std::int64_t k = i == 0 ? 0 : i == kScanIntervals ? last_ : index_near(at(t));
          k = std::clamp<std::int64_t>(k, 0, last_);
          if (ks.empty() || k > ks.back()) ks.push_back(k);
        }
      }
      for (std::int64_t k : ks)
        if (const auto v = gk(k)) {
          ks_.push_back(k);
          xs_.push_back(static_cast<double>(value_at(k)));
          gs_.push_back(*v);
        }
      if (gs_.empty()) {
        Diagnostic d = *first_skip_;
        d.help.push_back("no value of " + sym_name(s_.name) + " in " + text(lo_) + ".." + text(hi_) +
                         " could be evaluated: every one of the " + std::to_string(skipped_.size()) +
                         " values tried failed, the first like this");
        throw DiagnosticError{std::move(d)};
      }
    } else {
      for (int i = 0; i <= kScanIntervals; ++i) {
        const double t = static_cast<double>(i) / kScanIntervals;
        double x = i == 0 ? lo_ : i == kScanIntervals ? hi_ : at(t);
        if (xs_.empty() || x > xs_.back()) xs_.push_back(x);
      }
      for (double x : xs_) gs_.push_back(g(x));
    }
    bool up = true, down = true;
    for (std::size_t i = 1; i < gs_.size(); ++i) {
      up = up && gs_[i] >= gs_[i - 1];
      down = down && gs_[i] <= gs_[i - 1];
    }
    out_.monotone = up || down;
  }

  // The index of the whole number of the range nearest x.
  [[nodiscard]] std::int64_t index_near(double x) const {
    const double k = std::round((x - lo_) / static_cast<double>(istep_));
    if (!(k > 0)) return 0;
    if (k >= static_cast<double>(last_)) return last_;
    return static_cast<std::int64_t>(k);
  }

  // Between a and b the sign of g (==) or the truth of the constraint changes: halve until the
  // bracket cannot shrink (adjacent binary64 numbers). The loop ends on the bracket, not on a
  // count: every step moves an end strictly inward, and the encoding midpoint at most halves
  // the count of numbers between the ends.
  template <typename Same>
  std::pair<double, double> bisect(double a, double b, Same same_as_a) {
    for (int i = 0;; ++i) {
      double m;
      if (i < kArithmeticHalvings && std::isfinite(b - a)) {
        m = a + (b - a) / 2;
      } else {
        const std::int64_t ia = ordered(a), ib = ordered(b);
        m = from_ordered(ia / 2 + ib / 2 + (ia % 2 + ib % 2) / 2);
      }
      if (!(m > a && m < b)) return {a, b};
      if (same_as_a(m))
        a = m;
      else
        b = m;
    }
  }

  // The same on the indices of an integer variable: halve (ka, kb) until no whole number of the
  // range that can be evaluated lies between them; points that cannot are skipped, the nearest
  // one that can is taken instead. `side` is nullopt for such a point, else which end it joins.
  template <typename Side>
  std::pair<std::int64_t, std::int64_t> bisect_int(std::int64_t ka, std::int64_t kb, Side side) {
    while (kb - ka > 1) {
      const std::int64_t m = ka + (kb - ka) / 2;
      std::optional<bool> s;
      std::int64_t at = m;
      // m, m + 1, m - 1, m + 2, ...: the nearest point that can be evaluated.
      for (std::int64_t d = 0; !s && (m + d < kb || m - d > ka); ++d)
        for (const std::int64_t c : {m + d, m - d})
          if (!s && c > ka && c < kb && (d > 0 || c == m + d))
            if ((s = side(c))) at = c;
      if (!s) break;  // every whole number between ka and kb was skipped
      if (*s)
        ka = at;
      else
        kb = at;
    }
    return {ka, kb};
  }

  void roots() {
    for (std::size_t i = 0; i < xs_.size(); ++i) {
      if (gs_[i] == 0) {
        if (out_.integer)
          zero_int(i);
        else
          confirm_root(i, xs_[i], xs_[i], 0, 0);
        continue;
      }
      if (i + 1 >= xs_.size() || gs_[i + 1] == 0 || (gs_[i] < 0) == (gs_[i + 1] < 0)) continue;
      const bool neg = gs_[i] < 0;
      double ga = gs_[i], gb = gs_[i + 1];
      if (out_.integer) {
        auto [ka, kb] = bisect_int(ks_[i], ks_[i + 1], [&](std::int64_t k) -> std::optional<bool> {
          const auto gm = gk(k);
          if (!gm) return std::nullopt;
          if (*gm != 0 && (*gm < 0) == neg) return true;
          return false;
        });
        confirm_int(i, ka, kb, [&](const Value& l, const Value& r) {
          const int c = compare(l.n, r.n);
          return c != 0 && (c < 0) == neg;
        });
        continue;
      }
      auto [a, b] = bisect(xs_[i], xs_[i + 1], [&](double m) {
        const double gm = g(m);
        if (gm != 0 && (gm < 0) == neg) {
          ga = gm;
          return true;
        }
        gb = gm;  // an exact zero ends up as b, the nearer end
        return false;
      });
      confirm_root(i, a, b, ga, gb);
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
      if (out_.integer) {
        auto [ka, kb] = bisect_int(ks_[i], ks_[i + 1], [&](std::int64_t k) -> std::optional<bool> {
          const auto gm = gk(k);
          if (!gm) return std::nullopt;
          return holds(*gm) == ok[i];
        });
        confirm_int(
            i, ka, kb, [&](const Value& l, const Value& r) { return exact_holds(l, r) == ok[i]; }, start);
        continue;
      }
      auto [a, b] = bisect(xs_[i], xs_[i + 1], [&](double m) { return holds(g(m)) == ok[i]; });
      add_boundary(start ? b : a, start ? "min" : "max");
    }
  }

  // ---- confirmation on the caller's evaluator --------------------------------------------------

  // An integer bracket (ka, kb) from binary64, confirmed forward: `left(l, r)` says whether a
  // point lies on ka's side. Above 2^53 binary64 cannot tell neighbouring whole numbers apart,
  // so the exact evaluator may put the crossing elsewhere: it is then found there, by galloping
  // out from the bracket (within the scan interval i) and bisecting on the exact evaluator.
  // `start` (constraints): the answer is kb (the constraint starts holding), else ka.
  template <typename Left>
  void confirm_int(std::size_t i, std::int64_t ka, std::int64_t kb, Left left, std::optional<bool> start = {}) {
    std::map<std::int64_t, std::pair<Value, Value>> seen;
    auto exact_side = [&](std::int64_t k) -> std::optional<bool> {
      auto it = seen.find(k);
      if (it == seen.end()) {
        if (skipped_.count(k)) return std::nullopt;
        try {
          it = seen.emplace(k, sides_at(ev_, arg_int(value_at(k)), int_text(value_at(k)))).first;
        } catch (DiagnosticError& e) {
          if (!skippable(e.diag.kind) || !out_.integer) throw;
          skip(k, e.diag);
          return std::nullopt;
        }
      }
      return left(it->second.first, it->second.second);
    };
    const std::int64_t lo = ks_[i], hi = ks_[i + 1];
    auto sa = exact_side(ka), sb = exact_side(kb);
    if (!(sa && *sa) || !(sb && !*sb)) {
      // Widen until the exact sides differ: a is on the left side, b on the right.
      std::int64_t a = ka, b = kb;
      for (std::int64_t d = 1; !(sa && *sa) && a > lo; d *= 2) {
        a = std::max(lo, ka - d);
        sa = exact_side(a);
      }
      for (std::int64_t d = 1; !(sb && !*sb) && b < hi; d *= 2) {
        b = std::min(hi, kb + d);
        sb = exact_side(b);
      }
      if (!(sa && *sa) || !(sb && !*sb)) unconfirmed(static_cast<double>(value_at(ka)), seen);
      std::tie(ka, kb) = bisect_int(a, b, exact_side);
    }
    const auto& [la, ra] = seen.at(ka);
    const auto& [lb, rb] = seen.at(kb);
    if (start) {
      const bool at_b = *start;
      add_int(at_b ? kb : ka, at_b ? lb : la, at_b ? rb : ra, at_b ? "min" : "max");
      return;
    }
    // ==: the whole number nearer the crossing (ties to the lower one).
    bool lost = false;
    Num da = sub(la.n, ra.n, lost), db = sub(lb.n, rb.n, lost);
    if (compare(da, Num::of_int(0)) < 0) da = neg(da);
    if (compare(db, Num::of_int(0)) < 0) db = neg(db);
    if (compare(da, db) <= 0)
      add_int(ka, la, ra, "root");
    else
      add_int(kb, lb, rb, "root");
  }

  // A scan point of an integer variable where binary64 gives EXPR == TARGET exactly: a root if
  // the exact evaluation agrees, else the crossing is beside it (binary64 could not tell).
  void zero_int(std::size_t i) {
    const std::int64_t k = ks_[i];
    const auto [l, r] = sides_at(ev_, arg_int(value_at(k)), int_text(value_at(k)));
    const int c = compare(l.n, r.n);
    if (c == 0) return add_int(k, l, r, "root");
    // Which side of the crossing k is on: a neighbouring scan point of the other sign brackets it.
    const bool neg = c < 0;
    auto left = [&](bool left_neg) {
      return [left_neg](const Value& a, const Value& b) {
        const int x = compare(a.n, b.n);
        return x != 0 && (x < 0) == left_neg;
      };
    };
    if (i + 1 < gs_.size() && (gs_[i + 1] == 0 || (gs_[i + 1] < 0) != neg))
      return confirm_int(i, ks_[i], ks_[i + 1], left(neg));
    if (i > 0 && (gs_[i - 1] == 0 || (gs_[i - 1] < 0) != neg))
      return confirm_int(i - 1, ks_[i - 1], ks_[i], left(!neg));
    unconfirmed(static_cast<double>(value_at(k)), {{k, {l, r}}});
  }

  void add_int(std::int64_t k, const Value& l, const Value& r, const char* role) {
    SolveAnswer a;
    a.value = Value::number(Num::of_int(value_at(k)), ev_.unite(l.deps, r.deps));
    a.role = role;
    push(std::move(a));
  }

  // A root of a continuous EXPR: x is a or b (an exact zero, or the end nearer TARGET), the
  // bracket of adjacent numbers found in binary64 around scan interval i. Forward on the exact
  // evaluator, EXPR - TARGET must be zero at x or change sign across the bracket, and not jump.
  void confirm_root(std::size_t i, double a, double b, double ga, double gb) {
    const double x = a == b || std::abs(ga) > std::abs(gb) ? b : a;
    auto [l, r] = sides(ev_, x);
    const int c = compare(l.n, r.n);
    if (c != 0 && a == b) {
      // Binary64 gives an exact zero, the exact evaluation does not: a root if the sign changes
      // to a neighbouring number.
      bool changes = false;
      for (const double y : {std::nextafter(x, -INFINITY), std::nextafter(x, INFINITY)}) {
        if (changes || y < lo_ || y > hi_) continue;
        const auto [ly, ry] = sides(ev_, y);
        const int cy = compare(ly.n, ry.n);
        changes = cy != c;
      }
      if (!changes) unconfirmed(x, {{0, {l, r}}});
    } else if (c != 0) {
      const double other = x == a ? b : a;
      const auto [lo, ro] = sides(ev_, other);
      const int co = compare(lo.n, ro.n);
      if (co != 0 && co == c) unconfirmed(x, {{0, {l, r}}});
      // The jump across the bracket against what the scan interval predicts.
      const std::size_t j = i + 1 < xs_.size() ? i : i - 1;
      const double span = xs_[j + 1] - xs_[j], change = std::abs(gs_[j + 1] - gs_[j]);
      const double jump = std::abs(gb - ga);
      const double scale = std::max({std::abs(l.n.d), std::abs(r.n.d), std::abs(lo.n.d), std::abs(ro.n.d)});
      const double predicted = std::isfinite(span) && span > 0 ? change * ((b - a) / span) : change;
      if (jump > kCurvature * predicted + kNoise * scale) discontinuity(a, ga, gb);
    }
    SolveAnswer ans;
    ans.value = Value::number(arg(x, ev_.exact()).n, ev_.unite(l.deps, r.deps));
    ans.role = "root";
    push(std::move(ans));
  }

  // Confirms a boundary on the caller's evaluator (exact for `mls run`) and takes the
  // assumptions of both sides there. A boundary found in binary64 that the exact evaluation
  // puts a rounding outside the constraint moves into it, so an `assert` at the answer holds;
  // one that cannot be moved in is an error, never an answer.
  void add_boundary(double x, const char* role) {
    auto [l, r] = sides(ev_, x);
    const double dir = std::string(role) == "min" ? 1 : -1;
    double step = std::max(std::abs(x), 1e-300) * 0x1p-52;
    for (int i = 0; i < kMaxNudges && !exact_holds(l, r); ++i, step *= 2) {
      const double next = x + dir * step;
      if (!std::isfinite(next) || next < lo_ || next > hi_) break;
      x = next;
      std::tie(l, r) = sides(ev_, x);
    }
    if (!exact_holds(l, r)) unconfirmed(x, {{0, {l, r}}});
    SolveAnswer a;
    a.value = Value::number(arg(x, ev_.exact()).n, ev_.unite(l.deps, r.deps));
    a.role = role;
    push(std::move(a));
  }

  void push(SolveAnswer a) {
    if (!out_.answers.empty() && compare(out_.answers.back().value.n, a.value.n) == 0 &&
        out_.answers.back().role == a.role)
      return;
    out_.answers.push_back(std::move(a));
  }

  [[nodiscard]] bool exact_holds(const Value& l, const Value& r) const {
    const int c = compare(l.n, r.n);
    return cmp_.op == Op::le || cmp_.op == Op::lt ? c <= 0 : c >= 0;
  }

  // ---- errors --------------------------------------------------------------------------------

  [[noreturn]] void unconfirmed(double x, const std::map<std::int64_t, std::pair<Value, Value>>& at) {
    const std::string lhs = compact(lhs_), rhs = compact(rhs_);
    std::string help = "binary64 brackets an answer near " + sym_name(s_.name) + " = " + text(x) +
                       " that the exact evaluation does not confirm";
    if (!at.empty()) {
      const auto& [l, r] = at.begin()->second;
      help += ": there " + lhs + " = " + side_text(l.n.d) + " and " + rhs + " = " + side_text(r.n.d);
    }
    fail(ErrorKind::solve_no_root, s_.span,
         "no confirmed solution for '" + sym_name(s_.name) + "': " + lhs + " " + op_word() + " " + rhs +
             " does not hold at the answer when evaluated forward",
         help + "; narrow the range around it");
  }

  [[noreturn]] void discontinuity(double a, double ga, double gb) {
    const std::string lhs = compact(lhs_), rhs = compact(rhs_);
    fail(ErrorKind::solve_no_root, s_.span,
         "no solution for '" + sym_name(s_.name) + "' in " + text(lo_) + ".." + text(hi_) + ": " + lhs +
             " jumps over " + rhs + " at " + sym_name(s_.name) + " = " + text(a) + " and never equals it",
         lhs + " - " + rhs + " goes from " + side_text(ga) + " to " + side_text(gb) + " between " + text(a) +
             " and the next binary64 number above it: a discontinuity, not a root");
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
    Diagnostic d = make_diagnostic(ErrorKind::solve_no_root, s_.span, msg, {help});
    if (!skipped_.empty()) {
      finish();
      d.help.push_back(skipped_text(out_, sym_name(s_.name)));
    }
    throw DiagnosticError{std::move(d)};
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

  [[nodiscard]] static std::string int_text(std::int64_t v) { return std::to_string(v); }

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
  // An integer variable: the range is ilo_ + k * istep_ for k = 0 .. last_.
  std::int64_t ilo_ = 0, istep_ = 1, last_ = 0;
  std::vector<double> xs_, gs_;   // the scan: NAME and EXPR - TARGET at the points evaluated
  std::vector<std::int64_t> ks_;  // an integer variable: the indices of xs_
  std::set<std::int64_t> skipped_;
  std::map<std::string, std::size_t> reasons_;
  std::optional<Diagnostic> first_skip_;
  std::size_t evals_ = 0;
  SolveOutcome out_;
};

}  // namespace

SolveOutcome solve_statement(Evaluator& ev, const Stmt& s, TypeP lhs_type) {
  return Solver(ev, s, std::move(lhs_type)).run();
}

std::string skipped_text(const SolveOutcome& o, const std::string& name) {
  if (o.skipped == 0) return "";
  std::string s = std::to_string(o.skipped) + (o.skipped == 1 ? " value of " : " values of ") + name +
                  " could not be evaluated and " + (o.skipped == 1 ? "was" : "were") + " skipped: ";
  for (std::size_t i = 0; i < o.skip_reasons.size() && i < 3; ++i)
    s += (i ? "; " : "") + std::to_string(o.skip_reasons[i].second) + " " + o.skip_reasons[i].first;
  return s + (o.skip_reasons.size() > 3 ? "; ..." : "");
}

namespace {

bool reads_solve_walk(const Program& p, const Expr& e, std::set<const void*>& seen) {
  if (e.ref.kind == RefKind::global && e.ref.index < p.globals.size()) {
    const Stmt* st = p.globals[e.ref.index].stmt;
    if (st && st->kind == SK::solve) return true;
    if (st && st->value && seen.insert(st).second && reads_solve_walk(p, *st->value, seen)) return true;
  }
  if (e.ref.kind == RefKind::function && e.ref.index < p.functions.size()) {
    const Stmt* st = p.functions[e.ref.index].stmt;
    if (st && st->value && seen.insert(st).second && reads_solve_walk(p, *st->value, seen)) return true;
  }
  bool found = false;
  for_each_child(e, [&](const Expr& k) { found = found || reads_solve_walk(p, k, seen); });
  return found;
}

}  // namespace

bool reads_solve(const Program& p, const Expr& e) {
  std::set<const void*> seen;
  return reads_solve_walk(p, e, seen);
}

std::vector<std::string> solve_labels(const SolveOutcome& o, const std::string& name) {
  std::map<std::string, std::size_t> count, seen;
  for (const auto& a : o.answers) ++count[a.role];
  std::vector<std::string> out;
  for (const auto& a : o.answers) {
    std::string label = (a.role == "root" ? "" : a.role + " ") + name;
    if (count[a.role] > 1) label += "[" + std::to_string(++seen[a.role]) + "]";
    out.push_back(std::move(label));
  }
  return out;
}

Value solve_value(Evaluator& ev, const Stmt& s) { return solve_statement(ev, s).answers.at(0).value; }

}  // namespace mls
