// validation_table.cpp — bands per domain from a validation table: which cases a result's domain
// has, whether they are enough, the nearest validated domain when they are not, and the text of
// the `validation` assumption (the rules: docs/validation.md, "Bands per domain").
#include "validation_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace mls {

std::string CaseDomain::text() const {
  if (accelerator.empty()) return "every case";
  return accelerator + (moe ? " MoE " : " dense ") + precision;
}

std::string CaseDomain::key() const { return accelerator + "|" + (moe ? "moe" : "dense") + "|" + precision; }

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double band_of(std::vector<double> e) {
  if (e.empty()) return 0;
  std::sort(e.begin(), e.end());
  // Nearest rank: the smallest value with at least 90 % of the errors at or below it.
  const auto rank = static_cast<std::size_t>(std::ceil(0.9 * static_cast<double>(e.size())));
  return e[std::max<std::size_t>(rank, 1) - 1];
}

namespace {

std::string pct(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f %%", 100 * x);
  return b;
}

bool counts(const CaseRow& c) { return c.expressible; }

struct Group {
  CaseDomain domain;
  std::vector<const CaseRow*> cases;
  std::set<std::string> sources;
  [[nodiscard]] bool validated() const {
    return cases.size() >= kMinDomainCases && sources.size() >= kMinDomainSources;
  }
  [[nodiscard]] std::vector<double> loso() const {
    std::vector<double> v;
    for (const CaseRow* c : cases) v.push_back(std::abs(c->loso_error));
    return v;
  }
  [[nodiscard]] std::vector<double> in_sample() const {
    std::vector<double> v;
    for (const CaseRow* c : cases) v.push_back(std::abs(c->error));
    return v;
  }
};

// The expressible cases grouped by domain key, in order of first appearance.
std::vector<Group> groups_of(const ValidationTable& t) {
  std::vector<Group> out;
  std::map<std::string, std::size_t> at;
  for (const CaseRow& c : t.cases) {
    if (!counts(c)) continue;
    const std::string k = c.domain.key();
    auto it = at.find(k);
    if (it == at.end()) {
      it = at.emplace(k, out.size()).first;
      out.push_back(Group{c.domain, {}, {}});
    }
    out[it->second].cases.push_back(&c);
    out[it->second].sources.insert(c.source_key);
  }
  return out;
}

// How far a validated domain is from the one wanted: a different vendor weighs most, then the
// generation, MoE against dense, the accelerator itself, the precision class.
int distance(const CaseDomain& a, const CaseDomain& b) {
  return 8 * (a.vendor != b.vendor) + 4 * (a.generation != b.generation) + 3 * (a.moe != b.moe) +
         2 * (a.accelerator != b.accelerator) + 1 * (a.precision != b.precision);
}

std::string runs(const ValidationTable& t, std::size_t n) {
  const bool training = t.family == "training";
  return std::to_string(n) + (training ? (n == 1 ? " run" : " runs") : (n == 1 ? " measurement" : " measurements"));
}

std::string sources_text(std::size_t n) { return std::to_string(n) + (n == 1 ? " source" : " sources"); }

// What moving to a domain never seen costs the family: the 90th percentile |error| of the validated
// domains' cases when the calibration is refit without each whole domain; a family without fitted
// constants has no refit, and its spread is the 90th percentile |error| over all its cases.
double transfer_spread(const ValidationTable& t, const std::vector<Group>& gs) {
  std::vector<double> lodo;
  for (const Group& g : gs)
    if (g.validated())
      for (const CaseRow* c : g.cases)
        if (c->lodo) lodo.push_back(std::abs(c->lodo_error));
  if (!lodo.empty()) return band_of(lodo);
  std::vector<double> all;
  for (const CaseRow& c : t.cases)
    if (counts(c)) all.push_back(std::abs(c.loso_error));
  return band_of(all);
}

}  // namespace

DomainBand domain_band(const ValidationTable& t, const CaseDomain* want) {
  DomainBand out;
  const auto gs = groups_of(t);
  std::vector<double> all_loso, all_in;
  std::set<std::string> all_sources;
  std::size_t n = 0;
  for (const CaseRow& c : t.cases)
    if (counts(c)) {
      all_loso.push_back(std::abs(c.loso_error));
      all_in.push_back(std::abs(c.error));
      all_sources.insert(c.source_key);
      ++n;
    }
  if (n == 0) {
    out.text = "no published " + t.family + " cases; `mls validate`";
    out.domain = "none";
    return out;
  }
  const bool fitted = !t.fit.empty();
  const std::string oos = fitted ? " out of sample (leave one source out)" : "";
  if (!want || want->accelerator.empty()) {
    out.domain = "all " + t.family + " cases";
    out.band = band_of(all_loso);
    out.text = "every domain: median |error| " + pct(median_of(all_loso)) + oos +
               (fitted ? ", " + pct(median_of(all_in)) + " in sample" : "") + ", max " +
               pct(*std::max_element(all_loso.begin(), all_loso.end())) + " over " + runs(t, n) + " from " +
               sources_text(all_sources.size()) + "; band ±" + pct(out.band) + "; `mls validate`";
    return out;
  }
  out.domain = want->text();
  const Group* own = nullptr;
  for (const Group& g : gs)
    if (g.domain.key() == want->key()) own = &g;
  if (own && own->validated()) {
    const auto l = own->loso();
    out.band = band_of(l);
    out.text = out.domain + ": median |error| " + pct(median_of(l)) + oos +
               (fitted ? ", " + pct(median_of(own->in_sample())) + " in sample" : "") + ", max " +
               pct(*std::max_element(l.begin(), l.end())) + " over " + runs(t, own->cases.size()) + " from " +
               sources_text(own->sources.size()) + "; band ±" + pct(out.band) + "; `mls validate`";
    return out;
  }
  out.extrapolated = true;
  const std::string why =
      own ? "only " + runs(t, own->cases.size()) + " from " + sources_text(own->sources.size()) + " on " + out.domain +
                " (a domain needs " + std::to_string(kMinDomainCases) + " from " + std::to_string(kMinDomainSources) +
                ")"
          : "no validated " + std::string(t.family == "training" ? "run" : "measurement") + " on " + out.domain;
  const Group* nearest = nullptr;
  for (const Group& g : gs) {
    if (!g.validated()) continue;
    if (!nearest) {
      nearest = &g;
      continue;
    }
    const int d = distance(g.domain, *want), dn = distance(nearest->domain, *want);
    if (d < dn || (d == dn && g.cases.size() > nearest->cases.size())) nearest = &g;
  }
  if (!nearest) {
    out.band = 2 * band_of(all_loso);
    out.text = "extrapolated: " + why + ", and no domain of " + t.family + " is validated; band ±" + pct(out.band) +
               " (twice the 90th percentile |error| of all " + runs(t, n) + "); `mls validate`";
    return out;
  }
  const double near_band = band_of(nearest->loso());
  const double spread = transfer_spread(t, gs);
  out.band = near_band + spread;
  // The domain's own few cases, where it has some, bound the band from below: an extrapolation is
  // never narrower than what was measured there.
  double own_max = 0;
  if (own)
    for (const double e : own->loso()) own_max = std::max(own_max, e);
  const bool by_own = own_max > out.band;
  out.band = std::max(out.band, own_max);
  out.text = "extrapolated: " + why + "; nearest validated: " + nearest->domain.text() + " (band ±" + pct(near_band) +
             " over " + runs(t, nearest->cases.size()) + " from " + sources_text(nearest->sources.size()) +
             "), widened by ±" + pct(spread) +
             (fitted ? ", the error of refitting without a whole domain" : ", the family's spread over all its cases") +
             (by_own ? ", and at least its own cases' largest error, " + pct(own_max) : std::string()) + "; band ±" +
             pct(out.band) + "; `mls validate`";
  return out;
}

std::vector<DomainStats> domain_stats(const ValidationTable& t) {
  std::vector<DomainStats> out;
  const auto gs = groups_of(t);
  for (const Group& g : gs) {
    DomainStats s;
    s.domain = g.domain.text();
    s.key = g.domain.key();
    s.cases = g.cases.size();
    s.sources = g.sources.size();
    const auto in = g.in_sample();
    const auto lo = g.loso();
    s.median = median_of(in);
    s.max = *std::max_element(in.begin(), in.end());
    s.loso_median = median_of(lo);
    s.loso_max = *std::max_element(lo.begin(), lo.end());
    s.band = band_of(lo);
    for (const CaseRow* c : g.cases) s.within += c->within ? 1 : 0;
    s.validated = g.validated();
    out.push_back(s);
  }
  for (const CaseRow& c : t.cases)
    if (!c.expressible)
      for (auto& s : out)
        if (s.key == c.domain.key()) ++s.not_expressible;
  return out;
}

}  // namespace mls
