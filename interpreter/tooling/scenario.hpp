// scenario.hpp — the command line's facade (issue #20): one scenario prepared, run under a selection
// and asked about (explain, sensitivity, the listings). The phases are the session core's
// (core.hpp); a Scenario adds the questions asked after a run. A front end holds a Scenario, never
// the Program or the Checker inside it; what went wrong is in diagnostics() as structured
// Diagnostics, drawn over sources().
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core.hpp"
#include "interpreter/results/validation_table.hpp"

namespace mls {

class Diagnostics;
class Sources;
struct Assumption;
struct Diagnostic;
struct DiffReport;
struct Explanation;
struct ReportInfo;
struct Sensitivity;
struct ComparedSide;

class Scenario {
 public:
  // `opt`: the front end's wording and file reader (Core::Options).
  explicit Scenario(Core::Options opt = {});
  ~Scenario();
  Scenario(const Scenario&) = delete;
  Scenario& operator=(const Scenario&) = delete;

  // The prelude alone (`mls conventions`, `mls presets`); false with diagnostics.
  bool load_prelude();
  // The prelude and the scenario at `path` (or `text` under that name), resolved and checked;
  // false with diagnostics.
  bool prepare(const std::string& path, const std::optional<std::string>& text = std::nullopt);
  // Configures `sel` and runs; the configuration is kept for explain and sensitivity. Runtime
  // errors become diagnostics and yield nullopt.
  [[nodiscard]] std::optional<RunResult> run(const Selection& sel, const RunOptions& opt);
  // The same in two steps, for a comparison that checks both sides before either evaluates:
  // configure `sel` (false with diagnostics), then run what was configured.
  bool configure(const Selection& sel);
  [[nodiscard]] std::optional<RunResult> run(const RunOptions& opt);
  // Runs what was configured into `sink`, streamed (`mls run`, `mls merge`): false with the
  // diagnostic of a runtime error. Exceptions of the sink's own (a merge's malformed part) pass.
  [[nodiscard]] bool run(const RunOptions& opt, RunSink& sink);

  // What the results layer's sinks read of this scenario (units, provenance, sources), for a
  // sink a front end makes; valid as long as the Scenario.
  [[nodiscard]] ResultScope scope() const;
  // The names `--table` can select: the scenario's sweeps and searches, then `show`.
  [[nodiscard]] std::vector<std::string> table_names() const;
  // The dependency set of these atoms (ids below scope().deps.atom_count()), interned in this
  // scenario: `mls merge` reads the sets of a part's cells back as atom ids.
  [[nodiscard]] DepSet dep_set(std::vector<AtomId> atoms);

  // After a successful run(): one result's formula chain, or how much it moves with each
  // assumption (`sel` as given to run). An unknown name or a result of the wrong kind adds a
  // diagnostic (name.unknown, type.mismatch) and yields nullopt.
  [[nodiscard]] std::optional<Explanation> explain(const RunResult& r, const std::string& name, const RunOptions& opt);
  [[nodiscard]] std::optional<Sensitivity> sensitivity(const Selection& sel, const RunResult& r,
                                                       const std::string& name, const RunOptions& opt);

  // This scenario as the left side of `d` (run under `sel` to `r`): each cause's share of a value
  // that moved for several (tooling/diff_shares). False on Ctrl-C during the re-runs, with its
  // diagnostic.
  bool split_changes(const Selection& sel, const RunResult& r, const RunOptions& opt, DiffReport& d);

  // `mls report`: the page of run `r` (interpreter/report), which names assumptions and units
  // through the scenario.
  [[nodiscard]] std::string report_html(const RunResult& r, const ReportInfo& info);

  // The assumptions in the dependency set `d` (a value's `deps`), in atom order; and the choices
  // of the convention `name` in declaration order ({} when there is none). For `mls validate`,
  // which moves each case's assumptions to see which matter.
  [[nodiscard]] std::vector<Assumption> assumptions_in(DepSet d) const;
  [[nodiscard]] std::vector<std::string> convention_choices(const std::string& name) const;

  // `mls validate`: the families of the validation registry (stdlib/validation.mls), and the table of
  // one under `sel` (each case with its provenance, its domain and, from depth cross_validated on,
  // its out-of-sample errors). nullopt with diagnostics when `sel` or the cases fail.
  [[nodiscard]] std::vector<std::string> validation_families(const Selection& sel);
  [[nodiscard]] std::optional<ValidationTable> validation(const Selection& sel, const std::string& family,
                                                          ValidationDepth depth);
  // Turns on the on-disk cache of validation tables for this process (runtime/validation.hpp).
  static void enable_validation_cache();

  // `mls conventions` and `mls presets` (tooling/listing).
  [[nodiscard]] std::string conventions_listing() const;
  [[nodiscard]] std::string presets_listing() const;
  // The names of the entries of a stdlib list (`accelerators`: H100, ...) as its declaration
  // writes them, for `mls list`.
  [[nodiscard]] std::vector<std::string> list_entries(const std::string& list) const;

  // Every file read from disk so far (the scenario, its imports, config.json files, request
  // traces read while running), as named when read: what `--out` must never replace.
  [[nodiscard]] std::vector<std::string> inputs() const;

  // A diagnostic of the front end's own (an output over --max-output), reported with the rest.
  void add(Diagnostic d);
  [[nodiscard]] const Diagnostics& diagnostics() const;
  [[nodiscard]] const Sources& sources() const;

 private:
  friend DiffReport compare(const ComparedSide& left, const ComparedSide& right);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One side of a comparison: a scenario after a run, that run, and how it was asked for.
struct ComparedSide {
  Scenario* scenario = nullptr;
  const RunResult* run = nullptr;
  std::string file;   // the scenario as named on the command line
  std::string label;  // "rel.mls --use mtbf_model=gpu_only"
};

// What moved between two runs and why (results/diff): `mls diff`, `mls report` in diff mode.
[[nodiscard]] DiffReport compare(const ComparedSide& left, const ComparedSide& right);

}  // namespace mls
