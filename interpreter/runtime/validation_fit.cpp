// validation_fit.cpp — the calibration fit and the out-of-sample errors of a validation table.
// The constants a family declares (its `calibration` list, stdlib/validation.mls) are fitted by
// least squares on the log errors of the cases not held out; the sensitivity of every prediction to
// each constant comes from evaluating the cases with that constant moved 10 % (a finite difference
// in log space). Each leave-one-source-out error is the fit on the other sources' fit cases
// iterated from the committed constants to its optimum (one step lands far from it where the
// left-out source was what informed a constant), the left-out cases then evaluated exactly at the
// refit constants; the leave-one-domain-out error the same without a whole domain. The refits'
// steps reuse the committed sensitivities, re-taking a constant's once it moves more than 10 % (a
// chord method: within 0.5 points of re-taking them every step, measured; +1.4 s of CPU cold for
// `mls validate --cross-validate`, 13 %). A constant no remaining case informs never keeps its
// fitted value (its error would be in sample): it takes the constant it is declared `near` (of its
// list: that one's refit; else that constant's value), or else its physical `null`. Only the cases
// a step reads are evaluated (the fit cases for the sensitivities, the cases a constant moves for a
// refit's steps, the left-out cases for its errors). Method: docs/validation.md, "Out of sample".
#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <optional>
#include <set>

#include "eval.hpp"
#include "grammar/symbols.hpp"
#include "interpreter/semantics/resolve.hpp"
#include "validation.hpp"

namespace mls::validation_detail {

namespace {

constexpr double kStep = 1.1;               // the finite difference: each constant moved 10 %
constexpr double kInformed = 0.01;          // |d log prediction / d log constant| that counts as informing
constexpr double kIdentified = 1e-6;        // sum of squared sensitivities below which nothing informs a constant
constexpr double kRidge = 1e-6;             // relative damping of the normal equations (conditioning only)
constexpr std::size_t kMaxIterations = 25;  // of the full fit
constexpr double kConverged = 1e-6;         // max |change of a log constant| at which the full fit stops
// Max |change of a log constant| at which an out-of-sample refit stops: its steps shrink 4-40x
// each (measured), so the constants end within a few 0.1 % of the iteration's limit (measured:
// stopping at 0.3 % instead changes no error by 0.02 points). Also how far a row's constants move
// before a refit evaluates it again (until then its log error follows its sensitivities).
constexpr double kRefitConverged = 1e-2;
const double kRelinearise = std::log(kStep);  // how far a constant moves before a refit re-takes its sensitivities

struct Constant {
  FitConstant info;
  std::vector<const Expr*> literals;  // every literal its names denote
  int near = -1;                      // index of the constant of its list it borrows from
  double near_value = -1;             // the value of a constant outside the list it borrows (>= 0)
};

const Value* field(const Value& r, const char* name) {
  return r.k == Value::K::record ? r.rec().get(intern(name)) : nullptr;
}

// Whether the configuration sets this name (or a record it is part of): then it is the user's
// value, not a fitted one.
bool pinned(const Program& p, const Config& cfg, const std::string& name, const std::vector<const Expr*>& lits) {
  for (const Expr* l : lits)
    if (cfg.literal_overrides.count(l->atom)) return true;
  const auto path = dotted_path(name);
  const Decl* d = p.lookup(path.front());
  if (!d || d->kind != RefKind::global || d->index >= cfg.overrides.size()) return false;
  for (const Override& o : cfg.overrides[d->index])
    if (o.path.size() <= path.size() && std::equal(o.path.begin(), o.path.end(), path.begin())) return true;
  return false;
}

// The value of a constant named by its dotted path ("B200.matmul_efficiency.fp8") under the
// evaluator's configuration, in base units; nothing when it names no number.
std::optional<double> value_named(Evaluator& ev, const std::string& name) {
  const auto path = dotted_path(name);
  if (path.empty()) return std::nullopt;
  const Decl* d = ev.program().lookup(path.front());
  if (!d || d->kind != RefKind::global) return std::nullopt;
  Value v = ev.global(d->index);
  for (std::size_t i = 1; i < path.size(); ++i) {
    const Value* f = v.k == Value::K::record ? v.rec().get(path[i]) : nullptr;
    if (!f) return std::nullopt;
    const Value next = *f;
    v = next;
  }
  if (v.k != Value::K::num) return std::nullopt;
  return v.n.d;
}

std::vector<Constant> read_calibration(Program& p, const Config& cfg, const std::string& list) {
  std::vector<Constant> out;
  Evaluator ev = Evaluator::for_validation(p, cfg);
  const Evaluator::BudgetScope budget(ev);
  const Decl* d = p.lookup(intern(list));
  if (!d || d->kind != RefKind::global) return out;
  const Value v = ev.global(d->index);
  if (v.k != Value::K::list) return out;
  for (const Value& c : v.list().items) {
    Constant k;
    if (const Value* n = field(c, "names"); n && n->k == Value::K::list)
      for (const Value& s : n->list().items)
        if (s.k == Value::K::str) k.info.names.push_back(s.str());
    if (const Value* x = field(c, "lower"); x && x->k == Value::K::num) k.info.lower = x->n.d;
    if (const Value* x = field(c, "upper"); x && x->k == Value::K::num) k.info.upper = x->n.d;
    if (const Value* x = field(c, "near"); x && x->k == Value::K::str) k.info.near = x->str();
    const Value* null = field(c, "null");
    const std::string first = k.info.names.empty() ? std::string("?") : k.info.names.front();
    if (!null || null->k != Value::K::num || !(null->n.d >= 0))
      throw BadCases{"the calibration constant " + first + " (" + list +
                     ") declares no `null` >= 0: the value it takes when a refit leaves no case that informs it "
                     "and it is near no constant (docs/validation.md, \"Out of sample\")"};
    k.info.null = null->n.d;
    for (const auto& name : k.info.names)
      for (const Expr* l : literals_named(p, name))
        if (l->kind == EK::num && l->si_ready) k.literals.push_back(l);
    if (k.literals.empty() || k.info.names.empty()) continue;  // not a literal: nothing to move
    k.info.value = k.literals.front()->si.d;
    k.info.fitted = k.info.value;
    k.info.pinned = k.info.value <= 0;
    for (const auto& name : k.info.names) k.info.pinned = k.info.pinned || pinned(p, cfg, name, k.literals);
    out.push_back(std::move(k));
  }
  for (auto& k : out) {
    if (k.info.near.empty()) continue;
    for (std::size_t j = 0; j < out.size(); ++j)
      if (std::find(out[j].info.names.begin(), out[j].info.names.end(), k.info.near) != out[j].info.names.end())
        k.near = static_cast<int>(j);
    if (k.near >= 0) continue;
    // A constant of another model (another list's, or a sourced one): its value under the configuration.
    const auto borrowed = value_named(ev, k.info.near);
    if (!borrowed || *borrowed < 0)
      throw BadCases{"the calibration constant " + k.info.names.front() + " (" + list + ") is near '" + k.info.near +
                     "', which names no constant"};
    k.near_value = *borrowed;
  }
  return out;
}

// Predictions of the cases in `want` (0 for the others) with the constants at `values`: the
// configuration plus a literal override of each moved constant's literals (scaled by the same
// factor when several are tied). A case is evaluated alone (its item of its list's literal) unless
// its list is not a list literal or the configuration replaces it; then the list is evaluated.
class Predictor {
 public:
  Predictor(Program& p, const Config& cfg, const FamilyEntry& e, const std::vector<Constant>& cs,
            const std::vector<CaseRow>& base)
      : p_(p), cfg_(cfg), e_(e), cs_(cs), base_(base) {}

  std::vector<double> operator()(const std::vector<double>& values, const std::vector<bool>& want) {
    Config c = cfg_;
    c.validation_summaries = false;
    for (std::size_t k = 0; k < cs_.size(); ++k) {
      if (values[k] == cs_[k].info.value) continue;
      for (const Expr* lit : cs_[k].literals) {
        Expr& x = exprs_.emplace_back();
        x.kind = EK::num;
        x.span = lit->span;
        x.si = Num::of_double(lit->si.d * values[k] / cs_[k].info.value);
        x.si_ready = true;
        Override o;
        o.value = &x;
        o.atom = static_cast<AtomId>(lit->atom);
        c.literal_overrides[lit->atom] = o;
      }
    }
    Evaluator ev = Evaluator::for_validation(p_, c);
    const Evaluator::BudgetScope budget(ev);
    std::vector<double> out(base_.size(), 0);
    for (std::size_t li = 0; li < e_.lists.size(); ++li) {
      std::vector<std::size_t> rows;
      for (std::size_t i = 0; i < base_.size(); ++i)
        if (want[i] && base_[i].list_index == li) rows.push_back(i);
      if (rows.empty()) continue;
      const Decl* d = p_.lookup(intern(e_.lists[li]));
      if (!d || d->kind != RefKind::global) continue;
      const Stmt* st = p_.globals[d->index].stmt;
      const bool alone = st && st->kind == SK::let && st->value && st->value->kind == EK::list &&
                         (d->index >= c.overrides.size() || c.overrides[d->index].empty());
      const Value whole = alone ? Value{} : ev.global(d->index);
      for (const std::size_t i : rows) {
        const std::size_t j = base_[i].item_index;
        Value v;
        if (alone && j < st->value->kids.size())
          v = ev.eval_in(*st->value->kids[j], st->nslots);
        else if (!alone && whole.k == Value::K::list && j < whole.list().items.size())
          v = whole.list().items[j];
        const Value* id = field(v, "id");
        const Value* pr = field(v, "predicted");
        if (id && id->k == Value::K::str && id->str() == base_[i].id && pr && pr->k == Value::K::num) out[i] = pr->n.d;
      }
    }
    return out;
  }

 private:
  Program& p_;
  const Config& cfg_;
  const FamilyEntry& e_;
  const std::vector<Constant>& cs_;
  const std::vector<CaseRow>& base_;
  std::deque<Expr> exprs_;  // the overrides' values, alive while any evaluator may read them
};

double log_ratio(double a, double b) { return a > 0 && b > 0 ? std::log(a / b) : 0; }

// Solves A x = b in place (Gaussian elimination, partial pivoting); a singular pivot gives 0.
std::vector<double> solve_linear(std::vector<std::vector<double>> A, std::vector<double> b) {
  const std::size_t n = b.size();
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t piv = c;
    for (std::size_t r = c + 1; r < n; ++r)
      if (std::abs(A[r][c]) > std::abs(A[piv][c])) piv = r;
    std::swap(A[c], A[piv]);
    std::swap(b[c], b[piv]);
    if (std::abs(A[c][c]) < 1e-300) continue;
    for (std::size_t r = c + 1; r < n; ++r) {
      const double f = A[r][c] / A[c][c];
      for (std::size_t k = c; k < n; ++k) A[r][k] -= f * A[c][k];
      b[r] -= f * b[c];
    }
  }
  std::vector<double> x(n, 0);
  for (std::size_t c = n; c-- > 0;) {
    if (std::abs(A[c][c]) < 1e-300) continue;
    double s = b[c];
    for (std::size_t k = c + 1; k < n; ++k) s -= A[c][k] * x[k];
    x[c] = s / A[c][c];
  }
  return x;
}

// Where a step leaves the constants: the log value of each constant a step solves for, and the
// value an uninformed constant takes instead (its near constant's, or its null, which may be 0: a
// value log space cannot hold, hence kept apart).
struct Point {
  std::vector<double> theta;                 // log constants (a taken constant keeps the one it had)
  std::vector<std::optional<double>> taken;  // the value an uninformed constant takes

  std::vector<double> values() const {
    std::vector<double> v(theta.size());
    for (std::size_t k = 0; k < theta.size(); ++k) v[k] = taken[k] ? *taken[k] : std::exp(theta[k]);
    return v;
  }
};

// One Gauss-Newton step on the rows in `use`: the log constants that minimise the sum of squared
// log errors of those rows, linearised at `theta` (sensitivities J, log errors r), within the
// bounds; constants no used row informs take their `near` constant's result (or their null).
Point gauss_newton(const std::vector<Constant>& cs, const std::vector<double>& theta,
                   const std::vector<std::vector<double>>& J, const std::vector<double>& r,
                   const std::vector<bool>& use) {
  const std::size_t K = cs.size();
  std::vector<double> delta(K, 0);
  std::vector<bool> active(K, false), borrow(K, false);
  for (std::size_t k = 0; k < K; ++k) {
    if (cs[k].info.pinned) continue;
    double s = 0;
    for (std::size_t i = 0; i < r.size(); ++i)
      if (use[i]) s += J[i][k] * J[i][k];
    if (s > kIdentified)
      active[k] = true;
    else
      borrow[k] = true;
  }
  for (std::size_t round = 0; round <= K; ++round) {
    std::vector<std::size_t> idx;
    for (std::size_t k = 0; k < K; ++k)
      if (active[k]) idx.push_back(k);
    const std::size_t n = idx.size();
    std::vector<std::vector<double>> A(n, std::vector<double>(n, 0));
    std::vector<double> g(n, 0);
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (!use[i]) continue;
      double ri = r[i];  // with the constants fixed at a bound so far
      for (std::size_t k = 0; k < K; ++k)
        if (!active[k]) ri += J[i][k] * delta[k];
      for (std::size_t a = 0; a < n; ++a) {
        g[a] -= J[i][idx[a]] * ri;
        for (std::size_t b = 0; b < n; ++b) A[a][b] += J[i][idx[a]] * J[i][idx[b]];
      }
    }
    double trace = 0;
    for (std::size_t a = 0; a < n; ++a) trace += A[a][a];
    for (std::size_t a = 0; a < n; ++a) A[a][a] += kRidge * (n ? trace / static_cast<double>(n) : 0);
    const auto x = solve_linear(A, g);
    bool clamped = false;
    for (std::size_t a = 0; a < n; ++a) {
      const std::size_t k = idx[a];
      delta[k] = x[a];
      const double lo = std::log(std::max(cs[k].info.lower, 1e-300)), hi = std::log(std::max(cs[k].info.upper, 1e-300));
      const double t = theta[k] + delta[k];
      if (cs[k].info.upper > 0 && (t < lo || t > hi)) {
        delta[k] = std::clamp(t, lo, hi) - theta[k];
        active[k] = false;
        clamped = true;
      }
    }
    if (!clamped) break;
  }
  Point out;
  out.theta.resize(K);
  out.taken.resize(K);
  for (std::size_t k = 0; k < K; ++k) out.theta[k] = theta[k] + delta[k];  // an uninformed constant's delta is 0
  // An uninformed constant follows `near` to the first constant of its list that is informed (or
  // set), or to a constant outside the list; a chain that ends in neither gives its own null.
  for (std::size_t k = 0; k < K; ++k) {
    if (!borrow[k]) continue;
    out.taken[k] = cs[k].info.null;
    std::size_t at = k;
    for (std::size_t step = 0; step < K; ++step) {
      if (cs[at].near_value >= 0) {
        out.taken[k] = cs[at].near_value;
        break;
      }
      if (cs[at].near < 0) break;
      at = static_cast<std::size_t>(cs[at].near);
      if (!borrow[at]) {
        out.taken[k] = std::exp(out.theta[at]);
        break;
      }
    }
  }
  return out;
}

// The sensitivities of the rows in `of` to constant k (d log prediction / d log constant) at
// `values`, where those rows predict `predicted`: the rows evaluated with constant k moved kStep.
void take_sensitivities(Predictor& predict, std::vector<double> values, std::size_t k,
                        const std::vector<double>& predicted, const std::vector<bool>& of,
                        std::vector<std::vector<double>>& J) {
  values[k] *= kStep;
  const auto moved = predict(values, of);
  for (std::size_t i = 0; i < of.size(); ++i)
    if (of[i]) J[i][k] = log_ratio(moved[i], predicted[i]) / std::log(kStep);
}

struct Linearised {
  std::vector<double> r;               // log(predicted / measured) per case
  std::vector<std::vector<double>> J;  // d log predicted / d log constant
};

// Log errors and sensitivities of the fit cases `fit` (the only rows a step reads; 0 elsewhere).
Linearised linearise(Predictor& predict, const std::vector<Constant>& cs, const std::vector<double>& values,
                     const std::vector<double>& predicted, const std::vector<CaseRow>& rows,
                     const std::vector<bool>& fit) {
  Linearised l;
  l.r.resize(rows.size());
  l.J.assign(rows.size(), std::vector<double>(cs.size(), 0));
  for (std::size_t i = 0; i < rows.size(); ++i) l.r[i] = fit[i] ? log_ratio(predicted[i], rows[i].measured) : 0;
  for (std::size_t k = 0; k < cs.size(); ++k)
    if (!cs[k].info.pinned) take_sensitivities(predict, values, k, predicted, fit, l.J);
  return l;
}

// The largest change of a log constant from `a` to `b` (a taken constant follows the others).
double largest_change(const std::vector<double>& a, const std::vector<double>& b) {
  double change = 0;
  for (std::size_t k = 0; k < a.size(); ++k) change = std::max(change, std::abs(b[k] - a[k]));
  return change;
}

// The fit on the rows in `use`, iterated from the committed constants (log values `theta`, where
// `lin` was taken on every fit row) to its optimum: after each step the log errors are evaluated at
// the new constants and the next step solved with the sensitivities last taken (a chord step); a
// constant's sensitivities are taken again once it is further from where they were taken than the
// finite difference's own step (kRelinearise). It stops when no constant moved by kRefitConverged.
// Only the rows a constant moves are evaluated: those with a nonzero sensitivity to it at the
// committed constants (the others' predictions do not depend on it), and of those only the ones
// whose constants moved kRefitConverged since they were last evaluated. Which constants the rows
// inform, and so which take their `near` or null, is decided at the committed constants.
Point refit(Predictor& predict, const std::vector<Constant>& cs, const std::vector<double>& theta,
            const Linearised& lin, const std::vector<CaseRow>& rows, const std::vector<bool>& use) {
  const std::size_t n = rows.size(), K = cs.size();
  std::vector<std::vector<bool>> moves(K, std::vector<bool>(n, false));  // the rows constant k moves
  std::vector<bool> moving(n, false);                                    // the rows any constant moves
  for (std::size_t k = 0; k < K; ++k)
    for (std::size_t i = 0; i < n; ++i) {
      moves[k][i] = use[i] && lin.J[i][k] != 0;
      moving[i] = moving[i] || moves[k][i];
    }
  Linearised at = lin;
  std::vector<double> taken_at = theta;  // where each constant's sensitivities were last taken
  // Where each row was last evaluated (its constants and its log error there): a row none of whose
  // constants has moved kRefitConverged since is carried by its sensitivities instead.
  std::vector<std::vector<double>> row_values(n, Point{theta, std::vector<std::optional<double>>(K)}.values());
  std::vector<double> row_r = lin.r;
  Point p = gauss_newton(cs, theta, at.J, at.r, use);
  double change = largest_change(theta, p.theta);
  for (std::size_t it = 1; it < kMaxIterations && change >= kRefitConverged; ++it) {
    const auto values = p.values();
    std::vector<bool> retake(K, false), need(n, false);
    for (std::size_t k = 0; k < K; ++k)
      retake[k] = !cs[k].info.pinned && !p.taken[k] && std::abs(p.theta[k] - taken_at[k]) > kRelinearise;
    for (std::size_t i = 0; i < n; ++i) {
      if (!moving[i]) continue;
      double linear = row_r[i];
      for (std::size_t k = 0; k < K; ++k) {
        if (!moves[k][i]) continue;
        const double was = row_values[i][k], now = values[k];
        const double step = was > 0 && now > 0 ? std::log(now / was) : (was == now ? 0 : HUGE_VAL);
        need[i] = need[i] || retake[k] || std::abs(step) >= kRefitConverged;
        if (std::isfinite(step)) linear += at.J[i][k] * step;
      }
      at.r[i] = linear;
    }
    const auto predicted =
        std::count(need.begin(), need.end(), true) ? predict(values, need) : std::vector<double>(n, 0);
    for (std::size_t i = 0; i < n; ++i)
      if (need[i]) {
        at.r[i] = row_r[i] = log_ratio(predicted[i], rows[i].measured);
        row_values[i] = values;
      }
    for (std::size_t k = 0; k < K; ++k) {
      if (!retake[k]) continue;
      take_sensitivities(predict, values, k, predicted, moves[k], at.J);
      taken_at[k] = p.theta[k];
    }
    Point next = gauss_newton(cs, p.theta, at.J, at.r, use);
    change = largest_change(p.theta, next.theta);
    p = std::move(next);
  }
  return p;
}

// Whether a refit moved any constant from the committed ones (log values `theta`).
bool moved(const Point& p, const std::vector<double>& theta) {
  for (std::size_t k = 0; k < theta.size(); ++k)
    if (p.taken[k] ? std::abs(*p.taken[k] - std::exp(theta[k])) > 1e-12 * std::exp(theta[k])
                   : std::abs(p.theta[k] - theta[k]) > 1e-12)
      return true;
  return false;
}

}  // namespace

void cross_validate(Program& p, const Config& cfg, const FamilyEntry& e, ValidationTable& t, bool full_fit) {
  if (e.calibration.empty()) return;
  std::vector<Constant> cs = read_calibration(p, cfg, e.calibration);
  if (cs.empty()) return;
  std::vector<CaseRow>& rows = t.cases;
  const std::size_t n = rows.size();
  std::vector<bool> fit(n, false);
  for (std::size_t i = 0; i < n; ++i)
    fit[i] = rows[i].expressible && !rows[i].held_out && rows[i].predicted > 0 && rows[i].measured > 0;
  Predictor predict(p, cfg, e, cs, rows);
  std::vector<double> values(cs.size()), theta(cs.size()), predicted(n);
  for (std::size_t k = 0; k < cs.size(); ++k) {
    values[k] = cs[k].info.value;
    theta[k] = std::log(std::max(values[k], 1e-300));
  }
  for (std::size_t i = 0; i < n; ++i) predicted[i] = rows[i].predicted;
  const Linearised lin = linearise(predict, cs, values, predicted, rows, fit);
  for (std::size_t i = 0; i < n; ++i)
    if (fit[i]) t.loss += lin.r[i] * lin.r[i];
  for (std::size_t k = 0; k < cs.size(); ++k)
    for (std::size_t i = 0; i < n; ++i)
      if (fit[i] && std::abs(lin.J[i][k]) > kInformed) cs[k].info.informed_by.push_back(rows[i].id);

  // The fit from the committed constants: one step (the loss it expects), or to its optimum for
  // `mls validate --fit`.
  Point best = gauss_newton(cs, theta, lin.J, lin.r, fit);
  t.fit_iterations = 1;
  t.fitted_loss = 0;
  {
    std::vector<double> r = lin.r;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = 0; k < cs.size(); ++k) r[i] += lin.J[i][k] * (best.theta[k] - theta[k]);
    for (std::size_t i = 0; i < n; ++i)
      if (fit[i]) t.fitted_loss += r[i] * r[i];
  }
  if (full_fit) {
    Point at{theta, std::vector<std::optional<double>>(cs.size())};
    for (std::size_t it = 1; it <= kMaxIterations; ++it) {
      const double change = largest_change(at.theta, best.theta);
      at = best;
      const auto vals = at.values();
      const auto pred = predict(vals, fit);
      const Linearised l = linearise(predict, cs, vals, pred, rows, fit);
      t.fitted_loss = 0;
      for (std::size_t i = 0; i < n; ++i)
        if (fit[i]) t.fitted_loss += l.r[i] * l.r[i];
      t.fit_iterations = it;
      if (change < kConverged) break;
      best = gauss_newton(cs, at.theta, l.J, l.r, fit);
    }
    best = at;
  }
  const std::vector<double> fitted = best.values();
  for (std::size_t k = 0; k < cs.size(); ++k) cs[k].info.fitted = fitted[k];

  // Refits without one part of the fit set, the cases of that part evaluated at the result.
  auto refit_without = [&](const std::vector<bool>& part, double CaseRow::*err) {
    std::vector<bool> use(n);
    bool any = false;
    for (std::size_t i = 0; i < n; ++i) {
      use[i] = fit[i] && !part[i];
      any = any || (fit[i] && part[i]);
    }
    if (!any) return;  // the fit never read this part: its errors are out of sample already
    const Point th = refit(predict, cs, theta, lin, rows, use);
    if (!moved(th, theta)) return;
    const auto pred = predict(th.values(), part);
    for (std::size_t i = 0; i < n; ++i)
      if (part[i] && rows[i].measured > 0) rows[i].*err = pred[i] / rows[i].measured - 1;
  };
  std::set<std::string> sources;
  for (const CaseRow& c : rows) sources.insert(c.source_key);
  for (const std::string& s : sources) {
    std::vector<bool> part(n);
    for (std::size_t i = 0; i < n; ++i) part[i] = rows[i].source_key == s;
    refit_without(part, &CaseRow::loso_error);
  }
  // Validated domains (docs/validation.md: enough cases from enough sources), without the whole domain.
  std::map<std::string, std::pair<std::size_t, std::set<std::string>>> domains;
  for (const CaseRow& c : rows)
    if (c.expressible) {
      auto& d = domains[c.domain.key()];
      ++d.first;
      d.second.insert(c.source_key);
    }
  for (const auto& [key, d] : domains) {
    if (d.first < kMinDomainCases || d.second.size() < kMinDomainSources) continue;
    std::vector<bool> part(n);
    for (std::size_t i = 0; i < n; ++i) {
      part[i] = rows[i].expressible && rows[i].domain.key() == key;
      if (part[i]) rows[i].lodo = true;
    }
    refit_without(part, &CaseRow::lodo_error);
  }
  for (const Constant& k : cs) t.fit.push_back(k.info);
}

}  // namespace mls::validation_detail
