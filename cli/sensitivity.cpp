// sensitivity.cpp — `mls sensitivity FILE NAME [--top K] [--format text|json]`: run the scenario,
// then move each assumption of one result and rank the moves (interpreter/tooling/sensitivity.hpp).
#include "interpreter/tooling/sensitivity.hpp"

#include <cstdio>

#include "commands.hpp"

namespace mls {

int cmd_sensitivity(const Args& a) {
  if (a.positional.size() != 3) return usage_error(a, "sensitivity expects FILE and NAME");
  Scenario s(core_options());
  if (!s.prepare(a.positional[1])) return report(s);
  if (const int rc = refuse_output_over_input(a, s)) return rc;
  const Selection sel = selection_of(a);
  const auto r = s.run(sel, a.run);
  if (!r) return report(s);
  const auto sens = s.sensitivity(sel, *r, a.positional[2], a.run);
  if (!sens) return report(s);
  if (const int rc = refuse_output_over_input(a, s)) return rc;  // with what the runs read (traces)
  return emit(a, a.format == "json" ? format_sensitivity_json(*sens, a.top) : format_sensitivity_text(*sens, a.top));
}

}  // namespace mls
