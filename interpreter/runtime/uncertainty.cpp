// uncertainty.cpp — the Monte Carlo of `mls run --uncertainty N` (see uncertainty.hpp and
// docs/uncertainty.md for the method and why each choice).
#include "uncertainty.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <set>

#include "grammar/diagnostic.hpp"
#include "interpreter/semantics/resolve.hpp"

namespace mls {

// 52 bits, not 53: (2^53 - 1 + 0.5) / 2^53 rounds to 1.0, while every (k + 0.5) / 2^52 is exact.
double unit_open(std::uint64_t bits) { return (static_cast<double>(bits >> 12) + 0.5) * 0x1.0p-52; }

double normal_quantile(double p) {
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                                 1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                 6.680131188771972e+01, -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                 -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                 3.754408661907416e+00};
  constexpr double plow = 0.02425;
  double x = 0;
  if (p < plow || p > 1 - plow) {
    const double q = std::sqrt(-2 * std::log(p < plow ? p : 1 - p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    if (p > plow) x = -x;
  } else {
    const double q = p - 0.5;
    const double r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  // One Halley step against the exact CDF brings the approximation to full double precision.
  const double e = 0.5 * std::erfc(-x / std::numbers::sqrt2) - p;
  const double u = e * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

namespace {
// A parameter is a number literal or its negation (the parser enforces it), in base units.
double param(const Expr& e, std::size_t i) {
  const Expr& k = *e.kids.at(i);
  return k.kind == EK::num ? k.si.d : -k.kids.at(0)->si.d;
}
}  // namespace

double draw_value(const Expr& e, double u) {
  switch (e.dist) {
    case Dist::plus_minus: {
      const double c = param(e, 0);
      const double d = e.bval ? std::abs(c) * param(e, 1) : param(e, 1);  // bval: written in %
      return (c - d) + 2 * d * u;
    }
    case Dist::uniform: return param(e, 0) + (param(e, 1) - param(e, 0)) * u;
    case Dist::normal: return param(e, 0) + param(e, 1) * normal_quantile(u);
    case Dist::lognormal: return param(e, 0) * std::exp(param(e, 1) * normal_quantile(u));
    case Dist::triangular: {
      const double lo = param(e, 0), mode = param(e, 1), hi = param(e, 2);
      const double f = (mode - lo) / (hi - lo);
      return u < f ? lo + std::sqrt(u * (hi - lo) * (mode - lo)) : hi - std::sqrt((1 - u) * (hi - lo) * (hi - mode));
    }
  }
  return e.si.d;
}

double quantile_sorted(const std::vector<double>& v, double q) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double h = static_cast<double>(v.size() - 1) * q;
  const auto i = static_cast<std::size_t>(std::floor(h));
  if (i + 1 >= v.size()) return v.back();
  return v[i] + (h - static_cast<double>(i)) * (v[i + 1] - v[i]);
}

namespace {
std::vector<double> ranks(const std::vector<double>& x) {
  std::vector<std::size_t> idx(x.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
  std::vector<double> r(x.size());
  for (std::size_t i = 0; i < idx.size();) {
    std::size_t j = i;
    while (j + 1 < idx.size() && x[idx[j + 1]] == x[idx[i]]) ++j;
    const double avg = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
    for (std::size_t k = i; k <= j; ++k) r[idx[k]] = avg;
    i = j + 1;
  }
  return r;
}
}  // namespace

double rank_correlation(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size() || x.size() < 2) return 0;
  const auto rx = ranks(x), ry = ranks(y);
  const double mean = (static_cast<double>(x.size()) + 1) / 2;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < rx.size(); ++i) {
    sxy += (rx[i] - mean) * (ry[i] - mean);
    sxx += (rx[i] - mean) * (rx[i] - mean);
    syy += (ry[i] - mean) * (ry[i] - mean);
  }
  if (sxx == 0 || syy == 0) return 0;
  return sxy / std::sqrt(sxx * syy);
}

namespace {
void collect(const Expr& e, std::set<const Expr*>& out) {
  if (e.kind == EK::uncertain) out.insert(&e);
  for_each_child(e, [&](const Expr& k) { collect(k, out); });
}
void collect_stmt(const Stmt& s, std::set<const Expr*>& out) {
  for_each_stmt_expr(s, [&](const Expr& e) { collect(e, out); });
  for (const auto& it : s.items) collect_stmt(it, out);
}
}  // namespace

std::vector<UncertainInput> uncertain_inputs(const Program& p, const Config& cfg) {
  std::set<const Expr*> found;
  for (const auto& m : p.modules)
    for (const auto& s : m.stmts) collect_stmt(s, found);
  // A `set` (also --set) whose value holds an uncertain literal stands for it in its results' deps.
  std::vector<std::pair<const Expr*, AtomId>> set_atoms;
  auto from_override = [&](const Override& o) {
    std::set<const Expr*> in;
    if (o.value) collect(*o.value, in);
    for (const Expr* e : in) {
      found.insert(e);
      set_atoms.emplace_back(e, o.atom);
    }
  };
  for (const auto& ovs : cfg.overrides)
    for (const auto& o : ovs) from_override(o);
  for (const auto& [atom, o] : cfg.literal_overrides) from_override(o);
  std::vector<UncertainInput> out;
  for (const Expr* e : found) {
    UncertainInput in;
    in.expr = e;
    in.value = compact_text(p.sources.slice(e->span));
    in.name = in.value;
    if (e->atom >= 0) {
      in.atoms.push_back(static_cast<AtomId>(e->atom));
      in.name = p.deps.assumption(static_cast<AtomId>(e->atom)).name;
    }
    for (const auto& [x, a] : set_atoms)
      if (x == e) in.atoms.push_back(a);
    out.push_back(std::move(in));
  }
  // Source order, not pointer order: the same program draws the same stream in every process.
  std::sort(out.begin(), out.end(), [](const UncertainInput& a, const UncertainInput& b) {
    const Span& x = a.expr->span;
    const Span& y = b.expr->span;
    return x.file != y.file ? x.file < y.file : x.begin < y.begin;
  });
  return out;
}

std::vector<std::vector<double>> draw_samples(const std::vector<UncertainInput>& in, std::size_t n,
                                              std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<std::vector<double>> out(n, std::vector<double>(in.size()));
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t j = 0; j < in.size(); ++j) out[k][j] = draw_value(*in[j].expr, unit_open(gen()));
  return out;
}

namespace {
// The numbers of a shown value in the order run.cpp expands it (record fields depth first, lists
// skipped); a bool or string is NaN (it has no percentiles).
void flatten(const Value& v, std::vector<double>& out) {
  if (v.k == Value::K::record) {
    for (const auto& [name, f] : v.rec().fields)
      if (f.k != Value::K::list) flatten(f, out);
    return;
  }
  out.push_back(v.k == Value::K::num ? v.n.d : std::numeric_limits<double>::quiet_NaN());
}
}  // namespace

MonteCarlo::MonteCarlo(Program& p, const Config& cfg, std::vector<Item> items, std::size_t n, std::uint64_t seed,
                       std::uint64_t max_steps)
    : p_(p), inputs_(uncertain_inputs(p, cfg)), n_(n), seed_(seed) {
  values_.resize(items.size());
  errors_.resize(items.size());
  if (inputs_.empty() || items.empty()) return;
  if (n > kMaxUncertaintyEvaluations / items.size()) {
    Diagnostic d;
    d.kind = ErrorKind::usage;
    d.message = "--uncertainty " + std::to_string(n) + " would evaluate " + std::to_string(items.size()) +
                " shown expressions " + std::to_string(n) + " times, more than the cap of " +
                std::to_string(kMaxUncertaintyEvaluations) + " evaluations";
    d.help.push_back("use fewer samples: percentiles P10..P90 settle to a few % within 1000 samples");
    throw DiagnosticError{std::move(d)};
  }
  draws_ = draw_samples(inputs_, n, seed);
  // Samples need numbers only: no validation summaries (their deps), binary64 arithmetic.
  Config mc = cfg;
  mc.validation_summaries = false;
  Evaluator ev(p, mc, false);
  ev.max_steps = max_steps;
  std::unordered_map<const Expr*, double> now;
  ev.draws = &now;
  std::vector<double> leaves;
  for (std::size_t k = 0; k < n; ++k) {
    for (std::size_t j = 0; j < inputs_.size(); ++j) now[inputs_[j].expr] = draws_[k][j];
    ev.forget_globals();
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (errors_[i]) continue;
      try {
        leaves.clear();
        flatten(ev.eval_in(*items[i].expr, items[i].nslots), leaves);
      } catch (DiagnosticError& e) {
        if (e.diag.kind == ErrorKind::interrupted) throw;
        std::string drawn;
        for (std::size_t j = 0; j < inputs_.size() && j < 6; ++j)
          drawn += (j ? ", " : "") + inputs_[j].name + " = " + format_sig(Num::of_double(draws_[k][j]), 6);
        e.diag.help.push_back("in uncertainty sample " + std::to_string(k + 1) + " of " + std::to_string(n) +
                              " (seed " + std::to_string(seed) + "), drawn in base units: " + drawn);
        errors_[i] = std::move(e.diag);
        continue;
      }
      auto& vals = values_[i];
      if (vals.size() < leaves.size())
        vals.resize(leaves.size(), std::vector<double>(n, std::numeric_limits<double>::quiet_NaN()));
      for (std::size_t l = 0; l < leaves.size(); ++l) vals[l][k] = leaves[l];
    }
  }
}

std::vector<std::optional<Spread>> MonteCarlo::spreads(std::size_t i, const std::vector<Shown>& shown) const {
  std::vector<std::optional<Spread>> out(shown.size());
  if (inputs_.empty() || draws_.empty()) return out;
  if (errors_.at(i)) throw DiagnosticError{*errors_[i]};
  for (std::size_t l = 0; l < shown.size() && l < values_[i].size(); ++l) {
    if (shown[l].value.k != Value::K::num) continue;
    // Only the inputs the value depends on (its provenance) can drive it.
    const auto& atoms = p_.deps.atoms(shown[l].value.deps);
    std::vector<std::size_t> mine;
    for (std::size_t j = 0; j < inputs_.size(); ++j)
      for (AtomId a : inputs_[j].atoms)
        if (std::find(atoms.begin(), atoms.end(), a) != atoms.end()) {
          mine.push_back(j);
          break;
        }
    if (mine.empty()) continue;
    const std::vector<double>& col = values_[i][l];
    std::vector<double> sorted = col;
    std::sort(sorted.begin(), sorted.end());
    Spread s;
    s.samples = n_;
    s.p10 = quantile_sorted(sorted, 0.1);
    s.p50 = quantile_sorted(sorted, 0.5);
    s.p90 = quantile_sorted(sorted, 0.9);
    std::vector<double> xs(n_);
    // Under independence Spearman's rho is about normal with standard deviation 1/sqrt(N - 1):
    // |rho| < 2/sqrt(N) lies within its two-sided 95 % band, so such an input is not named a
    // driver (at 200 samples a -0.18 that vanishes at 2000 is noise, not a finding).
    s.noise_threshold = 2 / std::sqrt(static_cast<double>(n_));
    for (std::size_t j : mine) {
      for (std::size_t k = 0; k < n_; ++k) xs[k] = draws_[k][j];
      const double r = rank_correlation(xs, col);
      if (std::abs(r) < s.noise_threshold) {
        ++s.within_noise;
        continue;
      }
      s.drivers.push_back({inputs_[j].name, inputs_[j].value, r});
    }
    std::stable_sort(s.drivers.begin(), s.drivers.end(), [](const Driver& a, const Driver& b) {
      return std::abs(a.rank_correlation) > std::abs(b.rank_correlation);
    });
    if (s.drivers.size() > kMaxDrivers) s.drivers.resize(kMaxDrivers);
    out[l] = std::move(s);
  }
  return out;
}

}  // namespace mls
