// axis.hpp — chart axes: the range a set of values needs, "nice" tick positions (1, 2, 5 x 10^k
// steps on a linear axis; powers of ten, or 1-2-5 within a decade, on a log axis), tick labels,
// and whether a sweep's x values are geometric (a constant ratio), which makes the x axis log.
// Pure arithmetic on doubles: the SVG and terminal renderers both place things with it.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace mls {

struct Tick {
  double value = 0;
  std::string label;  // "0.5", "1000", "1e+06", "2.5k" is not used: labels are plain numbers
};

struct Axis {
  double lo = 0, hi = 1;  // the visible range (for a log axis: positive, lo < hi)
  bool log = false;
  std::vector<Tick> ticks;
  // Position of v along the axis, 0 at lo and 1 at hi (outside [0, 1] when v is outside).
  [[nodiscard]] double frac(double v) const;
};

// A range around a single value v (10 % of it either side, 1 around 0), inside binary64.
[[nodiscard]] std::pair<double, double> around(double v);

// Position of v between lo and hi (0 at lo, 1 at hi), also when hi - lo overflows binary64.
[[nodiscard]] double fraction(double v, double lo, double hi);

// A linear axis covering [lo, hi] extended to multiples of a nice step, with about `target`
// ticks. lo == hi gets a unit-wide range around the value. Any finite ends work, also
// -1e308..1e308 (no tick or end beyond the largest binary64). Non-finite inputs are the
// caller's error (they never reach here: the values come from checked finite numbers).
[[nodiscard]] Axis linear_axis(double lo, double hi, int target = 5);

// A log-10 axis covering [lo, hi] (both > 0), widened to whole decades when the span is a
// decade or more; ticks at powers of ten (every k-th when there are many decades), or at
// 1-2-5 multiples when the range lies within about a decade.
[[nodiscard]] Axis log_axis(double lo, double hi);

// The tick step a linear axis uses for a range: 1, 2 or 5 times a power of ten.
[[nodiscard]] double nice_step(double range, int target);

// The label of a tick value: shortest text that tells neighbouring ticks apart (the step says
// how many decimals), in exponent form beyond 1e6 or below 1e-4.
[[nodiscard]] std::string tick_label(double v, double step);

// True when `xs` (sorted or not, repeats allowed) has at least three distinct values, all
// positive, whose consecutive ratios are equal (to 1e-9 relative): 64, 128, 256, ... A log axis
// makes such a sweep's points evenly spaced.
[[nodiscard]] bool is_geometric(std::vector<double> xs);

}  // namespace mls
