// sensitivity.cpp — each assumption of one result moved through the `--set` / `--use` mechanism
// (configure()), the result evaluated again as `mls explain` finds it, and the moves ranked.
// Every variant is a transaction on the session (rerun.hpp).
#include "sensitivity.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "explain.hpp"
#include "grammar/symbols.hpp"
#include "interpreter/results/format.hpp"
#include "rerun.hpp"

namespace mls {

namespace {

// A value an assumption list prints that scales as a number: "50000 h", "0.5", "-3", "70.6e9".
bool numeric_text(const std::string& v) {
  if (v.empty()) return false;
  const char c = v[0];
  return (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '+';
}

// A count written as a whole number of at least 2 ("8", "2_048"): moving it by 10 % would make
// a fraction of a GPU or a layer, so it moves to whole numbers instead. 0 and 1 are left to the
// fractional rule (they are as often shares and factors as counts).
std::optional<double> whole_number(const std::string& v) {
  std::string digits;
  for (char c : v) {
    if (c == '_') continue;
    if (c < '0' || c > '9') return std::nullopt;
    digits += c;
  }
  if (digits.empty() || digits.size() > 15) return std::nullopt;  // 15 digits: exact in binary64
  const double x = std::stod(digits);
  return x >= 2 ? std::optional<double>(x) : std::nullopt;
}

// A literal whose number is 0 ("0", "0 s", "0.0"): scaling leaves it where it is.
bool zero_text(const std::string& v) {
  std::string t;
  for (char c : v)
    if (c != '_') t += c;
  char* end = nullptr;
  const double x = std::strtod(t.c_str(), &end);
  return end != t.c_str() && x == 0;
}

std::string factor_text(double f) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.15g", f);
  return buf;
}

[[noreturn]] void not_a_number(const Explanation& ex, const Value& v) {
  Diagnostic d;
  d.kind = ErrorKind::type_mismatch;
  d.span = ex.span;
  const char* what = v.k == Value::K::boolean ? "true/false"
                     : v.k == Value::K::str   ? "text"
                     : v.k == Value::K::list  ? "a list"
                                              : "a record";
  d.message = "'" + ex.name + "' is " + what + ", not a number: sensitivity ranks what moves a number";
  d.help.push_back(
      "name a numeric result: a shown value, TABLE.COLUMN[KEY=VALUE] or a global (a record's field: "
      "show it, then name the label)");
  throw DiagnosticError{std::move(d)};
}

// Elasticity of one side: ln slope when both values are positive, else the relative slope
// (d result / result) / (d input / input) — defined for negative results too.
double one_side(double r0, double r, double f) {
  if (r0 > 0 && r > 0) return std::log(r / r0) / std::log(f);
  return (r - r0) / (r0 * (f - 1));
}

void move_setting(SensitivityEntry& e, Rerun& mover, const Selection& sel, double base, double step,
                  bool reads_itself) {
  // How the input is scaled: a literal is replaced by itself times the factor where it is written
  // (`--set H100.peak=(989 TFLOP/s) * 0.9`, unit kept); a value set by an expression that reads
  // its own earlier value is scaled on top of every setting (`--set a=a * 0.9`).
  const auto whole = reads_itself ? std::nullopt : whole_number(e.value);
  auto text = [&](double f, bool up) -> std::string {
    if (whole) {
      const double x = *whole;
      const double n = up ? std::max(x + 1, std::round(x * f)) : std::min(x - 1, std::round(x * f));
      (up ? e.f_up : e.f_down) = n / x;
      return factor_text(n);
    }
    (up ? e.f_up : e.f_down) = f;
    return reads_itself ? e.name + " * " + factor_text(f) : "(" + e.value + ") * " + factor_text(f);
  };
  e.whole = whole.has_value();
  e.down_text = text(1 - step, false);
  e.up_text = text(1 + step, true);
  std::string why;
  auto moved = [&](const std::string& value) {
    Selection vs = sel;
    vs.sets.emplace_back(e.name, value);
    return mover.value(vs, why);
  };
  e.down = moved(e.down_text);
  if (e.down) e.up = moved(e.up_text);
  if (!e.down || !e.up) {
    e.down.reset();
    e.up.reset();
    e.skipped = why;
    return;
  }
  if (base == 0) return;  // no relative change of a zero result
  if (base > 0 && *e.down > 0 && *e.up > 0)
    e.elasticity = (std::log(*e.up) - std::log(*e.down)) / (std::log(e.f_up) - std::log(e.f_down));
  else
    e.elasticity = (*e.up - *e.down) / (base * (e.f_up - e.f_down));
  const double lo = one_side(base, *e.down, e.f_down), hi = one_side(base, *e.up, e.f_up);
  // A quarter apart (and more than a rounding's worth): not the smooth curve a derivative assumes.
  e.uneven = std::abs(hi - lo) > 0.02 && std::abs(hi - lo) > 0.25 * std::max(std::abs(hi), std::abs(lo));
}

double weight(const SensitivityEntry& e, double base) {
  const double scale = base == 0 ? 1 : std::abs(base);
  double w = 0;
  if (e.down) w = std::max(w, std::abs(*e.down - base));
  if (e.up) w = std::max(w, std::abs(*e.up - base));
  for (const auto& c : e.switches)
    if (c.value) w = std::max(w, std::abs(*c.value - base));
  return w / scale;
}

}  // namespace

std::string Sensitivity::text(double v) const { return value_with_unit(Value::number(Num::of_double(v)), display); }

std::optional<double> Sensitivity::change(double v) const {
  if (base == 0) return std::nullopt;
  return (v - base) / std::abs(base);
}

Sensitivity sensitivity(Core& core, const Selection& sel, const RunResult& base, const std::string& name,
                        const RunOptions& run_opt, double step) {
  Session& s = core.session();
  const Config& cfg = *core.config();
  Sensitivity r;
  r.step = step;
  // The result as the run has it, with its assumptions (explain's lookup and messages).
  Value v;
  ExplainOptions eo;
  eo.max_depth = 1;
  eo.value = &v;
  const Explanation ex = explain(s.prog, s.ck, cfg, base, name, run_opt, eo);
  if (v.k != Value::K::num) not_a_number(ex, v);
  r.name = ex.name;
  r.what = ex.what;
  r.base = v.n.d;
  r.shown = ex.value;
  r.display = ex.display;
  Rerun mover(core, base, name, run_opt);
  // One entry per name: a parameter set in the scenario and again on the command line is one input.
  std::map<std::string, std::vector<const AssumptionView*>> settings;
  std::vector<std::string> order;
  for (const auto& a : ex.assumptions) {
    if (a.kind == AssumptionKind::approx || a.kind == AssumptionKind::validation) {
      r.not_inputs.push_back(std::string(kind_name(a.kind)) + " " + a.name);
      continue;
    }
    if (a.kind != AssumptionKind::convention) {
      if (settings[a.name].empty()) order.push_back(a.name);
      settings[a.name].push_back(&a);
      continue;
    }
    SensitivityEntry e;
    e.convention = true;
    e.source = kind_name(a.kind);
    e.name = a.name;
    e.value = a.value;
    e.choice = a.value;
    e.at = a.at;
    const int ci = s.prog.convention_index(intern(a.name));
    if (ci < 0) continue;
    for (const auto& ch : s.prog.conventions[static_cast<std::size_t>(ci)].stmt->choices) {
      SensitivitySwitch sw;
      sw.choice = sym_name(ch.name);
      if (sw.choice == a.value) continue;
      Selection vs = sel;
      vs.uses.emplace_back(a.name, sw.choice);
      sw.value = mover.value(vs, sw.why);
      e.switches.push_back(std::move(sw));
    }
    r.entries.push_back(std::move(e));
  }
  for (const auto& n : order) {
    const auto& group = settings[n];
    SensitivityEntry e;
    e.source = kind_name(group[0]->kind);
    e.name = n;
    e.at = group[0]->at;
    for (const auto* a : group) e.value += (e.value.empty() ? "" : "; ") + a->value;
    // Several settings of one name, or one that reads the name: the final value is scaled.
    const bool reads_itself = group.size() > 1 || mentions_name(group[0]->value, n);
    const Decl* root = s.prog.lookup(intern(n.substr(0, n.find('.'))));
    if (reads_itself && (!root || root->kind != RefKind::global))
      e.skipped = "set by an expression of itself, and not a global that can be scaled";
    else if (!reads_itself && !numeric_text(group[0]->value))
      e.skipped = "not a number";
    else if (!reads_itself && zero_text(group[0]->value))
      e.skipped = "0: scaling leaves it at 0";
    else
      move_setting(e, mover, sel, r.base, step, reads_itself);
    (e.skipped.empty() ? r.entries : r.skipped).push_back(std::move(e));
  }
  std::stable_sort(r.entries.begin(), r.entries.end(), [&](const SensitivityEntry& a, const SensitivityEntry& b) {
    const double wa = weight(a, r.base), wb = weight(b, r.base);
    if (wa != wb) return wa > wb;
    return a.name < b.name;
  });
  return r;
}

}  // namespace mls
