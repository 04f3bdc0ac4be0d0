// uncertainty.hpp — `mls run --uncertainty N [--seed S]` (docs/uncertainty.md): seeded Monte Carlo
// over the uncertain literals (`x +- d`, `normal(m, s)`, ...). Each sample draws every input once
// from std::mt19937_64 (its output sequence is fixed by the C++ standard) through transforms of
// our own (std:: distributions differ between libraries), re-evaluates every shown value in
// binary64, and reports P10/P50/P90 and the inputs whose draws rank-correlate most with it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "eval.hpp"
#include "interpreter/results/run_result.hpp"
#include "interpreter/semantics/config.hpp"
#include "run_options.hpp"

namespace mls {

// Samples times shown expressions evaluated: a run's Monte Carlo work is bounded up front.
inline constexpr std::size_t kMaxUncertaintyEvaluations = 10'000'000;
inline constexpr std::size_t kMaxDrivers = 3;  // inputs listed under a result

// ---- the sampler (doctest: tests/unit/test_uncertainty.cpp) ----
// A 64-bit draw as a uniform number in (0, 1): the top 52 bits, centred in their interval.
[[nodiscard]] double unit_open(std::uint64_t bits);
// The standard normal quantile (Acklam's rational approximation, |error| < 1.2e-9, refined by
// one Halley step on erfc): one uniform per normal draw, so every input uses one number per sample.
[[nodiscard]] double normal_quantile(double p);
// An uncertain literal's value at uniform u in (0, 1): its distribution's inverse CDF (base units).
[[nodiscard]] double draw_value(const Expr& e, double u);
// The q-quantile of sorted values, linear between order statistics (Hyndman and Fan type 7).
[[nodiscard]] double quantile_sorted(const std::vector<double>& sorted, double q);
// Spearman's rank correlation (average ranks for ties); 0 when either side is constant.
[[nodiscard]] double rank_correlation(const std::vector<double>& x, const std::vector<double>& y);

// Every uncertain literal the run can reach — the program's statements, the prelude's, and the
// values of --set — in a fixed order (file, then offset), with the assumptions that stand for it.
struct UncertainInput {
  const Expr* expr = nullptr;
  std::string name, value;
  std::vector<AtomId> atoms;  // its own atom, and the atom of a `set` whose value holds it
};
[[nodiscard]] std::vector<UncertainInput> uncertain_inputs(const Program& p, const Config& cfg);

// The draws of N samples: draws[k][j] is input j in sample k. Sample k uses the generator's
// outputs k*J .. k*J+J-1 (J inputs), in input order.
[[nodiscard]] std::vector<std::vector<double>> draw_samples(const std::vector<UncertainInput>& in, std::size_t n,
                                                            std::uint64_t seed);

// The Monte Carlo of one run: every sample's value of each shown expression, computed up front
// (a sample's draws reach every global, so samples go outermost), then a Spread per shown value.
class MonteCarlo {
 public:
  struct Item {
    const Expr* expr;
    int nslots;
  };
  MonteCarlo(Program& p, const Config& cfg, std::vector<Item> items, std::size_t n, std::uint64_t seed,
             std::uint64_t max_steps);
  [[nodiscard]] std::size_t input_count() const { return inputs_.size(); }
  // The spreads of item i's shown values (one per leaf, in expand order: record fields depth
  // first, lists skipped); nullopt for a value that depends on no uncertain input. Throws the
  // first sample's error if the item failed in one.
  [[nodiscard]] std::vector<std::optional<Spread>> spreads(std::size_t i, const std::vector<Shown>& shown) const;

 private:
  Program& p_;
  std::vector<UncertainInput> inputs_;
  std::vector<std::vector<double>> draws_;                // [sample][input]
  std::vector<std::vector<std::vector<double>>> values_;  // [item][leaf][sample]
  std::vector<std::optional<Diagnostic>> errors_;         // [item]
  std::size_t n_ = 0;
  std::uint64_t seed_ = 0;
};

}  // namespace mls
