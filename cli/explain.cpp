// explain.cpp — `mls explain FILE NAME`: run the scenario, then evaluate one result again under
// a tracer and print its formula chain and assumptions (interpreter/tooling/explanation.hpp).
#include <cstdio>

#include "commands.hpp"
#include "interpreter/tooling/explanation.hpp"

namespace mls {

int cmd_explain(const Args& a) {
  if (a.positional.size() != 3) return usage_error(a, "explain expects FILE and NAME");
  Scenario s(core_options());
  if (!s.prepare(a.positional[1])) return report(s);
  if (const int rc = refuse_output_over_input(a, s)) return rc;
  const auto r = s.run(selection_of(a), a.run);
  if (!r) return report(s);
  const auto e = s.explain(*r, a.positional[2], a.run);
  if (!e) return report(s);
  if (const int rc = refuse_output_over_input(a, s)) return rc;  // with what the run read (traces)
  return emit(a, format_explanation(*e));
}

}  // namespace mls
