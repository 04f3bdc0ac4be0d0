// units.cpp — dimension algebra, unit lookup with prefixes, and choosing display units.
#include "units.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "grammar/diagnostic.hpp"

namespace mls {

namespace {
std::optional<Dim> combine(const Dim& a, const Dim& b, int sign) {
  Dim r;
  for (int i = 0; i < kMaxBaseDims; ++i) {
    const int x = a.e[i] + sign * b.e[i];  // int: no overflow of the int16 inputs
    if (x > kMaxDimExponent || x < -kMaxDimExponent) return std::nullopt;
    r.e[i] = static_cast<std::int16_t>(x);
  }
  return r;
}
}  // namespace

std::optional<Dim> Dim::times(const Dim& o) const { return combine(*this, o, 1); }
std::optional<Dim> Dim::over(const Dim& o) const { return combine(*this, o, -1); }

std::optional<Dim> Dim::pow(std::int64_t num, std::int64_t den) const {
  if (den == 0) return std::nullopt;
  // |e[i]| <= kMaxDimExponent, so any larger |num| overflows the result (or int64 on the way).
  const std::int64_t limit = static_cast<std::int64_t>(kMaxDimExponent) * (den < 0 ? -den : den);
  if (!none() && (num > limit || num < -limit)) return std::nullopt;
  Dim r;
  for (int i = 0; i < kMaxBaseDims; ++i) {
    const std::int64_t x = static_cast<std::int64_t>(e[i]) * num;
    if (x % den != 0) return std::nullopt;
    const std::int64_t y = x / den;
    if (y > kMaxDimExponent || y < -kMaxDimExponent) return std::nullopt;
    r.e[i] = static_cast<std::int16_t>(y);
  }
  return r;
}

std::size_t Dim::hash() const {
  std::size_t h = 1469598103934665603ull;
  for (auto x : e) h = (h ^ static_cast<std::uint16_t>(x)) * 1099511628211ull;
  return h;
}

bool UnitTable::add_base_dimension(const std::string& name, std::string description, Span decl) {
  if (dimension(name) || bases_ >= kMaxBaseDims) return false;
  Dim d;
  d.e[bases_] = kDimDen;
  dims_.push_back({name, d, true, std::move(description), decl});
  ++bases_;
  return true;
}

bool UnitTable::add_derived_dimension(const std::string& name, Dim dim, std::string description, Span decl) {
  if (dimension(name)) return false;
  dims_.push_back({name, dim, false, std::move(description), decl});
  return true;
}

bool UnitTable::add_prefix_set(PrefixSet ps) {
  if (prefix_set(ps.name)) return false;
  prefix_sets_.push_back(std::move(ps));
  return true;
}

bool UnitTable::add_unit(UnitDef u) {
  if (unit_index_.count(u.name)) return false;
  // The first unit declared for a base dimension with factor 1 names it in base_units().
  for (int i = 0; i < bases_; ++i) {
    Dim b;
    b.e[i] = kDimDen;
    if (u.dim == b && u.factor.exact() && compare(u.factor, Num::of_int(1)) == 0 && base_unit_names_[i].empty())
      base_unit_names_[i] = u.name;
  }
  unit_index_[u.name] = units_.size();
  units_.push_back(std::move(u));
  return true;
}

void UnitTable::add_display(DisplayUnit d, Dim dim) {
  for (std::size_t i = 0; i < display_.size(); ++i)
    if (display_[i].first == dim) {
      display_[i].second.push_back(std::move(d));
      display_log_.push_back(i);
      return;
    }
  display_.push_back({dim, {std::move(d)}});
  display_log_.push_back(display_.size() - 1);
}

void UnitTable::rollback(const Mark& m) {
  for (std::size_t i = display_log_.size(); i-- > m.display_log;) {
    auto& list = display_[display_log_[i]].second;
    list.pop_back();
    // A list made after the mark is the last one: its first unit is the last undone.
    if (list.empty()) display_.pop_back();
  }
  display_log_.resize(m.display_log);
  for (std::size_t i = m.units; i < units_.size(); ++i) {
    unit_index_.erase(units_[i].name);
    for (auto& b : base_unit_names_)
      if (b == units_[i].name) b.clear();
  }
  units_.resize(m.units);
  prefix_sets_.resize(m.prefix_sets);
  dims_.resize(m.dims);
  bases_ = m.bases;
}

const DimensionDef* UnitTable::dimension(std::string_view name) const {
  for (const auto& d : dims_)
    if (d.name == name) return &d;
  return nullptr;
}

const PrefixSet* UnitTable::prefix_set(std::string_view name) const {
  for (const auto& p : prefix_sets_)
    if (p.name == name) return &p;
  return nullptr;
}

const UnitDef* UnitTable::unit(std::string_view name) const {
  auto it = unit_index_.find(std::string(name));
  return it == unit_index_.end() ? nullptr : &units_[it->second];
}

std::optional<ResolvedUnit> UnitTable::lookup_atom(std::string_view atom) const {
  if (const UnitDef* u = unit(atom)) return ResolvedUnit{u->factor, u->dim};
  // Prefixed: longest prefix first ("Ki" before "K"); case-sensitive throughout.
  std::optional<ResolvedUnit> best;
  std::size_t best_len = 0;
  for (const auto& ps : prefix_sets_)
    for (const auto& [p, f] : ps.prefixes) {
      if (p.size() >= atom.size() || p.size() <= best_len || atom.compare(0, p.size(), p) != 0) continue;
      const UnitDef* u = unit(atom.substr(p.size()));
      if (!u || std::find(u->prefix_sets.begin(), u->prefix_sets.end(), ps.name) == u->prefix_sets.end()) continue;
      bool lost = false;
      best = ResolvedUnit{mul(f, u->factor, lost), u->dim};
      best_len = p.size();
    }
  return best;
}

namespace {
// "A*B^2/C^(1/2)": a dimension as a product of named bases with exponents.
template <typename NameOf>
std::string dim_text(const Dim& d, int bases, NameOf name_of) {
  std::string num, den;
  for (int i = 0; i < bases; ++i) {
    const int x = d.e[static_cast<std::size_t>(i)];
    if (x == 0) continue;
    std::string part = name_of(static_cast<std::size_t>(i));
    const int a = std::abs(x);
    if (a != kDimDen) {
      const int g = std::gcd(a, kDimDen);
      part += a % kDimDen == 0 ? "^" + std::to_string(a / kDimDen)
                               : "^(" + std::to_string(a / g) + "/" + std::to_string(kDimDen / g) + ")";
    }
    std::string& side = x > 0 ? num : den;
    if (!side.empty()) side += "*";
    side += part;
  }
  if (num.empty()) num = "1";
  return den.empty() ? num : num + "/" + den;
}
}  // namespace

std::string UnitTable::dim_name(const Dim& d) const {
  if (d.none()) return "dimensionless";
  for (const auto& dd : dims_)
    if (dd.dim == d) return dd.name;
  return dim_text(d, bases_, [&](std::size_t i) { return dims_[i].name; });
}

std::string UnitTable::base_units(const Dim& d) const {
  if (d.none()) return "";
  return dim_text(d, bases_,
                  [&](std::size_t i) { return base_unit_names_[i].empty() ? dims_[i].name : base_unit_names_[i]; });
}

DisplayUnit UnitTable::human_unit(const Dim& d, double si_amount) const {
  for (const auto& [k, list] : display_)
    if (k == d) return human_unit_among(list, si_amount);
  return {base_units(d), Num::of_int(1)};
}

DisplayUnit UnitTable::human_unit_among(std::vector<DisplayUnit> units, double si_amount) {
  if (units.empty()) return {"", Num::of_int(1)};
  std::sort(units.begin(), units.end(),
            [](const DisplayUnit& a, const DisplayUnit& b) { return a.factor.d < b.factor.d; });
  const double v = std::fabs(si_amount);
  if (v == 0) return units.front();
  // The largest unit that reads as at least 1 — but "2.8 day" reads worse than "67 h": when
  // the largest fit is below 3 and the next smaller unit stays under 1000, take that one.
  for (std::size_t i = units.size(); i-- > 0;) {
    const double m = v / units[i].factor.d;
    if (m < 1) continue;
    if (m < 3 && i > 0 && v / units[i - 1].factor.d < 1000) return units[i - 1];
    return units[i];
  }
  return units.front();
}

std::vector<std::string> UnitTable::all_unit_names() const {
  std::vector<std::string> out;
  for (const auto& u : units_) {
    out.push_back(u.name);
    for (const auto& set : u.prefix_sets)
      if (const PrefixSet* ps = prefix_set(set))
        for (const auto& [p, f] : ps->prefixes) out.push_back(p + u.name);
  }
  return out;
}

std::vector<std::string> UnitTable::case_variants(std::string_view atom) const {
  auto lower = [](std::string_view w) {
    std::string out(w);
    for (char& c : out)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
  };
  const std::string key = lower(atom);
  std::vector<std::string> out;
  for (auto& n : all_unit_names())
    if (n != atom && lower(n) == key && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  std::sort(out.begin(), out.end());
  return out;
}

UnitTable::Hint UnitTable::hint(std::string_view atom) const {
  const auto variants = case_variants(atom);
  // `GBps`: a rate written per-second style. The case variant `Gbps` is bits, 8x smaller, so the
  // byte rate `GB/s` comes first (and is the one replacement: the variants are other units).
  if (atom.size() > 2 && atom.substr(atom.size() - 2) == "ps") {
    const std::string_view stem = atom.substr(0, atom.size() - 2);
    if (lookup_atom(stem)) {
      Hint h{"did you mean '" + std::string(stem) + "/s'?", {std::string(stem) + "/s"}};
      for (const auto& v : variants) h.help += " ('" + v + "' is another unit: units are case-sensitive)";
      return h;
    }
  }
  if (!variants.empty()) {
    std::string list;
    for (std::size_t i = 0; i < variants.size(); ++i)
      list += (i == 0 ? "" : i + 1 == variants.size() ? " or " : ", ") + ("'" + variants[i] + "'");
    return {"did you mean " + list + "? (units are case-sensitive)", variants};
  }
  const std::string near = closest(atom, all_unit_names());
  if (near.empty()) return {};
  return {"did you mean '" + near + "'? (units are case-sensitive)", {near}};
}

void UnitTable::suggest(Diagnostic& d, std::string_view atom) const {
  Hint h = hint(atom);
  if (!h.help.empty()) d.help.push_back(std::move(h.help));
  for (auto& c : h.candidates) d.suggestions.push_back(std::move(c));
}

UnitTable::Reading UnitTable::read(const UnitExpr& u, bool dimension_names) const {
  Reading out;
  out.unit = ResolvedUnit{Num::of_int(1), Dim{}};
  for (std::size_t i = 0; i < u.terms.size(); ++i) {
    const UnitTerm& t = u.terms[i];
    auto r = lookup_atom(t.atom);
    if (!r && dimension_names)
      if (const DimensionDef* dd = dimension(t.atom)) r = ResolvedUnit{Num::of_int(1), dd->dim};
    if (!r) {
      out.fail = Reading::Fail::unknown;
      out.term = i;
      return out;
    }
    auto dim = r->dim.pow(t.exponent, 1);
    if (dim) dim = out.unit.dim.times(*dim);
    if (!dim) {
      out.fail = Reading::Fail::dim_range;
      return out;
    }
    bool lost = false;
    out.unit.factor = mul(out.unit.factor, pow_int(r->factor, t.exponent, lost), lost);
    // Unit factors are exact by promise; one beyond the exact range (`ms^400`) is not a unit.
    if (lost || !out.unit.factor.exact() || !std::isfinite(out.unit.factor.d) || is_zero(out.unit.factor)) {
      out.fail = Reading::Fail::inexact;
      out.lost = lost;
      return out;
    }
    out.unit.dim = *dim;
  }
  return out;
}

std::vector<std::string> UnitTable::units_of(const Dim& d) const {
  std::vector<std::string> out;
  for (const auto& u : units_)
    if (u.dim == d) out.push_back(u.name);
  return out;
}

}  // namespace mls
