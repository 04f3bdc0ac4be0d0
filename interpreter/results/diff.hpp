// diff.hpp — comparing two runs (two convention choices, two presets, two files): which shown
// values and table cells moved, by how much, and which differing assumptions explain each move.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "format.hpp"
#include "run_result.hpp"

namespace mls {

// What a comparison reads of the configuration a side ran under: the assumption atoms it set
// (its convention choices, overrides and printed-name settings) and those of them a later
// setting shadows, which never reach a value. The facade makes it from the side's Config
// (tooling/driver.hpp, configured_atoms), so the results layer needs no Config.
struct ConfiguredAtoms {
  std::set<AtomId> own, dead;
};

// One side of a diff, read through its program's ResultScope. Each side normally has its own
// program (a full Session); the REPL may compare two configs of one program, and then
// `configured` pins which conventions and overrides are this side's.
struct DiffSide {
  ResultScope scope;
  const ConfiguredAtoms* configured = nullptr;  // nullptr: every assumption of the program
  const RunResult* run = nullptr;
  std::string file;   // the scenario as named on the command line
  std::string label;  // how this side was asked for: "rel.mls --use mtbf_model=gpu_only"
};

// An assumption's identity is its kind and name; two sides disagree on it when its value or who
// set it differs, or when only one side has it. Where it was written (`at`) is not compared:
// two files put the same parameter on different lines.
struct AssumptionKey {
  AssumptionKind kind = AssumptionKind::default_;
  std::string name;
  // By the kind's name, then the name (the order comparisons have always listed them in).
  bool operator<(const AssumptionKey& o) const;
  bool operator==(const AssumptionKey& o) const = default;
  [[nodiscard]] std::string text() const { return std::string(kind_name(kind)) + " " + name; }  // "set gpus"
};
using AssumptionMap = std::map<AssumptionKey, AssumptionView>;

// The value each assumption has on one side. Assumptions the outputs depend on (`used`) take
// precedence; the rest of the program's assumptions fill in, later ones (higher precedence:
// a scenario `set` after a preset's) winning.
[[nodiscard]] AssumptionMap effective_assumptions(const ResultScope& p, const ConfiguredAtoms* configured,
                                                  const std::vector<DepSet>& used);
[[nodiscard]] bool assumption_differs(const AssumptionView* left, const AssumptionView* right);

// Attribution of one changed value: the assumptions that differ between the sides and that the
// value depends on (the union of the left sets on the left program, of the right ones on the
// right), in the order assumptions are printed under a result. Validation bands are never causes.
[[nodiscard]] std::vector<AssumptionKey> attribute(const AssumptionMap& lmap, const AssumptionMap& rmap,
                                                   const ResultScope& lp, const std::vector<DepSet>& ldeps,
                                                   const ResultScope& rp, const std::vector<DepSet>& rdeps);
// The dependency sets of a value and of the values inside it (those deep_deps unites), read
// without interning their union: a comparison only reads its sides' provenance.
[[nodiscard]] std::vector<DepSet> deps_within(const Value& v);

struct AssumptionChange {
  AssumptionKey key;
  std::optional<AssumptionView> left, right;  // nullopt: absent on that side
  // Where one side lacks it, the same name there as another kind, if any: `--set local_batch=8`
  // creates `set local_batch` where the left side has the stdlib's `default local_batch`.
  std::optional<AssumptionView> left_other_kind, right_other_kind;
  // Both sides have the same value (as this kind or another): only who set it differs.
  [[nodiscard]] bool same_value() const;
};

// Every assumption the two sides disagree on, in the order assumptions are printed.
[[nodiscard]] std::vector<AssumptionChange> differing_assumptions(const AssumptionMap& lmap, const AssumptionMap& rmap);

enum class DiffStatus { changed, added, removed };  // added: only on the right

// How much of one change each cause explains (filled by interpreter/tooling/diff_shares.hpp): the
// value with that one cause switched from the left's value to the right's, all others as on the
// left, minus the left value. Numbers are in the left's display unit, as `ValueDiff::change`.
struct CauseShare {
  AssumptionKey key;
  std::optional<double> share;     // nullopt: the cause could not be switched alone (`why`)
  std::optional<double> fraction;  // share / change; nullopt when the change is 0
  std::string share_text;          // "+0.798 h", "-3.1 pp"
  std::string why;
};
struct Shares {
  std::vector<CauseShare> causes;  // in the order of `because`
  // change − Σ shares. It is the interaction only when every cause was switched; otherwise it
  // also holds the effect of the causes that could not be.
  double remainder = 0;
  std::optional<double> remainder_fraction;
  std::string remainder_text;
  [[nodiscard]] bool complete() const;  // every cause switched: `remainder` is the interaction
};

// A shown value or a table cell that differs. Numbers are compared at full precision and shown
// in the left side's display unit and resolution; when the two texts would coincide at that
// resolution, more digits are shown (`below_resolution`).
struct ValueDiff {
  DiffStatus status = DiffStatus::changed;
  std::string name;     // result label, or column name for a cell
  std::size_t row = 0;  // cells: index into TableDiff::row_keys
  Value left, right;    // the absent side of an added/removed value is unset
  Display left_display, right_display;
  bool comparable = false;        // numbers of one dimension: change and relative change exist
  bool below_resolution = false;  // the values differ only beyond the shown resolution
  std::string left_text, right_text, change_text, relative_text;
  std::optional<double> change, relative_pct;  // in the display unit; relative to |left|
  std::vector<AssumptionKey> because;
  std::optional<Shares> shares;  // with several causes, each one's share of the change
  std::string shares_skipped;    // why several causes were not split ("" when split or one cause)
};

// A diff lists at most this many changed cells and one-sided rows in all (tables in order, each
// row-major in left order) and counts the rest: a 10^6-point sweep whose 13 columns all moved
// kept 13 million listed cells (16.2 GB, 107 s; issue 38, item 8).
inline constexpr std::size_t kDiffListed = 100000;

struct TableDiff {
  std::string name;
  std::optional<DiffStatus> only;  // set when the table exists on one side only
  std::size_t left_rows = 0, right_rows = 0;
  std::vector<std::string> key_names, right_key_names;  // differ when keys_differ
  std::vector<Display> key_displays, right_key_displays;
  std::vector<std::vector<Value>> row_keys;  // rows referred to by cells, added and removed
  std::vector<bool> row_is_right;            // per row_keys entry: named by the right's keys
  std::vector<std::string> columns_added, columns_removed;
  std::vector<std::size_t> rows_added, rows_removed;  // indices into row_keys (the listed ones)
  std::vector<ValueDiff> cells;                       // changed cells, row-major in left order (listed)
  std::size_t rows_compared = 0, cells_unchanged = 0;
  // Every changed cell and one-sided row, listed or not (kDiffListed).
  std::size_t cells_changed = 0, rows_added_count = 0, rows_removed_count = 0;
  // What the changed cells' attributions add up to: per cause (`because`, in order of first
  // appearance) how many cells of each column it explains, and how many changed per column.
  struct Cause {
    std::vector<AssumptionKey> because;
    std::map<std::string, std::size_t> columns;
  };
  std::vector<Cause> causes;
  std::map<std::string, std::size_t> changed_columns;
  bool keys_differ = false;  // the sweeps range over different variables: rows cannot match
  bool search = false;       // a search: its rows are the best points, so rows may come and go
  [[nodiscard]] bool differs() const;
  [[nodiscard]] std::string row_text(std::size_t row) const;  // "gpus=512"
};

// An assert whose outcome differs between the sides (diff_asserts.cpp). An assert is matched
// by its text and occurrence, as shown values are by label. A sweep's assert reports only the
// points where it fails, so a side with no outcome for it held it at every point (or, for two
// files, may not have it at all): `left`/`right` is then nullopt.
struct AssertSide {
  bool ok = true;
  std::string at;            // "file:line:col"
  std::string detail;        // the first failure's "left: 2.292 h, right: 2 h" or "at gpus = 64"
  bool operands = false;     // the detail names a comparison's operands (AssertOutcome::operands)
  std::size_t failures = 0;  // failing outcomes: points of a sweep, else 0 or 1
};
struct AssertDiff {
  std::string text, message;
  std::optional<AssertSide> left, right;
};

struct DiffReport {
  std::string left_file, right_file, left_label, right_label;
  std::string left_preset, right_preset;
  Via left_preset_via, right_preset_via;
  std::vector<AssumptionChange> assumptions;  // every assumption the sides disagree on
  std::vector<ValueDiff> results;             // changed, removed (left order) and added values
  std::size_t results_unchanged = 0;
  std::vector<TableDiff> tables;        // left order, then tables only on the right
  std::vector<AssertDiff> asserts;      // outcome differs: holds on one side, fails on the other
  std::size_t asserts_failed_both = 0;  // fail on both sides: not a difference, but counted
  [[nodiscard]] bool differs() const;
  [[nodiscard]] std::size_t cells_unchanged() const;
  [[nodiscard]] const AssumptionChange* change_of(const AssumptionKey& k) const;
};

[[nodiscard]] DiffReport diff_runs(const DiffSide& left, const DiffSide& right);

// The asserts of two runs whose outcome differs, and the count of those failing on both sides.
void diff_asserts(const DiffSide& left, const DiffSide& right, DiffReport& d);
// Their renderings: the text section ("" when none) and the JSON array.
[[nodiscard]] std::string format_assert_diffs_text(const DiffReport& d);
[[nodiscard]] std::string format_assert_diffs_json(const DiffReport& d);
// The shares of a changed value or cell: text lines under it, and its JSON `shares` value.
[[nodiscard]] std::string format_shares_text(const ValueDiff& v, const std::string& indent);
[[nodiscard]] std::string format_shares_json(const ValueDiff& v);

// Compares one value on both sides (shared by results, cells and the REPL's `:diff EXPR`);
// nullopt when equal. Attribution is left to the caller.
[[nodiscard]] std::optional<ValueDiff> compare_values(const Value& l, const TypeP& lt, const Display& ld,
                                                      const Value& r, const TypeP& rt, const Display& rd);
[[nodiscard]] bool same_value(const Value& a, const Value& b);
// A difference `dx` (in the display unit of `d`) as `change` prints it: signed, at the display's
// resolution (else 4 significant digits), in `pp` for a value shown in %.
[[nodiscard]] std::string change_in_unit_text(const Num& dx, const Display& d);

// Pieces of the text rendering that other renderings (the report's diff page) show as they are.
[[nodiscard]] std::string assumption_change_text(const AssumptionChange& c);  // "a (default) → b (command line)"
[[nodiscard]] std::string diff_left_text(const ValueDiff& v);                 // "(absent)" for an added value
[[nodiscard]] std::string diff_right_text(const ValueDiff& v);                // "(absent)" for a removed one
[[nodiscard]] std::string diff_change_text(const ValueDiff& v);    // right − left, or "different dimensions"
[[nodiscard]] std::string diff_relative_text(const ValueDiff& v);  // "-1.3 %", "from 0"
[[nodiscard]] std::string diff_note_text(const ValueDiff& v);      // "only on the right", "(below ...)"

// Renderings (diff_format.cpp); the JSON schema is documented in docs/diff.md.
[[nodiscard]] std::string format_diff_text(const DiffReport& d);
[[nodiscard]] std::string format_diff_json(const DiffReport& d);

}  // namespace mls
