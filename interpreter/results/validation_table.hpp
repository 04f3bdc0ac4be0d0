// validation_table.hpp — the validation set as data: each published case with its domain, its
// in-sample and leave-one-source-out errors, and the calibration fit behind them. The runtime
// fills it (runtime/validation.cpp); `mls validate` and the bands results carry read it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "interpreter/semantics/deps.hpp"

namespace mls {

// Where a case was measured (stdlib/validation.mls: training_domain, case_domain): the part that
// selects a result's band is the accelerator, dense or MoE and the precision class; generation
// and vendor choose the nearest validated domain; framework and scale are descriptive.
struct CaseDomain {
  std::string accelerator, generation, vendor, precision, framework, scale;
  bool moe = false;
  // "H100 SXM dense fp8": the band's domain as text (accelerator, dense/MoE, precision).
  [[nodiscard]] std::string text() const;
  // The key results and cases are matched on (accelerator, MoE, precision).
  [[nodiscard]] std::string key() const;
};

struct CaseRow {
  std::string id, family, quantity, source, source_key, system, metric, unit;
  bool held_out = false, fits = true, within = true;
  bool expressible = true;  // false: a published configuration mls cannot express (`reason` says why)
  std::string reason;
  double measured = 0, predicted = 0, band = 0, error = 0;
  double utilization = 0, utilization_measured = 0;  // serving latency cases
  CaseDomain domain;
  DepSet deps = 0;  // of the prediction (the evaluator's provenance; 0 when read from the cache)
  // The error when the calibration is refit without the case's source (= error when no fitted
  // constant moves: a family without a fit, a source the fit never read).
  double loso_error = 0;
  // The error when the calibration is refit without the case's whole domain (validated domains of
  // a fitted family only; = loso_error otherwise): what extrapolating to a new domain costs.
  double lodo_error = 0;
  bool lodo = false;  // lodo_error was computed by a refit without the domain
  // Where the case was read: the index of its list among the family's lists and its index in that
  // list (runtime/validation.cpp), so that a refit evaluates only the cases it needs. Not stored.
  std::size_t list_index = 0, item_index = 0;
};

// One fitted constant: its `--set` names (tied), its value under the run's configuration, the
// value the full fit reaches from there (`mls validate --fit`), and the cases that inform it.
struct FitConstant {
  std::vector<std::string> names;
  double value = 0, fitted = 0, lower = 0, upper = 0;
  std::string near;     // the constant it borrows from when no case informs it
  double null = 0;      // its physical null: what it takes when nothing informs it and it borrows nothing
  bool pinned = false;  // set by the configuration: not fitted
  std::vector<std::string> informed_by;  // case ids with a nonzero sensitivity
};

// How much of a table to compute: the cases alone (as a configuration predicts them), with their
// out-of-sample errors (the band's), or also the calibration fit iterated to its optimum.
enum class ValidationDepth { cases, cross_validated, fitted };

struct ValidationTable {
  std::string family;                // the registry entry's name ("training", "serving throughput")
  std::vector<CaseRow> cases;        // every case of the entry's lists whose family and quantity match
  std::vector<FitConstant> fit;      // empty: the family has no fitted constants
  double loss = 0, fitted_loss = 0;  // sum of squared log errors of the fit set: now and at the fit
  std::size_t fit_iterations = 0;
};

// The rule for a validated domain (docs/validation.md): at least this many expressible cases from
// at least this many sources.
inline constexpr std::size_t kMinDomainCases = 3;
inline constexpr std::size_t kMinDomainSources = 2;

// The band of a set of errors: the 90th percentile of their magnitudes (nearest rank), so with
// fewer than 10 cases the largest.
[[nodiscard]] double band_of(std::vector<double> abs_errors);
[[nodiscard]] double median_of(std::vector<double> v);

// The band one domain gets from a table, and the text of its `validation` assumption.
struct DomainBand {
  std::string text;    // the assumption's value
  std::string domain;  // "H100 SXM dense fp8", or "all training cases"
  double band = -1;    // relative half-width; < 0: none (no cases)
  bool extrapolated = false;
};
// `want`: the result's domain (nullptr: a result without one, banded by every case of the family).
[[nodiscard]] DomainBand domain_band(const ValidationTable& t, const CaseDomain* want);

// Per-domain statistics as `mls validate` prints them.
struct DomainStats {
  std::string domain, key;
  std::size_t cases = 0, sources = 0, within = 0, not_expressible = 0;
  double median = 0, max = 0, loso_median = 0, loso_max = 0, band = 0;
  bool validated = false;
};
[[nodiscard]] std::vector<DomainStats> domain_stats(const ValidationTable& t);

}  // namespace mls
