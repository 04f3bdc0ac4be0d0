// rerun.hpp — one result of a run evaluated again under another selection (a `--set` or `--use`
// added), as a transaction on the session: shared by `mls sensitivity` (each input moved) and
// `mls diff` (each differing assumption switched to the other side's value, one at a time).
#pragma once

#include <optional>
#include <string>

#include "driver.hpp"  // Session, Program, Checker
#include "interpreter/results/run_result.hpp"

namespace mls {

// Does `text` name `name` as a whole word? A setting's text that reads a name (`set a = 2 * a`,
// `set b = a / 2`) depends on that name's value where it is evaluated.
[[nodiscard]] bool mentions_name(const std::string& text, const std::string& name);

class Rerun {
 public:
  // `name` is a result as `mls explain` accepts it (a shown label, TABLE.COLUMN[KEY=VALUE] or a
  // global) in the run `base` of the session core `core`.
  Rerun(Core& core, const RunResult& base, const std::string& name, const RunOptions& opt)
      : core_(core), base_(base), name_(name), opt_(opt) {}

  // The result under `sel`, in base units; nullopt and `why` when the selection cannot be
  // configured or the result is not a finite number under it. Each is a transaction of the core,
  // rolled back afterwards, so a variant's parsed `--set` text never outlives it and the next
  // variant starts from the run's state. Ctrl-C (interrupted) is rethrown after the rollback.
  std::optional<double> value(const Selection& sel, std::string& why);
  // The same, as the evaluator returns it (an exact rational where the run keeps one).
  std::optional<Num> number(const Selection& sel, std::string& why);

 private:
  [[nodiscard]] std::string first_error(std::size_t from) const;

  Core& core_;
  const RunResult& base_;
  const std::string& name_;
  const RunOptions& opt_;
};

}  // namespace mls
