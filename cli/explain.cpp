// explain.cpp — `mls explain FILE NAME`: run the scenario, then evaluate one result again under
// a tracer and print its formula chain and assumptions (interpreter/tooling/explain.hpp).
#include "interpreter/tooling/explain.hpp"

#include <cstdio>

#include "commands.hpp"

namespace mls {

int cmd_explain(const Args& a) {
  auto usage = [](const std::string& msg) {
    std::fprintf(stderr,
                 "mls: %s\nusage: mls explain FILE NAME   (NAME: a shown label, TABLE.COLUMN[KEY=VALUE] or a global)\n",
                 msg.c_str());
    return 64;
  };
  if (a.positional.size() != 3) return usage("explain expects FILE and NAME");
  if (a.format != "text") return usage("explain prints text only, got --format " + a.format);
  if (a.presets.size() > 1) return usage("explain takes one --preset");
  Scenario s;
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
