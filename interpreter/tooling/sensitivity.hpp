// sensitivity.hpp — `mls sensitivity FILE RESULT`: how much one result moves with each assumption
// it depends on (issue #18 item 2). A numeric assumption is scaled by −step and +step through the
// `--set` mechanism (the same names and precedence as the command line) and the result evaluated
// again; a convention is switched to each of its other choices. The ranking says which input to
// pin down first. Method and limits: docs/sensitivity.md.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core.hpp"
#include "interpreter/report/tornado.hpp"
#include "interpreter/results/run_result.hpp"

namespace mls {

// A convention switched to one other choice: the result then, or why it could not be evaluated.
struct SensitivitySwitch {
  std::string choice;
  std::optional<double> value;  // base units
  std::string why;
};

struct SensitivityEntry {
  bool convention = false;
  std::string source;  // the assumption's kind: "registry", "default", "set", "convention"
  std::string name;    // "H100.peak", "mtbf_model"
  std::string value;   // as written ("989 TFLOP/s"); several settings of one name joined by "; "
  std::string at;      // file:line of the first
  // A setting: the factors applied (1 − step and 1 + step, or the ratios of the neighbouring
  // whole numbers when `whole`) and the result under each, in base units.
  double f_down = 0, f_up = 0;
  std::optional<double> down, up;
  std::optional<double> elasticity;  // d ln result / d ln input, central difference
  bool whole = false;                // a count written as a whole number: moved to whole numbers
  std::string down_text, up_text;    // the values set ("7", "(989 TFLOP/s) * 0.9")
  // The one-sided slopes disagree (a regime changes between the two moves, a max() flips, a
  // count stops dividing): the elasticity is an average over a kink, not a local derivative.
  bool uneven = false;
  std::string choice;                       // a convention: its current choice
  std::vector<SensitivitySwitch> switches;  // ... and the result under each other one
  std::string skipped;                      // why the input could not be moved ("" if it was)
};

struct Sensitivity {
  std::string name;                       // as found: "scale.tokens_per_s[gpus=1024]"
  std::string what;                       // where it is shown (explain's description)
  double base = 0;                        // the result, base units
  std::string shown;                      // the result in its display unit: "998333 s^-1"
  Display display;                        // how the result is shown
  double step = 0.1;                      // relative change of each input
  std::vector<SensitivityEntry> entries;  // moved: largest relative change first, then by name
  std::vector<SensitivityEntry> skipped;  // could not be moved, with the reason, by name
  std::vector<std::string> not_inputs;    // approx / validation notes: not inputs to move

  // The result in its display unit, and the relative change of `v` from the base (nullopt when
  // the base is zero).
  [[nodiscard]] std::string text(double v) const;
  [[nodiscard]] std::optional<double> change(double v) const;
};

// The result `name` (a shown label, TABLE.COLUMN[KEY=VALUE] or a global, as `mls explain`
// accepts) of the run `base` of the core `core`, configured under `sel`. Throws DiagnosticError as
// explain does (name.unknown) and type.mismatch when the result is not a number.
[[nodiscard]] Sensitivity sensitivity(Core& core, const Selection& sel, const RunResult& base, const std::string& name,
                                      const RunOptions& run_opt, double step = 0.1);

// `top`: ranked entries listed at most (the rest are counted); skipped inputs are always listed.
[[nodiscard]] std::string format_sensitivity_text(const Sensitivity& r, std::size_t top);
[[nodiscard]] std::string format_sensitivity_json(const Sensitivity& r, std::size_t top);
// The first `top` ranked entries as the plain bars the report layer draws (`mls report
// --sensitivity`, the Python module's tornado), the rest counted.
[[nodiscard]] Tornado tornado_of(const Sensitivity& r, std::size_t top);

}  // namespace mls
