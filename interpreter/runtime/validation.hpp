// validation.hpp — the validation set under a configuration (runtime/validation.cpp): each
// family's cases read from the lists the registry `validation_families` names, their
// leave-one-source-out errors from refits of the calibration the family declares
// (validation_fit.cpp), kept per process and on disk (validation_store.cpp), and the band
// every validated() result carries for its domain. Method and rules: docs/validation.md.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "interpreter/results/validation_table.hpp"
#include "interpreter/semantics/config.hpp"
#include "interpreter/semantics/program.hpp"

namespace mls {

class Evaluator;

// The names of the registry's families ("training", "serving throughput", ...), in its order.
[[nodiscard]] std::vector<std::string> validation_family_names(Program& p, const Config& cfg);

// The table of family `name` under `cfg`: every case with its error and (from depth
// cross_validated on) its leave-one-source-out error, computed once per process and configuration
// (and read from the disk cache when it holds it); `fitted`: also the calibration fit iterated to its
// optimum (`mls validate --fit`). `with_deps`: evaluate the cases here so that each row carries its
// provenance (`mls validate`). Throws DiagnosticError when the cases fail under the configuration.
[[nodiscard]] std::shared_ptr<const ValidationTable> validation_table(
    Program& p, const Config& cfg, const std::string& name, ValidationDepth depth = ValidationDepth::cross_validated,
    bool with_deps = false);

// The on-disk cache of validation tables (docs/validation.md, "What it costs"): off until a front
// end turns it on. `dir` empty: the default ($MLS_CACHE_DIR, else $XDG_CACHE_HOME/mls, else
// ~/.cache/mls); a directory that cannot be written is used for nothing (tables are computed in
// memory, every run).
void enable_validation_disk_cache(const std::string& dir = "");

// Internals shared by validation.cpp and validation_fit.cpp.
namespace validation_detail {

// The cases of a list cannot be read (a case without its error or verdict): `why`.
struct BadCases {
  std::string why;
};

struct FamilyEntry {
  std::string name, family, quantity, calibration;
  std::vector<std::string> lists;
};

// The registry entry called `name`; nullopt (and `why`) when there is none.
[[nodiscard]] std::optional<FamilyEntry> family_entry(Evaluator& ev, const std::string& name, std::string& why);
// The cases of an entry as an evaluator under some configuration computes them.
[[nodiscard]] std::vector<CaseRow> read_cases(Evaluator& ev, const FamilyEntry& e, bool keep_deps);
// Fills loso_error / lodo_error of `t.cases` (computed by an evaluator under `cfg`) and t.fit from
// the entry's calibration list; `full_fit`: iterate to the optimum.
void cross_validate(Program& p, const Config& cfg, const FamilyEntry& e, ValidationTable& t, bool full_fit);

// Serialised tables (validation_store.cpp): exact round trip of every number.
[[nodiscard]] std::string serialize(const ValidationTable& t);
[[nodiscard]] std::shared_ptr<ValidationTable> deserialize(const std::string& text);
[[nodiscard]] std::optional<std::string> disk_get(const std::string& key);
void disk_put(const std::string& key, const std::string& value);

}  // namespace validation_detail

}  // namespace mls
