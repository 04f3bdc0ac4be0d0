// run_result.cpp — displaying values (unit, factor, resolution), replaying a collected run into a
// sink, and the assumptions of a dependency set as the formatters show them.
#include "run_result.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "grammar/symbols.hpp"
#include "interpreter/semantics/program.hpp"

namespace mls {

ResultScope scope_of(const Program& p) { return {p.units, p.deps, p.sources}; }

Display display_for(const ResultScope& p, const TypeP& t, double si) {
  Display d;
  if (!t || t->k != Type::K::num) return d;
  if (t->hint) {
    d.unit = t->hint->unit == "1" ? "" : t->hint->unit;
    d.factor = t->hint->factor;
    d.resolution = t->hint->resolution;
    return d;
  }
  if (t->dim.none()) return d;
  const DisplayUnit u = p.units.human_unit(t->dim, si);
  d.unit = u.text;
  d.factor = u.factor;
  return d;
}

namespace {

// How byte quantities are written in an assumption's text: counts of binary (KiB, GiB, ...)
// and decimal (B, kB, GB, ...) byte units among its words.
void count_byte_units(std::string_view text, int& binary, int& decimal) {
  static const std::array<std::string_view, 6> kBinary = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  static const std::array<std::string_view, 7> kDecimal = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  for (std::size_t i = 0; i < text.size();) {
    if (!std::isalpha(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && std::isalnum(static_cast<unsigned char>(text[j]))) ++j;
    const std::string_view w = text.substr(i, j - i);
    if (std::find(kBinary.begin(), kBinary.end(), w) != kBinary.end()) ++binary;
    if (std::find(kDecimal.begin(), kDecimal.end(), w) != kDecimal.end()) ++decimal;
    i = j;
  }
}

}  // namespace

Display display_in_written_family(const ResultScope& p, const Display& d, const TypeP& t, const Value& v) {
  if (!t || t->k != Type::K::num || t->hint || v.k != Value::K::num) return d;
  const auto byte = p.units.lookup_atom("B");
  if (!byte || !(t->dim == byte->dim)) return d;
  int binary = 0, decimal = 0;
  for (const auto& a : assumptions_of(p, v.deps)) count_byte_units(a.value, binary, decimal);
  if (binary == 0 || decimal > 0) return d;
  std::vector<DisplayUnit> units = {{"B", byte->factor}};
  for (const char* name : {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"})
    if (const auto u = p.units.lookup_atom(name)) units.push_back({name, u->factor});
  const DisplayUnit u = UnitTable::human_unit_among(std::move(units), v.n.d);
  Display out = d;
  out.unit = u.text;
  out.factor = u.factor;
  return out;
}

Num in_unit(const Num& si, const Display& d) {
  bool lost = false;
  return div(si, d.factor, lost);
}

std::string format_value(const Value& v, const Display& d) {
  switch (v.k) {
    case Value::K::boolean: return v.b ? "true" : "false";
    case Value::K::str: return v.str();
    case Value::K::num: {
      const Num x = in_unit(v.n, d);
      if (d.resolution) {
        const Num r = round_to(x, *d.resolution);
        return format_fixed(r, decimals_of_resolution(*d.resolution));
      }
      // Whole numbers print in full (1048576 GPUs, not 1049000); others to 4 significant digits.
      if (is_integer(x) && std::fabs(x.d) < 1e15) return format_fixed(x, 0);
      return format_sig(x, 4);
    }
    case Value::K::record: {
      std::string label = record_label(v);
      return label.empty() ? "(record)" : label;
    }
    default: return "(value)";
  }
}

std::string record_label(const Value& v) {
  if (v.k != Value::K::record) return "";
  const RecordObj& r = v.rec();
  if (r.label != kNoSym) return sym_name(r.label);
  static const Sym kName = intern("name");
  const Value* name = r.get(kName);
  return name && name->k == Value::K::str ? name->str() : "";
}

void RunSink::table_rows(const Table& t, const RowBlock& rows) {
  Row r;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows.row(i, r);
    table_row(t, r);
  }
}

void replay(const RunResult& r, RunSink& sink) {
  sink.begin(r);
  for (const auto& item : r.order) {
    switch (item.k) {
      case RunResult::Item::K::result: sink.result(r.results[item.index]); break;
      case RunResult::Item::K::assertion: sink.assertion(r.asserts[item.index]); break;
      case RunResult::Item::K::table: {
        const Table& t = r.tables[item.index];
        sink.table_begin(t);
        for (const auto& row : t.rows) sink.table_row(t, row);
        sink.table_end(t);
        break;
      }
    }
  }
  sink.end();
}

bool AssumptionView::operator<(const AssumptionView& o) const {
  // Printed in this order: a note first (it changes what the number means), the validation band last.
  auto rank = [](AssumptionKind k) {
    switch (k) {
      case AssumptionKind::note: return -1;
      case AssumptionKind::convention: return 0;
      case AssumptionKind::set: return 1;
      case AssumptionKind::registry: return 2;
      case AssumptionKind::default_: return 3;
      case AssumptionKind::approx: return 4;
      case AssumptionKind::validation: return 9;
    }
    return 9;
  };
  const int ra = rank(kind), rb = rank(o.kind);
  return std::tie(ra, name, at, value, via) < std::tie(rb, o.name, o.at, o.value, o.via);
}

bool AssumptionView::operator==(const AssumptionView& o) const {
  return kind == o.kind && name == o.name && value == o.value && at == o.at && via == o.via;
}

namespace {

void append_views(const ResultScope& p, DepSet d, std::vector<AssumptionView>& out) {
  for (AtomId a : p.deps.atoms(d)) {
    if (!p.deps.is_assumption(a)) continue;
    const Assumption& as = p.deps.assumption(a);
    AssumptionView v;
    v.kind = as.kind;
    v.name = as.name;
    v.value = as.value;
    v.at = assumption_place(p.sources, as);
    v.via = as.via;
    v.band = as.band;
    v.domain = as.domain;
    v.extrapolated = as.extrapolated;
    out.push_back(std::move(v));
  }
}

std::vector<AssumptionView> sorted_unique(std::vector<AssumptionView> out) {
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

std::string band_summary(const std::vector<AssumptionView>& as) {
  std::string out;
  for (const auto& a : as) {
    if (a.kind != AssumptionKind::validation || a.band < 0) continue;
    char b[48];
    std::snprintf(b, sizeof b, "%.1f %%", 100 * a.band);
    out += (out.empty() ? "" : "; ") +
           (a.extrapolated ? "extrapolated to " + a.domain + " (" + a.name + ", ±" + b + "; not validated there)"
                           : "validated on " + a.domain + " (" + a.name + ", ±" + b + ")");
  }
  return out;
}

std::vector<AssumptionView> assumptions_of(const ResultScope& p, DepSet d) {
  std::vector<AssumptionView> out;
  append_views(p, d, out);
  return sorted_unique(std::move(out));
}

std::vector<AssumptionView> assumptions_of(const ResultScope& p, const std::vector<DepSet>& ds) {
  std::vector<AssumptionView> out;
  for (DepSet d : ds) append_views(p, d, out);
  return sorted_unique(std::move(out));
}

}  // namespace mls
