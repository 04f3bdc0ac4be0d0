// units.hpp — dimensions (exponent vectors over prelude-declared bases) and the unit table.
// Nothing here knows a unit by name: the prelude (stdlib/units.mls) declares all of them.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "grammar/ast.hpp"
#include "grammar/diagnostic.hpp"
#include "grammar/number.hpp"
#include "grammar/source.hpp"

namespace mls {

inline constexpr int kMaxBaseDims = 16;
// Exponents are stored in sixths so that sqrt (1/2) and cube roots (1/3) stay exact.
inline constexpr int kDimDen = 6;
// Largest exponent magnitude, in sixths (s^5000 is the most a dimension can say).
inline constexpr int kMaxDimExponent = 30000;

struct Dim {
  std::array<std::int16_t, kMaxBaseDims> e{};

  [[nodiscard]] bool none() const {
    for (auto x : e)
      if (x != 0) return false;
    return true;
  }
  [[nodiscard]] bool operator==(const Dim& o) const { return e == o.e; }
  [[nodiscard]] bool operator!=(const Dim& o) const { return e != o.e; }
  // Product and quotient; nullopt if an exponent leaves [-kMaxDimExponent, kMaxDimExponent]
  // (`s^1000 * s^1000 * ...` or a function squaring its argument at every level).
  [[nodiscard]] std::optional<Dim> times(const Dim& o) const;
  [[nodiscard]] std::optional<Dim> over(const Dim& o) const;
  // Raise to num/den; nullopt if an exponent would leave the sixths grid or overflow.
  [[nodiscard]] std::optional<Dim> pow(std::int64_t num, std::int64_t den) const;
  [[nodiscard]] std::size_t hash() const;
};

struct DimensionDef {
  std::string name;
  Dim dim;
  bool base = false;
  std::string description;
  Span decl;
};

struct UnitDef {
  std::string name;
  Num factor;  // value of 1 unit in base units (exact)
  Dim dim;
  std::vector<std::string> prefix_sets;
  std::string description;
  Span decl;
};

struct PrefixSet {
  std::string name;
  std::vector<std::pair<std::string, Num>> prefixes;
  Span decl;
};

struct ResolvedUnit {
  Num factor;
  Dim dim;
};

struct DisplayUnit {
  std::string text;
  Num factor;
};

class UnitTable {
 public:
  // Declarations (from the prelude). Return false on duplicates / overflow of base slots.
  bool add_base_dimension(const std::string& name, std::string description, Span decl);
  bool add_derived_dimension(const std::string& name, Dim dim, std::string description, Span decl);
  bool add_prefix_set(PrefixSet ps);
  bool add_unit(UnitDef u);
  void add_display(DisplayUnit d, Dim dim);

  [[nodiscard]] const DimensionDef* dimension(std::string_view name) const;
  [[nodiscard]] const PrefixSet* prefix_set(std::string_view name) const;
  [[nodiscard]] const UnitDef* unit(std::string_view name) const;
  // An atom as written: a unit name, or prefix + unit name where the unit allows it.
  [[nodiscard]] std::optional<ResolvedUnit> lookup_atom(std::string_view atom) const;

  // "Time", "Information/Time" ("Bandwidth" if declared), "dimensionless".
  [[nodiscard]] std::string dim_name(const Dim& d) const;
  // The same dimension written in base units: "B/s", "FLOP/s".
  [[nodiscard]] std::string base_units(const Dim& d) const;
  // A human unit for this value: the display unit giving a magnitude in [1, 1000) — the
  // largest such — else the nearest end; base units when none is declared.
  [[nodiscard]] DisplayUnit human_unit(const Dim& d, double si_amount) const;
  // The same choice among the given units (a front end showing bytes in the binary family).
  [[nodiscard]] static DisplayUnit human_unit_among(std::vector<DisplayUnit> units, double si_amount);
  [[nodiscard]] std::vector<std::string> all_unit_names() const;  // including prefixed forms
  // Units are case-sensitive, so `gb` is not a unit; these are the units it could have meant
  // (`GB`, `Gb`), for a suggestion — never accepted in its place.
  [[nodiscard]] std::vector<std::string> case_variants(std::string_view atom) const;
  // The help line for an unknown unit: case variants first, else the closest by edit distance.
  [[nodiscard]] std::string suggest(std::string_view atom) const { return hint(atom).help; }
  // The same help line and the units it names as replacements, best first (a diagnostic's
  // `suggestions`, which editors offer as quick fixes).
  struct Hint {
    std::string help;
    std::vector<std::string> candidates;
  };
  [[nodiscard]] Hint hint(std::string_view atom) const;
  // An unknown-unit diagnostic gets both.
  void suggest(Diagnostic& d, std::string_view atom) const;

  // The one reading of a written unit (`GB/s`, `kW*h`, `Time` where dimension names are allowed):
  // its exact factor and dimension, or why not — which term is unknown, a dimension out of range,
  // a size that is not exact (lost), infinite or zero. Callers word the error: the checker for a
  // unit in a formula, the program for one in a unit declaration.
  struct Reading {
    enum class Fail : std::uint8_t { none, unknown, dim_range, inexact } fail = Fail::none;
    ResolvedUnit unit{};
    std::size_t term = 0;  // Fail::unknown: the unknown term
    bool lost = false;     // Fail::inexact: rounding, rather than a zero or infinite size
  };
  [[nodiscard]] Reading read(const UnitExpr& u, bool dimension_names) const;
  [[nodiscard]] std::vector<std::string> units_of(const Dim& d) const;  // declared units only
  [[nodiscard]] const std::vector<DimensionDef>& dimensions() const { return dims_; }
  [[nodiscard]] int base_count() const { return bases_; }

  // REPL rollback: declarations are append-only, so a mark is their counts (display units are
  // appended to per-dimension lists: their additions are logged).
  struct Mark {
    std::size_t dims, prefix_sets, units, display_log;
    int bases;
  };
  [[nodiscard]] Mark mark() const {
    return {dims_.size(), prefix_sets_.size(), units_.size(), display_log_.size(), bases_};
  }
  void rollback(const Mark& m);

 private:
  std::vector<DimensionDef> dims_;
  int bases_ = 0;
  std::vector<std::string> base_unit_names_ = std::vector<std::string>(kMaxBaseDims);
  std::vector<PrefixSet> prefix_sets_;
  std::vector<UnitDef> units_;
  std::unordered_map<std::string, std::size_t> unit_index_;
  std::vector<std::pair<Dim, std::vector<DisplayUnit>>> display_;
  std::vector<std::size_t> display_log_;  // per add_display: the index in display_ it went to
};

}  // namespace mls
