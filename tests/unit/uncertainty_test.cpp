// uncertainty_test.cpp — the Monte Carlo of --uncertainty: the generator's stream (pinned by the
// C++ standard), our distribution transforms (moments within sampling tolerance), percentiles,
// rank correlation, and whole runs: the same seed gives the same spreads, another seed others.
#include "interpreter/runtime/uncertainty.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "harness.hpp"

using namespace mls;

namespace {

ExprP number(double v) {
  auto e = std::make_unique<Expr>();
  e->kind = EK::num;
  e->si = Num::of_double(v);
  e->si_ready = true;
  return e;
}

Expr dist(Dist d, std::vector<double> params, bool relative = false) {
  Expr e;
  e.kind = EK::uncertain;
  e.dist = d;
  e.bval = relative;
  for (double p : params) e.kids.push_back(number(p));
  return e;
}

struct Moments {
  double mean = 0, var = 0;
};
Moments moments(const Expr& e, std::size_t n) {
  std::mt19937_64 g(42);
  double s = 0, s2 = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = draw_value(e, unit_open(g()));
    s += x;
    s2 += x * x;
  }
  const double m = s / static_cast<double>(n);
  return {m, s2 / static_cast<double>(n) - m * m};
}

std::optional<RunResult> run(const std::string& text, std::size_t samples, std::uint64_t seed, Harness& s) {
  REQUIRE(prepare(s, "main.mls", text));
  RunOptions opt;
  opt.uncertainty = samples;
  opt.seed = seed;
  return execute(s, Selection{}, opt);
}

}  // namespace

TEST_CASE("the generator is std::mt19937_64, whose stream the standard fixes") {
  std::mt19937_64 g;  // default seed 5489: the 10000th output is given in [rand.predef]
  g.discard(9999);
  CHECK(g() == 9981545732273789042ULL);
}

TEST_CASE("uniforms lie strictly inside (0, 1)") {
  CHECK(unit_open(0) == 0x1.0p-53);
  CHECK(unit_open(~0ULL) < 1.0);
  CHECK(unit_open(~0ULL) == 1.0 - 0x1.0p-53);
  CHECK(std::isfinite(normal_quantile(unit_open(~0ULL))));
}

TEST_CASE("the normal quantile is accurate to double precision") {
  CHECK(normal_quantile(0.5) == doctest::Approx(0.0).epsilon(1e-15));
  CHECK(std::abs(normal_quantile(0.975) - 1.959963984540054) < 1e-13);
  CHECK(std::abs(normal_quantile(0.1) + 1.2815515655446004) < 1e-13);
  CHECK(std::abs(normal_quantile(0.9) - 1.2815515655446004) < 1e-13);
  CHECK(std::abs(normal_quantile(1e-10) + 6.361340902404056) < 1e-9);
  CHECK(normal_quantile(unit_open(0)) < -8);  // the extreme draw is finite
}

TEST_CASE("each distribution's draws have its moments") {
  const std::size_t n = 200000;
  auto m = moments(dist(Dist::normal, {10, 2}), n);
  CHECK(m.mean == doctest::Approx(10).epsilon(0.002));
  CHECK(std::sqrt(m.var) == doctest::Approx(2).epsilon(0.01));
  m = moments(dist(Dist::uniform, {2, 6}), n);
  CHECK(m.mean == doctest::Approx(4).epsilon(0.002));
  CHECK(m.var == doctest::Approx(16.0 / 12).epsilon(0.01));
  m = moments(dist(Dist::triangular, {1, 2, 6}), n);
  CHECK(m.mean == doctest::Approx(3).epsilon(0.003));
  CHECK(m.var == doctest::Approx(21.0 / 18).epsilon(0.015));
  m = moments(dist(Dist::lognormal, {3, 0.5}), n);
  CHECK(m.mean == doctest::Approx(3 * std::exp(0.125)).epsilon(0.005));
  // `100 +- 30 %` is uniform on [70, 130]; `100 +- 5` on [95, 105].
  m = moments(dist(Dist::plus_minus, {100, 0.3}, true), n);
  CHECK(m.mean == doctest::Approx(100).epsilon(0.002));
  CHECK(m.var == doctest::Approx(3600.0 / 12).epsilon(0.01));
  m = moments(dist(Dist::plus_minus, {100, 5}), n);
  CHECK(m.var == doctest::Approx(100.0 / 12).epsilon(0.01));
}

TEST_CASE("transforms at fixed uniforms are exact") {
  CHECK(draw_value(dist(Dist::uniform, {2, 6}), 0.25) == 3);
  CHECK(draw_value(dist(Dist::plus_minus, {100, 0.3}, true), 0.5) == 100);
  CHECK(draw_value(dist(Dist::triangular, {1, 2, 6}), 0.2) == doctest::Approx(2));  // F(mode) = 1/5
  CHECK(draw_value(dist(Dist::lognormal, {3, 0.5}), 0.5) == doctest::Approx(3));
  CHECK(draw_value(dist(Dist::normal, {10, 2}), 0.5) == doctest::Approx(10));
}

TEST_CASE("percentiles interpolate between order statistics (type 7)") {
  const std::vector<double> v = {1, 2, 3, 4};
  CHECK(quantile_sorted(v, 0) == 1);
  CHECK(quantile_sorted(v, 1) == 4);
  CHECK(quantile_sorted(v, 0.5) == 2.5);
  CHECK(quantile_sorted(v, 0.1) == doctest::Approx(1.3));
  CHECK(quantile_sorted({7}, 0.9) == 7);
}

TEST_CASE("rank correlation: monotone, reversed, constant, ties") {
  CHECK(rank_correlation({1, 2, 3, 4}, {10, 100, 1000, 10000}) == doctest::Approx(1));
  CHECK(rank_correlation({1, 2, 3, 4}, {4, 3, 2, 1}) == doctest::Approx(-1));
  CHECK(rank_correlation({1, 2, 3, 4}, {5, 5, 5, 5}) == 0);
  // Ties get the average rank: ranks (1, 2.5, 2.5, 4) against (1, 2, 3, 4).
  CHECK(rank_correlation({1, 2, 2, 3}, {1, 2, 3, 4}) == doctest::Approx(4.5 / std::sqrt(4.5 * 5)));
}

TEST_CASE("a run's spreads are fixed by the seed and follow the draws") {
  const std::string text = "let a = uniform(0 s, 1 s)\nlet b = 1 s +- 1 %\nshow a\nshow t = a + b\nshow c = 2 s\n";
  Harness s1, s2, s3;
  const auto r1 = run(text, 1001, 5, s1);
  const auto r2 = run(text, 1001, 5, s2);
  const auto r3 = run(text, 1001, 6, s3);
  REQUIRE(r1);
  REQUIRE(r2);
  REQUIRE(r3);
  REQUIRE(r1->results.size() == 3);
  CHECK(r1->uncertainty_samples == 1001);
  CHECK(r1->uncertain_inputs == 2);
  const auto& a = r1->results[0].spread;
  REQUIRE(a);
  // Input a is drawn first in each sample (source order), b second: a's draws are every other
  // output of the generator, so its median is the median of those uniforms.
  std::mt19937_64 g(5);
  std::vector<double> us;
  for (int k = 0; k < 1001; ++k) {
    us.push_back(unit_open(g()));
    (void)g();
  }
  std::sort(us.begin(), us.end());
  CHECK(a->p50 == us[500]);
  CHECK(a->p10 == us[100]);
  CHECK(a->p90 == us[900]);
  CHECK(a->drivers.size() == 1);
  CHECK(a->drivers[0].name == "a");
  CHECK(a->drivers[0].rank_correlation == doctest::Approx(1));
  const auto& t = r1->results[1].spread;
  REQUIRE(t);
  // a's spread (1 s) dwarfs b's (0.02 s): b's rank correlation is within sampling noise
  // (|r| < 2/sqrt(1001)), so it is counted, not listed as a driver.
  REQUIRE(t->drivers.size() == 1);
  CHECK(t->drivers[0].name == "a");
  CHECK(t->within_noise == 1);
  CHECK(t->noise_threshold == doctest::Approx(2 / std::sqrt(1001.0)));
  CHECK_FALSE(r1->results[2].spread);  // depends on no uncertain input
  CHECK(r2->results[1].spread->p50 == t->p50);
  CHECK(r2->results[1].spread->p10 == t->p10);
  CHECK(r3->results[1].spread->p50 != t->p50);
  // Without --uncertainty: the nominal values (the centres).
  Harness s4;
  REQUIRE(prepare(s4, "main.mls", text));
  const auto r4 = execute(s4, Selection{}, RunOptions{});
  REQUIRE(r4);
  CHECK(r4->results[0].value.n.d == 0.5);
  CHECK(r4->results[1].value.n.d == 1.5);
  CHECK_FALSE(r4->results[0].spread);
}
