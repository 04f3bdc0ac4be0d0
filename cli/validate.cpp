// validate.cpp — `mls validate`: every case of the validation set (the lists the registry
// validation_families names, stdlib/validation.mls) under the chosen preset and conventions:
// measured, predicted, error, the error out of sample (the calibration refit without the case's
// source), whether it is within its band, and the assumptions that move the prediction most (each
// convention the case depends on switched to its other choices, each calibration constant moved by
// 10 %); then each domain's band (what a result of that domain carries), the summary and, on
// request, the errors by source (--cross-validate) and the calibration fit (--fit). Exit 0 when
// every case is within its band, 1 otherwise.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "commands.hpp"
#include "interpreter/results/format.hpp"
#include "interpreter/results/grid.hpp"

namespace mls {

namespace {

// The calibration constants `moved most` moves (validation.mls: validation_calibration).
const char* kScenario = R"(sweep calibration over name in validation_calibration {
  show name
}
)";

struct Mover {
  std::string what;   // "attention_count = full", "elementwise_traffic +10 %"
  double effect = 0;  // relative change of the prediction
};

struct Case {
  CaseRow row;
  std::string entry;  // the registry entry it was read for ("serving throughput")
  std::vector<Mover> movers;
};

struct Entry {
  std::string name;
  ValidationTable table;
};

std::string pct(double x, bool sign = false) {
  char b[32];
  std::snprintf(b, sizeof b, sign ? "%+.1f %%" : "%.1f %%", 100 * x);
  return b;
}

std::string num(double x) {
  char b[32];
  std::snprintf(b, sizeof b, std::abs(x) >= 1e4 ? "%.0f" : "%.4g", x);
  return b;
}

std::string jnum(double x) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", x);
  return b;
}

struct Summary {
  std::string family, set;
  std::size_t cases = 0, within = 0;
  double median = 0, max = 0, loso_median = 0, loso_max = 0;
};

// By case family (training, serving, reliability) and set: every expressible case, the fit set,
// the held-out set.
std::vector<Summary> summarize(const std::vector<Case>& cases) {
  std::vector<std::string> families;
  for (const auto& c : cases)
    if (std::find(families.begin(), families.end(), c.row.family) == families.end()) families.push_back(c.row.family);
  std::vector<Summary> out;
  for (const auto& f : families)
    for (const char* set : {"all", "fit", "held out"}) {
      Summary s{f, set};
      std::vector<double> errs, loso;
      for (const auto& c : cases) {
        const CaseRow& r = c.row;
        if (r.family != f || !r.expressible || (std::string(set) == "fit" && r.held_out) ||
            (std::string(set) == "held out" && !r.held_out))
          continue;
        errs.push_back(std::abs(r.error));
        loso.push_back(std::abs(r.loso_error));
        s.within += r.within ? 1 : 0;
      }
      if (errs.empty()) continue;
      s.cases = errs.size();
      s.median = median_of(errs);
      s.max = *std::max_element(errs.begin(), errs.end());
      s.loso_median = median_of(loso);
      s.loso_max = *std::max_element(loso.begin(), loso.end());
      out.push_back(s);
    }
  return out;
}

// The assumptions that move each case most: conventions in its provenance switched to every other
// choice, calibration constants (the stdlib's list) moved by +10 %. A variant is evaluated only for
// the registry entries with a case that depends on it (provenance is complete: a case that does not
// depend on an assumption does not move with it).
bool attribute(Scenario& s, const Selection& base, std::vector<Case>& cases,
               const std::vector<std::string>& calibration) {
  struct Variant {
    Selection sel;
    std::string what;
    std::set<std::string> entries;
  };
  std::map<std::string, Variant> variants;
  std::map<std::string, std::string> current;  // convention -> choice
  for (const auto& c : cases)
    for (const Assumption& as : s.assumptions_in(c.row.deps)) {
      if (as.kind == AssumptionKind::convention) {
        current[as.name] = as.value;
        for (const auto& other : s.convention_choices(as.name)) {
          if (other == as.value) continue;
          Variant& v = variants[as.name + " = " + other];
          if (v.what.empty()) {
            v.sel = base;
            v.sel.uses.emplace_back(as.name, other);
            v.what = as.name + " = " + other;
          }
          v.entries.insert(c.entry);
        }
      }
      if (std::find(calibration.begin(), calibration.end(), as.name) != calibration.end()) {
        Variant& v = variants["~" + as.name];  // after the conventions, as before
        if (v.what.empty()) {
          v.sel = base;
          v.sel.sets.emplace_back(as.name, "(" + as.value + ") * 1.1");
          v.what = as.name + " +10 %";
        }
        v.entries.insert(c.entry);
      }
    }
  for (const auto& [key, v] : variants) {
    for (const auto& entry : v.entries) {
      const auto t = s.validation(v.sel, entry, ValidationDepth::cases);
      if (!t) return false;
      std::map<std::string, double> moved;
      for (const CaseRow& r : t->cases) moved[r.id] = r.predicted;
      for (auto& c : cases) {
        if (c.entry != entry || !c.row.expressible) continue;
        auto it = moved.find(c.row.id);
        if (it == moved.end() || c.row.predicted == 0) continue;
        const double e = it->second / c.row.predicted - 1;
        if (std::abs(e) > 5e-4) c.movers.push_back({v.what, e});
      }
    }
  }
  for (auto& c : cases) {
    std::stable_sort(c.movers.begin(), c.movers.end(),
                     [](const Mover& a, const Mover& b) { return std::abs(a.effect) > std::abs(b.effect); });
    if (c.movers.size() > 3) c.movers.resize(3);
  }
  return true;
}

// "0.93 (measured 0.88)": the utilisation a latency case ran at, or "-".
std::string utilization_text(const CaseRow& c) {
  if (c.utilization <= 0) return "-";
  char b[64];
  std::snprintf(b, sizeof b, "%.2f (measured %.2f)", c.utilization, c.utilization_measured);
  return b;
}

std::string movers_text(const Case& c) {
  std::string t;
  for (const auto& m : c.movers) t += (t.empty() ? "" : "; ") + m.what + ": " + pct(m.effect, true);
  return t.empty() ? "-" : t;
}

std::string ok_text(const CaseRow& r) {
  if (!r.expressible) return "not expressible: " + r.reason;
  return r.within ? "yes" : (r.fits ? "NO" : "NO (does not fit)");
}

// Rows as aligned text: `right` says which columns are right-aligned (never the header); the last
// column is not padded.
std::string grid(const TextRows& rows, const std::vector<bool>& right) {
  return aligned_text(rows, GridStyle{.indent = "  ", .gap = " ", .right = right, .trim = true});
}

std::string validated_text(const DomainStats& d) {
  if (d.validated) return "yes";
  return "no (" + std::to_string(d.cases) + " from " + std::to_string(d.sources) + ")";
}

struct BySource {
  std::string entry, source;
  std::size_t cases = 0;
  double median = 0, loso_median = 0, loso_max = 0;
};

std::vector<BySource> by_source(const std::vector<Entry>& entries) {
  std::vector<BySource> out;
  for (const Entry& e : entries) {
    if (e.table.fit.empty()) continue;
    std::vector<std::string> order;
    std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> errs;
    for (const CaseRow& r : e.table.cases) {
      if (!r.expressible) continue;
      if (!errs.count(r.source_key)) order.push_back(r.source_key);
      errs[r.source_key].first.push_back(std::abs(r.error));
      errs[r.source_key].second.push_back(std::abs(r.loso_error));
    }
    for (const auto& s : order) {
      const auto& [in, lo] = errs[s];
      out.push_back({e.name, s, in.size(), median_of(in), median_of(lo), *std::max_element(lo.begin(), lo.end())});
    }
  }
  return out;
}

// Leave-one-domain-out median per domain (validated domains of a fitted family).
std::map<std::string, double> lodo_medians(const ValidationTable& t) {
  std::map<std::string, std::vector<double>> v;
  for (const CaseRow& r : t.cases)
    if (r.expressible && r.lodo) v[r.domain.key()].push_back(std::abs(r.lodo_error));
  std::map<std::string, double> out;
  for (const auto& [k, e] : v) out[k] = median_of(e);
  return out;
}

std::string coverage_text(const std::vector<Case>& cases) {
  std::size_t n = 0, ne = 0;
  std::set<std::string> sources;
  for (const auto& c : cases) {
    ++n;
    ne += c.row.expressible ? 0 : 1;
    sources.insert(c.row.source_key);
  }
  std::string s = "coverage: " + std::to_string(n) + " published cases from " + std::to_string(sources.size()) +
                  " sources; " + std::to_string(n - ne) + " expressible";
  if (ne) s += ", " + std::to_string(ne) + " not expressible (no error: what mls cannot model yet, listed above)";
  return s + "\n";
}

std::string outside_text(const std::vector<Case>& cases) {
  std::size_t outside = 0;
  for (const auto& c : cases) outside += c.row.within ? 0 : 1;
  return outside == 0 ? "every case is within its band\n"
                      : std::to_string(outside) + " of " + std::to_string(cases.size()) +
                            " cases are outside their band (docs/validation.md says why)\n";
}

std::string render_text(const std::vector<Entry>& entries, const std::vector<Case>& cases,
                        const std::vector<Summary>& sums, const RunResult& head, const Args& a) {
  std::string out =
      "mls " + std::string(kVersion) + " · validate · preset " + head.preset + " (" + head.preset_via.text() + ")\n";
  for (const Entry& e : entries) {
    const bool util = std::any_of(cases.begin(), cases.end(),
                                  [&](const Case& c) { return c.entry == e.name && c.row.utilization > 0; });
    std::vector<std::vector<std::string>> rows = {{"id", "set", "domain", "metric", "measured", "predicted", "error",
                                                   "out of sample", "band", "ok", "moved most"}};
    if (util) rows[0].insert(rows[0].end() - 1, "load / capacity");
    for (const auto& c : cases) {
      if (c.entry != e.name) continue;
      const CaseRow& r = c.row;
      const bool x = r.expressible;
      rows.push_back({r.id, r.held_out ? "held out" : "fit", r.domain.text(), r.metric, num(r.measured),
                      x ? num(r.predicted) : "-", x ? pct(r.error, true) : "-", x ? pct(r.loso_error, true) : "-",
                      pct(r.band), ok_text(r), movers_text(c)});
      if (util) rows.back().insert(rows.back().end() - 1, utilization_text(r));
    }
    out += "\n" + e.name + "\n" +
           grid(rows, {false, false, false, false, true, true, true, true, true, false, false, false});
  }
  const bool cross = a.has(Flag::cross_validate);
  out +=
      "\ndomains (the band a result of each domain carries: the 90th percentile |error| out of sample; a domain "
      "needs " +
      std::to_string(kMinDomainCases) + " cases from " + std::to_string(kMinDomainSources) + " sources)\n";
  std::vector<std::vector<std::string>> rows = {{"family", "domain", "cases", "sources", "median |error|",
                                                 "out of sample", "max out of sample", "band", "validated"}};
  if (cross) rows[0].insert(rows[0].end() - 1, "without the domain");
  for (const Entry& e : entries) {
    const auto lodo = lodo_medians(e.table);
    for (const DomainStats& d : domain_stats(e.table)) {
      rows.push_back({e.name, d.domain, std::to_string(d.cases), std::to_string(d.sources), pct(d.median),
                      pct(d.loso_median), pct(d.loso_max), "±" + pct(d.band), validated_text(d)});
      if (cross) rows.back().insert(rows.back().end() - 1, lodo.count(d.key) ? pct(lodo.at(d.key)) : "-");
    }
  }
  out += grid(rows, {false, false, true, true, true, true, true, true, true, false});
  if (cross) {
    out += "\nby source (out of sample: the calibration refit without the source, its cases evaluated at the refit)\n";
    std::vector<std::vector<std::string>> s = {
        {"family", "source", "cases", "median |error|", "out of sample", "max out of sample"}};
    for (const auto& b : by_source(entries))
      s.push_back({b.entry, b.source, std::to_string(b.cases), pct(b.median), pct(b.loso_median), pct(b.loso_max)});
    out += grid(s, {false, false, true, true, true, true});
  }
  out += "\nsummary (|error| = |predicted / measured - 1|; out of sample: leave one source out)\n";
  std::vector<std::vector<std::string>> srows = {
      {"family", "set", "cases", "median |error|", "max |error|", "out of sample", "within band"}};
  for (const auto& s : sums)
    srows.push_back({s.family, s.set, std::to_string(s.cases), pct(s.median), pct(s.max), pct(s.loso_median),
                     std::to_string(s.within) + " of " + std::to_string(s.cases)});
  out += grid(srows, {false, false, true, true, true, true, true});
  out += "\n" + coverage_text(cases);
  if (a.has(Flag::fit))
    for (const Entry& e : entries) {
      if (e.table.fit.empty()) continue;
      char b[200];
      std::snprintf(b, sizeof b,
                    "\nfit of %s (least squares on the log errors of the fit set; %zu iteration%s): sum of squared log "
                    "errors %.6f committed, %.6f at the optimum\n",
                    e.name.c_str(), e.table.fit_iterations, e.table.fit_iterations == 1 ? "" : "s", e.table.loss,
                    e.table.fitted_loss);
      out += b;
      std::vector<std::vector<std::string>> f = {
          {"constant", "committed", "optimum", "change", "bounds", "uninformed, takes", "fit cases informing it"}};
      for (const FitConstant& k : e.table.fit) {
        std::string names;
        for (const auto& n : k.names) names += (names.empty() ? "" : ", ") + n;
        f.push_back({names, num(k.value), k.pinned ? "(set)" : num(k.fitted),
                     k.pinned ? "-" : pct(k.fitted / k.value - 1, true), num(k.lower) + " to " + num(k.upper),
                     k.near.empty() ? "null " + num(k.null) : k.near, std::to_string(k.informed_by.size())});
      }
      out += grid(f, {false, true, true, true, false, false, true});
    }
  return out + "\n" + outside_text(cases);
}

// The tables of the text output as markdown (docs/validation.md's results are this output, checked
// by ctest docs/validation_results); --cross-validate adds the refits without each domain and the
// errors by source, as in text.
std::string render_md(const std::vector<Entry>& entries, const std::vector<Case>& cases,
                      const std::vector<Summary>& sums, bool cross) {
  std::string out =
      "| id | family | set | source | system | domain | metric | measured | predicted | error | out of sample | within "
      "band | load / capacity | moved most |\n";
  out += "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& c : cases) {
    const CaseRow& r = c.row;
    const bool x = r.expressible;
    out += "| " + md_escape(r.id) + " | " + c.entry + " | " + (r.held_out ? "held out" : "fit") + " | " +
           md_escape(r.source) + " | " + md_escape(r.system) + " | " + md_escape(r.domain.text()) + " | " + r.metric +
           " | " + num(r.measured) + " | " + (x ? num(r.predicted) : "-") + " | " + (x ? pct(r.error, true) : "-") +
           " | " + (x ? pct(r.loso_error, true) : "-") + " | " +
           (x ? (r.within ? "yes" : "no") : md_escape("not expressible: " + r.reason)) + " | " + utilization_text(r) +
           " | " + md_escape(movers_text(c)) + " |\n";
  }
  out += std::string("\n| family | domain | cases | sources | median abs. error | out of sample | band | ") +
         (cross ? "without the domain | " : "") + "validated |\n|---|---|---|---|---|---|---|---|" +
         (cross ? "---|" : "") + "\n";
  for (const Entry& e : entries) {
    const auto lodo = lodo_medians(e.table);
    for (const DomainStats& d : domain_stats(e.table))
      out += "| " + e.name + " | " + md_escape(d.domain) + " | " + std::to_string(d.cases) + " | " +
             std::to_string(d.sources) + " | " + pct(d.median) + " | " + pct(d.loso_median) + " | ±" + pct(d.band) +
             " | " + (cross ? (lodo.count(d.key) ? pct(lodo.at(d.key)) : "-") + " | " : "") + validated_text(d) +
             " |\n";
  }
  if (cross) {
    out +=
        "\n| family | source | cases | median abs. error | out of sample | max out of sample |\n"
        "|---|---|---|---|---|---|\n";
    for (const auto& b : by_source(entries))
      out += "| " + b.entry + " | " + md_escape(b.source) + " | " + std::to_string(b.cases) + " | " + pct(b.median) +
             " | " + pct(b.loso_median) + " | " + pct(b.loso_max) + " |\n";
  }
  out +=
      "\n| family | set | cases | median abs. error | max abs. error | out of sample | within band |\n"
      "|---|---|---|---|---|---|---|\n";
  for (const auto& s : sums)
    out += "| " + s.family + " | " + s.set + " | " + std::to_string(s.cases) + " | " + pct(s.median) + " | " +
           pct(s.max) + " | " + pct(s.loso_median) + " | " + std::to_string(s.within) + " |\n";
  return out + "\n" + coverage_text(cases) + "\n" + outside_text(cases);
}

std::string json_domain(const CaseDomain& d, const std::string& metric) {
  return "{\"accelerator\": " + json_string(d.accelerator) + ", \"generation\": " + json_string(d.generation) +
         ", \"vendor\": " + json_string(d.vendor) + ", \"moe\": " + (d.moe ? "true" : "false") +
         ", \"precision\": " + json_string(d.precision) + ", \"framework\": " + json_string(d.framework) +
         ", \"scale\": " + json_string(d.scale) + ", \"metric\": " + json_string(metric) +
         ", \"text\": " + json_string(d.text()) + "}";
}

std::string render_json(const std::vector<Entry>& entries, const std::vector<Case>& cases,
                        const std::vector<Summary>& sums, const RunResult& head) {
  std::string out =
      "{\"mls\": " + json_string(kVersion) + ", \"preset\": " + json_string(head.preset) + ", \"conventions\": {";
  for (std::size_t i = 0; i < head.conventions.size(); ++i)
    out += (i ? ", " : "") + json_string(head.conventions[i].first) + ": " + json_string(head.conventions[i].second);
  out += "},\n \"cases\": [";
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const CaseRow& r = c.row;
    out += std::string(i ? ",\n  " : "\n  ") + "{\"id\": " + json_string(r.id) +
           ", \"family\": " + json_string(r.family) + ", \"band_family\": " + json_string(c.entry) +
           ", \"source\": " + json_string(r.source) + ", \"source_key\": " + json_string(r.source_key) +
           ", \"system\": " + json_string(r.system) + ", \"metric\": " + json_string(r.metric) +
           ", \"unit\": " + json_string(r.unit) + ", \"domain\": " + json_domain(r.domain, r.metric) +
           ", \"expressible\": " + (r.expressible ? "true" : "false") +
           ", \"reason\": " + (r.expressible ? std::string("null") : json_string(r.reason)) +
           ", \"measured\": " + jnum(r.measured) + ", \"predicted\": " + jnum(r.predicted) +
           ", \"error\": " + jnum(r.error) + ", \"loso_error\": " + jnum(r.loso_error) +
           ", \"lodo_error\": " + (r.lodo ? jnum(r.lodo_error) : std::string("null")) + ", \"band\": " + jnum(r.band) +
           ", \"within_band\": " + (r.within ? "true" : "false") +
           ", \"held_out\": " + (r.held_out ? "true" : "false") + ", \"fits\": " + (r.fits ? "true" : "false") +
           ", \"utilization\": " +
           (r.utilization > 0
                ? "{\"predicted\": " + jnum(r.utilization) + ", \"measured\": " + jnum(r.utilization_measured) + "}"
                : std::string("null")) +
           ", \"moved_most\": [";
    for (std::size_t j = 0; j < c.movers.size(); ++j)
      out += (j ? ", " : "") + std::string("{\"assumption\": ") + json_string(c.movers[j].what) +
             ", \"change\": " + jnum(c.movers[j].effect) + "}";
    out += "]}";
  }
  out += "\n ],\n \"domains\": [";
  bool first = true;
  for (const Entry& e : entries)
    for (const DomainStats& d : domain_stats(e.table)) {
      out += std::string(first ? "\n  " : ",\n  ") + "{\"family\": " + json_string(e.name) +
             ", \"domain\": " + json_string(d.domain) + ", \"cases\": " + std::to_string(d.cases) +
             ", \"sources\": " + std::to_string(d.sources) + ", \"median_abs_error\": " + jnum(d.median) +
             ", \"max_abs_error\": " + jnum(d.max) + ", \"loso_median_abs_error\": " + jnum(d.loso_median) +
             ", \"loso_max_abs_error\": " + jnum(d.loso_max) + ", \"band\": " + jnum(d.band) +
             ", \"validated\": " + (d.validated ? "true" : "false") + "}";
      first = false;
    }
  out += "\n ],\n \"summary\": [";
  for (std::size_t i = 0; i < sums.size(); ++i) {
    const Summary& s = sums[i];
    out += std::string(i ? ",\n  " : "\n  ") + "{\"family\": " + json_string(s.family) +
           ", \"set\": " + json_string(s.set) + ", \"cases\": " + std::to_string(s.cases) +
           ", \"median_abs_error\": " + jnum(s.median) + ", \"max_abs_error\": " + jnum(s.max) +
           ", \"loso_median_abs_error\": " + jnum(s.loso_median) + ", \"loso_max_abs_error\": " + jnum(s.loso_max) +
           ", \"within_band\": " + std::to_string(s.within) + "}";
  }
  out += "\n ],\n \"fit\": [";
  first = true;
  for (const Entry& e : entries)
    for (const FitConstant& k : e.table.fit) {
      std::string names;
      for (const auto& n : k.names) names += (names.empty() ? "" : ", ") + json_string(n);
      out += std::string(first ? "\n  " : ",\n  ") + "{\"family\": " + json_string(e.name) + ", \"names\": [" + names +
             "], \"committed\": " + jnum(k.value) + ", \"optimum\": " + jnum(k.fitted) +
             ", \"lower\": " + jnum(k.lower) + ", \"upper\": " + jnum(k.upper) + ", \"near\": " + json_string(k.near) +
             ", \"null\": " + jnum(k.null) + ", \"pinned\": " + (k.pinned ? "true" : "false") +
             ", \"informed_by\": " + std::to_string(k.informed_by.size()) +
             ", \"iterations\": " + std::to_string(e.table.fit_iterations) +
             ", \"loss_committed\": " + jnum(e.table.loss) + ", \"loss_optimum\": " + jnum(e.table.fitted_loss) + "}";
      first = false;
    }
  return out + "\n ]}\n";
}

std::string text_of(const Value& v) { return v.k == Value::K::str ? v.str() : ""; }

}  // namespace

int cmd_validate(const Args& a) {
  if (a.positional.size() != 1) return usage_error(a, "validate takes no FILE (it runs the stdlib's validation set)");
  Scenario s(core_options());
  if (!s.prepare("<validate>", std::string(kScenario))) return report(s);
  Selection sel = selection_of(a);
  sel.validation_summaries = false;  // the cases are what is being measured here
  RunOptions opt = a.run;
  opt.progress = false;
  auto head = s.run(sel, opt);
  if (!head || s.diagnostics().has_errors() || head->tables.size() != 1) return report(s);
  std::vector<std::string> calibration;
  for (const Row& row : head->tables[0].rows) calibration.push_back(text_of(row.cells[0]));
  const auto names = s.validation_families(sel);
  if (s.diagnostics().has_errors()) return report(s);
  const ValidationDepth depth = a.has(Flag::fit) ? ValidationDepth::fitted : ValidationDepth::cross_validated;
  std::vector<Entry> entries;
  std::vector<Case> cases;
  std::set<std::string> seen;  // a case read for two entries (a list shared by families) is listed once
  for (const auto& name : names) {
    auto t = s.validation(sel, name, depth);
    if (!t) return report(s);
    for (const CaseRow& r : t->cases)
      if (seen.insert(r.id).second) cases.push_back({r, name, {}});
    entries.push_back({name, std::move(*t)});
  }
  if (!attribute(s, sel, cases, calibration)) return report(s);
  const auto sums = summarize(cases);
  const std::string text = a.format == "json" ? render_json(entries, cases, sums, *head)
                           : a.format == "md" ? render_md(entries, cases, sums, a.has(Flag::cross_validate))
                                              : render_text(entries, cases, sums, *head, a);
  if (const int rc = emit(a, text)) return rc;
  for (const auto& c : cases)
    if (!c.row.within) return 1;
  return 0;
}

}  // namespace mls
