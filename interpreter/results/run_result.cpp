// run_result.cpp — displaying values (unit, factor, resolution), replaying a collected run into a
// sink, and the assumptions of a dependency set as the formatters show them.
#include "run_result.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace mls {

Display display_for(const Program& p, const TypeP& t, double si) {
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
    default: return "(value)";
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
  static const std::map<std::string, int> order = {{"note", -1},    {"convention", 0}, {"set", 1},
                                                   {"registry", 2}, {"default", 3},    {"approx", 4}};
  auto rank = [&](const std::string& k) {
    auto it = order.find(k);
    return it == order.end() ? 9 : it->second;
  };
  const int ra = rank(kind), rb = rank(o.kind);
  return std::tie(ra, name, at, value, via) < std::tie(rb, o.name, o.at, o.value, o.via);
}

bool AssumptionView::operator==(const AssumptionView& o) const {
  return kind == o.kind && name == o.name && value == o.value && at == o.at && via == o.via;
}

std::vector<AssumptionView> assumptions_of(const Program& p, DepSet d) {
  std::vector<AssumptionView> out;
  for (AtomId a : p.deps.atoms(d)) {
    if (!p.deps.is_assumption(a)) continue;
    const Assumption& as = p.deps.assumption(a);
    out.push_back({kind_name(as.kind), as.name, as.value, assumption_place(p.sources, as), as.via});
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace mls
