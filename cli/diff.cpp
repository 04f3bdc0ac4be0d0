// diff.cpp — `mls diff`: evaluate a scenario twice (other choices, other presets, or another
// file), each side a full Scenario, and print what moved and why (interpreter/results/diff.hpp).
#include <cstdio>
#include <string_view>

#include "diff_run.hpp"
#include "interpreter/results/format.hpp"

namespace mls {

namespace {

std::string flags_text(const std::vector<std::pair<std::string, std::string>>& uses,
                       const std::vector<std::pair<std::string, std::string>>& sets) {
  std::string s;
  for (const auto& [n, c] : uses) s += " --use " + n + "=" + c;
  for (const auto& [n, v] : sets) s += " --set " + n + "=" + v;
  return s;
}

// Diagnostics of one side; the side is named when its own choices may be the cause.
int side_error(DiffRunSide& side, const char* which, bool name_it) {
  if (name_it) {
    const std::string how = side.label + (side.sel.preset ? " --preset " + *side.sel.preset : "");
    std::fprintf(stderr, "mls: the %s side of the diff (%s) cannot be evaluated:\n", which, how.c_str());
  }
  return report(side.s);
}

}  // namespace

int run_diff(const Args& a, const char* cmd, DiffRun& out) {
  const std::vector<std::string> files(a.positional.begin() + 1, a.positional.end());
  if (files.empty() || files.size() > 2)
    return usage_error(a, std::string(cmd) + " expects one FILE or two files, got " + std::to_string(files.size()));
  const bool two_presets = a.presets.size() == 2;
  if (files.size() == 1 && !two_presets && a.uses.empty() && a.sets.empty())
    return usage_error(a, "nothing to compare: give --use/--set for the right side, two --preset, or two files");

  out.left = std::make_unique<DiffRunSide>();
  out.right = std::make_unique<DiffRunSide>();
  DiffRunSide* left = out.left.get();
  DiffRunSide* right = out.right.get();
  left->file = files.front();
  right->file = files.back();
  // Which selection each side gets. With one file and no second preset, --use/--set make the
  // right side and the left is the scenario as written; otherwise they apply to both sides.
  const bool right_only = files.size() == 1 && !two_presets;
  for (DiffRunSide* s : {left, right}) {
    const bool is_left = s == left;
    if (two_presets)
      s->sel.preset = a.presets[is_left ? 0 : 1];
    else if (!a.presets.empty())
      s->sel.preset = a.presets[0];
    if (!right_only || !is_left) {
      s->sel.uses = a.uses;
      s->sel.sets = a.sets;
    }
    s->label = s->file + flags_text(s->sel.uses, s->sel.sets);
  }

  // Everything that can be checked is checked before either side evaluates anything.
  if (!left->s.prepare(left->file)) return side_error(*left, "left", false);
  if (!right->s.prepare(right->file)) return side_error(*right, "right", false);
  for (DiffRunSide* s : {left, right})
    if (const int rc = refuse_output_over_input(a, s->s)) return rc;
  for (DiffRunSide* s : {left, right})
    if (!s->s.configure(s->sel)) return side_error(*s, s == left ? "left" : "right", true);
  for (DiffRunSide* s : {left, right}) {
    s->run = s->s.run(a.run);
    if (!s->run) return side_error(*s, s == left ? "left" : "right", true);
  }

  out.report = compare(ComparedSide{&left->s, &*left->run, left->file, left->label},
                       ComparedSide{&right->s, &*right->run, right->file, right->label});
  return 0;
}

int cmd_diff(const Args& a) {
  DiffRun d;
  if (const int rc = run_diff(a, "diff", d)) return rc;
  // With several causes, how much each explains: re-runs of the left side (docs/diff.md).
  if (!d.left->s.split_changes(d.left->sel, *d.left->run, a.run, d.report)) return report(d.left->s);
  const std::string text = a.format == "json" ? format_diff_json(d.report) : format_diff_text(d.report);
  for (const DiffRunSide* s : {d.left.get(), d.right.get()})  // with what the runs read (traces)
    if (const int rc = refuse_output_over_input(a, s->s)) return rc;
  if (const int rc = emit(a, text)) return rc;
  return d.report.differs() ? 1 : 0;
}

}  // namespace mls
