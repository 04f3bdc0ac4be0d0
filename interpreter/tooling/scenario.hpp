// scenario.hpp — the command line's facade (issue #20): one scenario prepared (prelude, scenario,
// resolve, check), run under a selection, and asked about (explain, sensitivity, the listings).
// A front end holds a Scenario, never the Program or the Checker inside it; what went wrong is
// in diagnostics() as structured Diagnostics, drawn over sources().
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "interpreter/results/run_result.hpp"

namespace mls {

class Diagnostics;
class Sources;
struct Explanation;
struct RunOptions;
struct Selection;
struct Sensitivity;

class Scenario {
 public:
  Scenario();
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

  // After a successful run(): one result's formula chain, or how much it moves with each
  // assumption (`sel` as given to run). An unknown name or a result of the wrong kind adds a
  // diagnostic (name.unknown, type.mismatch) and yields nullopt.
  [[nodiscard]] std::optional<Explanation> explain(const RunResult& r, const std::string& name, const RunOptions& opt);
  [[nodiscard]] std::optional<Sensitivity> sensitivity(const Selection& sel, const RunResult& r,
                                                       const std::string& name, const RunOptions& opt);

  // `mls conventions` and `mls presets` (tooling/listing).
  [[nodiscard]] std::string conventions_listing() const;
  [[nodiscard]] std::string presets_listing() const;
  // The names of the entries of a stdlib list (`accelerators`: H100, ...) as its declaration
  // writes them, for `mls list`.
  [[nodiscard]] std::vector<std::string> list_entries(const std::string& list) const;

  [[nodiscard]] const Diagnostics& diagnostics() const;
  [[nodiscard]] const Sources& sources() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mls
