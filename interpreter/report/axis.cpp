// axis.cpp — ranges, nice ticks and tick labels for linear and log axes.
#include "axis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

namespace mls {

double fraction(double v, double lo, double hi) {
  const double w = hi - lo;
  if (std::isfinite(w)) return (v - lo) / w;
  // Ends of opposite sign near the largest binary64 (-1e308..1e308): their difference
  // overflows, half of it does not, and halving is exact.
  return (v / 2 - lo / 2) / (hi / 2 - lo / 2);
}

std::pair<double, double> around(double v) {
  const double d = v == 0 ? 1 : std::fabs(v) * 0.1;
  if (!std::isfinite(v + d)) return {v - 2 * d, v};  // at the largest binary64
  if (!std::isfinite(v - d)) return {v, v + 2 * d};
  return {v - d, v + d};
}

double Axis::frac(double v) const {
  if (log) return (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
  return fraction(v, lo, hi);
}

double nice_step(double range, int target) {
  if (!(range > 0)) return 1;
  const double raw = range / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / mag;
  const double nice = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
  return nice * mag;
}

std::string tick_label(double v, double step) {
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a >= 1e6 || a < 1e-4) {
    // Significant digits: as many as the step distinguishes (at least one).
    const int digits =
        std::clamp(static_cast<int>(std::floor(std::log10(a)) - std::floor(std::log10(step))) + 1, 1, 15);
    std::string s = fmt::format("{:.{}e}", v, digits - 1);
    // 2.00e+06 -> 2e6, 1.50e-05 -> 1.5e-5: the mantissa's trailing zeros and the exponent's
    // plus sign and leading zeros say nothing.
    const auto e = s.find('e');
    std::string mant = s.substr(0, e), ex = s.substr(e + 1);
    if (mant.find('.') != std::string::npos) {
      while (mant.back() == '0') mant.pop_back();
      if (mant.back() == '.') mant.pop_back();
    }
    const bool neg = ex[0] == '-';
    std::size_t i = (ex[0] == '-' || ex[0] == '+') ? 1 : 0;
    while (i + 1 < ex.size() && ex[i] == '0') ++i;
    return mant + "e" + (neg ? "-" : "") + ex.substr(i);
  }
  const int decimals = std::clamp(static_cast<int>(-std::floor(std::log10(step) + 1e-9)), 0, 15);
  std::string s = fmt::format("{:.{}f}", v, decimals);
  return s == "-0" ? "0" : s;
}

Axis linear_axis(double lo, double hi, int target) {
  if (lo > hi) std::swap(lo, hi);
  if (lo == hi) std::tie(lo, hi) = around(lo);
  // A range wider than the largest binary64 (-1e308..1e308) is stepped at twice the nice step
  // of its half; an end the steps would carry past the largest number stays at the data's end.
  const double step = std::isfinite(hi - lo) ? nice_step(hi - lo, target) : 2 * nice_step(hi / 2 - lo / 2, target);
  // Integer multiples of the step, so ticks do not accumulate rounding (0.1 + 0.2 != 0.3).
  const double k0 = std::floor(lo / step + 1e-9), k1 = std::ceil(hi / step - 1e-9);
  Axis a;
  a.lo = std::isfinite(k0 * step) ? k0 * step : lo;
  a.hi = std::isfinite(k1 * step) ? k1 * step : hi;
  for (double k = k0; k <= k1 + 0.5; k += 1) {
    double v = k * step;
    if (!std::isfinite(v)) continue;
    if (std::fabs(v) < step * 1e-9) v = 0;
    a.ticks.push_back({v, tick_label(v, step)});
  }
  return a;
}

Axis log_axis(double lo, double hi) {
  if (lo > hi) std::swap(lo, hi);
  if (lo == hi) {
    lo /= 2;
    hi *= 2;
  }
  Axis a;
  a.log = true;
  a.lo = lo;
  a.hi = hi;
  const int k0 = static_cast<int>(std::floor(std::log10(lo))), k1 = static_cast<int>(std::ceil(std::log10(hi)));
  auto in_range = [&](double v) { return v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9); };
  std::vector<double> powers, ones_twos_fives;
  for (int k = k0; k <= k1; ++k) {
    const double p = std::pow(10.0, k);
    if (in_range(p)) powers.push_back(p);
    for (double m : {1.0, 2.0, 5.0})
      if (in_range(m * p)) ones_twos_fives.push_back(m * p);
  }
  std::vector<double> chosen;
  if (ones_twos_fives.size() <= 10 && ones_twos_fives.size() >= 2) {
    chosen = ones_twos_fives;
  } else if (powers.size() >= 2) {
    // Many decades: every k-th power, so at most about 8 labels.
    const std::size_t every = (powers.size() + 7) / 8;
    for (std::size_t i = 0; i < powers.size(); i += every) chosen.push_back(powers[i]);
  } else {
    // Less than a factor of ~2.5 between lo and hi: linear ticks read better.
    const Axis lin = linear_axis(lo, hi);
    for (const Tick& t : lin.ticks)
      if (t.value > 0 && in_range(t.value)) a.ticks.push_back(t);
    return a;
  }
  for (double v : chosen) a.ticks.push_back({v, tick_label(v, v)});
  return a;
}

bool is_geometric(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  if (xs.size() < 3 || !(xs.front() > 0)) return false;
  const double r = xs[1] / xs[0];
  for (std::size_t i = 1; i + 1 < xs.size(); ++i)
    if (std::fabs(xs[i + 1] / xs[i] - r) > 1e-9 * r) return false;
  return true;
}

}  // namespace mls
