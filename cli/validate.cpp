// validate.cpp — `mls validate`: every case of the validation set (stdlib/validation.mls) under
// the chosen preset and conventions: measured, predicted, error, whether it is within its band,
// and the assumptions that move the prediction most (each convention the case depends on switched
// to its other choices, each calibration constant moved by 10 %). Exit 0 when every case is within
// its band, 1 otherwise. The cases are evaluated by an ordinary run of a generated scenario.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "commands.hpp"
#include "interpreter/results/format.hpp"

namespace mls {

namespace {

// The serving cases (validation_serving.mls) are a list of their own: validated("training", ...)
// evaluates validation_cases, and a train() result should not wait for serving simulations.
const char* kScenario = R"(sweep validation over c in validation_cases {
  show id = c.id, family = c.family, source = c.source, system = c.system, held_out = c.held_out,
       metric = c.metric, unit_text = c.unit_text, measured = c.measured, predicted = c.predicted,
       band = c.band, fits = c.fits, error = c.error, within = c.within
}
sweep serving_validation over c in serving_validation_cases {
  show id = c.id, family = c.family, source = c.source, system = c.system, held_out = c.held_out,
       metric = c.metric, unit_text = c.unit_text, measured = c.measured, predicted = c.predicted,
       band = c.band, fits = c.fits, error = c.error, within = c.within, utilization = c.utilization,
       utilization_measured = c.utilization_measured
}
sweep calibration over name in validation_calibration {
  show name
}
)";

// Column order of the case tables (kScenario); the serving table adds the utilisation columns.
enum Col : std::size_t {
  id,
  family,
  source,
  system_,
  held_out,
  metric,
  unit,
  measured,
  predicted,
  band,
  fits,
  error_,
  within_,
  utilization,
  utilization_measured
};

struct Mover {
  std::string what;   // "attention_count = full", "elementwise_traffic +10 %"
  double effect = 0;  // relative change of the prediction
};

struct Case {
  std::string id, family, source, system, metric, unit;
  bool held_out = false, fits = true;
  double measured = 0, predicted = 0, band = 0;
  // The case's error and band verdict, as stdlib/validation.mls computes them (case_error,
  // within_band): the one rule the `validation` assumption reads too.
  double error = 0;
  bool within = false;
  // A serving latency case: load / capacity of the serving system, predicted and as the source's
  // own numbers imply (validation_serving.mls); 0 for every other case.
  double utilization = 0, utilization_measured = 0;
  DepSet deps = 0;
  std::vector<Mover> movers;
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

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Summary {
  std::string family, set;
  std::size_t cases = 0, within = 0;
  double median = 0, max = 0;
};

std::vector<Summary> summarize(const std::vector<Case>& cases) {
  std::vector<std::string> families;
  for (const auto& c : cases)
    if (std::find(families.begin(), families.end(), c.family) == families.end()) families.push_back(c.family);
  std::vector<Summary> out;
  for (const auto& f : families)
    for (const char* set : {"all", "fit", "held out"}) {
      Summary s{f, set};
      std::vector<double> errs;
      for (const auto& c : cases) {
        if (c.family != f || (std::string(set) == "fit" && c.held_out) ||
            (std::string(set) == "held out" && !c.held_out))
          continue;
        errs.push_back(std::abs(c.error));
        s.within += c.within ? 1 : 0;
      }
      if (errs.empty()) continue;
      s.cases = errs.size();
      s.median = median(errs);
      s.max = *std::max_element(errs.begin(), errs.end());
      out.push_back(s);
    }
  return out;
}

std::string text_of(const Value& v) { return v.k == Value::K::str ? v.str() : ""; }

struct Evaluated {
  std::vector<Case> cases;
  std::vector<std::string> calibration;
  RunResult run;  // preset and conventions of the run (tables as collected)
};

// Runs the generated scenario under `sel`: the cases (first two tables) and the calibration names.
std::optional<Evaluated> evaluate(Scenario& s, const Selection& sel, const RunOptions& opt) {
  auto r = s.run(sel, opt);
  if (!r || r->tables.size() != 3) return std::nullopt;
  std::vector<Case> cases;
  std::vector<const Row*> rows;
  for (std::size_t t = 0; t < 2; ++t)
    for (const Row& row : r->tables[t].rows) rows.push_back(&row);
  for (const Row* rowp : rows) {
    const Row& row = *rowp;
    const auto& c = row.cells;
    Case k;
    k.id = text_of(c[id]);
    k.family = text_of(c[family]);
    k.source = text_of(c[source]);
    k.system = text_of(c[system_]);
    k.held_out = c[held_out].b;
    k.metric = text_of(c[metric]);
    k.unit = text_of(c[unit]);
    k.measured = c[measured].n.d;
    k.predicted = c[predicted].n.d;
    k.deps = c[predicted].deps;
    k.band = c[band].n.d;
    k.fits = c[fits].b;
    k.error = c[error_].n.d;
    k.within = c[within_].b;
    if (c.size() > utilization_measured) {
      k.utilization = c[utilization].n.d;
      k.utilization_measured = c[utilization_measured].n.d;
    }
    cases.push_back(std::move(k));
  }
  std::vector<std::string> calibration;
  for (const Row& row : r->tables[2].rows) calibration.push_back(text_of(row.cells[0]));
  return Evaluated{std::move(cases), std::move(calibration), std::move(*r)};
}

// The assumptions that move each case most: conventions in its provenance switched to every other
// choice, calibration constants (the stdlib's list) moved by +10 %.
bool attribute(Scenario& s, const Selection& base, const RunOptions& opt, std::vector<Case>& cases,
               const std::vector<std::string>& calibration) {
  std::map<std::string, std::string> conventions;  // name -> current choice
  std::map<std::string, std::string> values;       // calibration name -> its literal text
  for (const auto& c : cases)
    for (const Assumption& as : s.assumptions_in(c.deps)) {
      if (as.kind == AssumptionKind::convention) conventions[as.name] = as.value;
      if (std::find(calibration.begin(), calibration.end(), as.name) != calibration.end()) values[as.name] = as.value;
    }
  auto apply = [&](const Selection& sel, const std::string& what) {
    auto r = evaluate(s, sel, opt);
    if (!r) return false;
    for (std::size_t i = 0; i < cases.size() && i < r->cases.size(); ++i) {
      const double e = r->cases[i].predicted / cases[i].predicted - 1;
      if (std::abs(e) > 5e-4) cases[i].movers.push_back({what, e});
    }
    return true;
  };
  for (const auto& [name, choice] : conventions) {
    for (const auto& other : s.convention_choices(name)) {
      if (other == choice) continue;
      Selection sel = base;
      sel.uses.emplace_back(name, other);
      if (!apply(sel, name + " = " + other)) return false;
    }
  }
  for (const auto& [name, text] : values) {
    Selection sel = base;
    sel.sets.emplace_back(name, "(" + text + ") * 1.1");
    if (!apply(sel, name + " +10 %")) return false;
  }
  for (auto& c : cases) {
    std::stable_sort(c.movers.begin(), c.movers.end(),
                     [](const Mover& a, const Mover& b) { return std::abs(a.effect) > std::abs(b.effect); });
    if (c.movers.size() > 3) c.movers.resize(3);
  }
  return true;
}

// "0.93 (measured 0.88)": the utilisation a latency case ran at, or "-".
std::string utilization_text(const Case& c) {
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

std::string pad(std::string s, std::size_t w, bool right = false) {
  if (s.size() >= w) return s;
  return right ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' ');
}

std::string render_text(const std::vector<Case>& cases, const std::vector<Summary>& sums, const RunResult& head) {
  std::string out =
      "mls " + std::string(kVersion) + " · validate · preset " + head.preset + " (" + head.preset_via.text() + ")\n";
  std::vector<std::string> families;
  for (const auto& c : cases)
    if (std::find(families.begin(), families.end(), c.family) == families.end()) families.push_back(c.family);
  for (const auto& f : families) {
    // The utilisation column only where a case of the family has one (the serving latency cases).
    const bool util =
        std::any_of(cases.begin(), cases.end(), [&](const Case& c) { return c.family == f && c.utilization > 0; });
    std::vector<std::vector<std::string>> rows = {
        {"id", "set", "metric", "measured", "predicted", "error", "band", "ok", "moved most"}};
    if (util) rows[0].insert(rows[0].end() - 1, "load / capacity");
    for (const auto& c : cases)
      if (c.family == f) {
        rows.push_back({c.id, c.held_out ? "held out" : "fit", c.metric, num(c.measured), num(c.predicted),
                        pct(c.error, true), pct(c.band), c.within ? "yes" : (c.fits ? "NO" : "NO (does not fit)"),
                        movers_text(c)});
        if (util) rows.back().insert(rows.back().end() - 1, utilization_text(c));
      }
    std::vector<std::size_t> w(rows[0].size(), 0);
    for (const auto& r : rows)
      for (std::size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], r[i].size());
    out += "\n" + f + "\n";
    for (std::size_t j = 0; j < rows.size(); ++j) {
      std::string line = " ";
      for (std::size_t i = 0; i < rows[j].size(); ++i) {
        const bool right = j > 0 && i >= 3 && i <= 6;
        line += " " + (i + 1 == rows[j].size() ? rows[j][i] : pad(rows[j][i], w[i], right));
      }
      out += line + "\n";
    }
  }
  out += "\nsummary (|error| = |predicted / measured - 1|)\n";
  std::vector<std::vector<std::string>> rows = {
      {"family", "set", "cases", "median |error|", "max |error|", "within band"}};
  for (const auto& s : sums)
    rows.push_back({s.family, s.set, std::to_string(s.cases), pct(s.median), pct(s.max),
                    std::to_string(s.within) + " of " + std::to_string(s.cases)});
  std::vector<std::size_t> w(rows[0].size(), 0);
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], r[i].size());
  for (std::size_t j = 0; j < rows.size(); ++j) {
    std::string line = " ";
    for (std::size_t i = 0; i < rows[j].size(); ++i) line += " " + pad(rows[j][i], w[i], j > 0 && i >= 2);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  std::size_t outside = 0;
  for (const auto& c : cases) outside += c.within ? 0 : 1;
  out += outside == 0 ? "\nevery case is within its band\n"
                      : "\n" + std::to_string(outside) + " of " + std::to_string(cases.size()) +
                            " cases are outside their band (docs/validation.md says why)\n";
  return out;
}

std::string md_cell(std::string s) {
  std::string o;
  for (char ch : s) o += ch == '|' ? std::string("\\|") : std::string(1, ch);
  return o;
}

std::string render_md(const std::vector<Case>& cases, const std::vector<Summary>& sums) {
  std::string out =
      "| id | family | set | source | system | metric | measured | predicted | error | within band | load / capacity | "
      "moved most |\n";
  out += "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& c : cases)
    out += "| " + md_cell(c.id) + " | " + c.family + " | " + (c.held_out ? "held out" : "fit") + " | " +
           md_cell(c.source) + " | " + md_cell(c.system) + " | " + c.metric + " | " + num(c.measured) + " | " +
           num(c.predicted) + " | " + pct(c.error, true) + " | " + (c.within ? "yes" : "no") + " | " +
           utilization_text(c) + " | " + md_cell(movers_text(c)) + " |\n";
  out += "\n| family | set | cases | median abs. error | max abs. error | within band |\n|---|---|---|---|---|---|\n";
  for (const auto& s : sums)
    out += "| " + s.family + " | " + s.set + " | " + std::to_string(s.cases) + " | " + pct(s.median) + " | " +
           pct(s.max) + " | " + std::to_string(s.within) + " |\n";
  return out;
}

std::string jnum(double x) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", x);
  return b;
}

std::string render_json(const std::vector<Case>& cases, const std::vector<Summary>& sums, const RunResult& head) {
  std::string out =
      "{\"mls\": " + json_string(kVersion) + ", \"preset\": " + json_string(head.preset) + ", \"conventions\": {";
  for (std::size_t i = 0; i < head.conventions.size(); ++i)
    out += (i ? ", " : "") + json_string(head.conventions[i].first) + ": " + json_string(head.conventions[i].second);
  out += "},\n \"cases\": [";
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    out += std::string(i ? ",\n  " : "\n  ") + "{\"id\": " + json_string(c.id) +
           ", \"family\": " + json_string(c.family) + ", \"source\": " + json_string(c.source) +
           ", \"system\": " + json_string(c.system) + ", \"metric\": " + json_string(c.metric) +
           ", \"unit\": " + json_string(c.unit) + ", \"measured\": " + jnum(c.measured) +
           ", \"predicted\": " + jnum(c.predicted) + ", \"error\": " + jnum(c.error) + ", \"band\": " + jnum(c.band) +
           ", \"within_band\": " + (c.within ? "true" : "false") +
           ", \"held_out\": " + (c.held_out ? "true" : "false") + ", \"fits\": " + (c.fits ? "true" : "false") +
           ", \"utilization\": " +
           (c.utilization > 0
                ? "{\"predicted\": " + jnum(c.utilization) + ", \"measured\": " + jnum(c.utilization_measured) + "}"
                : std::string("null")) +
           ", \"moved_most\": [";
    for (std::size_t j = 0; j < c.movers.size(); ++j)
      out += (j ? ", " : "") + std::string("{\"assumption\": ") + json_string(c.movers[j].what) +
             ", \"change\": " + jnum(c.movers[j].effect) + "}";
    out += "]}";
  }
  out += "\n ],\n \"summary\": [";
  for (std::size_t i = 0; i < sums.size(); ++i) {
    const Summary& s = sums[i];
    out += std::string(i ? ",\n  " : "\n  ") + "{\"family\": " + json_string(s.family) +
           ", \"set\": " + json_string(s.set) + ", \"cases\": " + std::to_string(s.cases) +
           ", \"median_abs_error\": " + jnum(s.median) + ", \"max_abs_error\": " + jnum(s.max) +
           ", \"within_band\": " + std::to_string(s.within) + "}";
  }
  return out + "\n ]}\n";
}

}  // namespace

int cmd_validate(const Args& a) {
  if (a.positional.size() != 1) return usage_error(a, "validate takes no FILE (it runs the stdlib's validation set)");
  Scenario s(core_options());
  if (!s.prepare("<validate>", std::string(kScenario))) return report(s);
  Selection sel = selection_of(a);
  sel.validation_summaries = false;  // the cases are what is being measured here
  RunOptions opt = a.run;
  opt.progress = false;
  auto first = evaluate(s, sel, opt);
  if (!first || s.diagnostics().has_errors()) return report(s);
  std::vector<Case>& cases = first->cases;
  if (!attribute(s, sel, opt, cases, first->calibration)) return report(s);
  const auto sums = summarize(cases);
  const std::string text = a.format == "json" ? render_json(cases, sums, first->run)
                           : a.format == "md" ? render_md(cases, sums)
                                              : render_text(cases, sums, first->run);
  if (const int rc = emit(a, text)) return rc;
  for (const auto& c : cases)
    if (!c.within) return 1;
  return 0;
}

}  // namespace mls
