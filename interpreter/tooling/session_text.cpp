// session_text.cpp — how `mls repl` prints what an input did: answers in human units with a
// compact assumption line, definitions, tables and assertions (the REPL in cli/ prints this text;
// the caret under the prompt line is its own, cli/repl_print.cpp).
#include "session_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "driver.hpp"
#include "grammar/symbols.hpp"
#include "interpreter/results/format.hpp"
#include "session.hpp"

namespace mls {

namespace {

constexpr std::size_t kCompactMax = 6;   // assumptions listed inline before "and N more"
constexpr std::size_t kLineWidth = 100;  // wrap the inline list here

std::string via_suffix(const AssumptionView& a) {
  return quiet(a.via, ViaListing::compact) ? "" : " (" + a.via.text() + ")";
}

}  // namespace

void flatten(const Value& v, const TypeP& t, const std::string& label, std::vector<Leaf>& out) {
  // Records can share parts (`let t1 = {a: t0, b: t0}`, nested): the fields to print can be
  // exponentially many, so printing stops after kMaxLeaves of them (the rest: `show` them).
  constexpr std::size_t kMaxLeaves = 500;
  if (out.size() > kMaxLeaves) return;
  if (out.size() == kMaxLeaves) {
    out.push_back({label + " ...", Value::string("(more fields, not shown)"), t_str()});
    return;
  }
  if (v.k == Value::K::record && t && t->k == Type::K::record) {
    for (const auto& [name, fv] : v.rec().fields) {
      if (fv.k == Value::K::list) continue;
      const TypeP* ft = t->field(name);
      flatten(fv, ft ? *ft : nullptr, label + "." + sym_name(name), out);
    }
    return;
  }
  if (v.k == Value::K::list) return;
  out.push_back({label, v, t});
}

std::string value_text(const Value& v, const Display& d) {
  if (v.k == Value::K::str) return "\"" + v.str() + "\"";
  std::string s = format_value(v, d);
  if (v.k == Value::K::num && !d.unit.empty()) s += (d.unit == "%" ? "" : " ") + d.unit;
  return s;
}

std::string answer_text(const Program& p, const Value& v, const TypeP& t, const Display& d) {
  // `1.2345 GB -> MB` asks for a unit: the answer keeps the digits typed (1234.5 MB, not
  // 1235 MB). A resolution (`@ 0.01`) chooses the digits itself; whole numbers print in full.
  if (v.k == Value::K::num && t && t->k == Type::K::num && t->hint && !d.resolution) {
    const Num x = in_unit(v.n, d);
    if (!(is_integer(x) && std::fabs(x.d) < 1e15)) {
      std::string s = format_sig(x, kAskedDigits);
      if (!d.unit.empty()) s += (d.unit == "%" ? "" : " ") + d.unit;
      return s;
    }
  }
  return value_text(v, display_in_written_family(scope_of(p), d, t, v));
}

Display display_of(const Program& p, const Leaf& l) {
  return display_for(scope_of(p), l.type, l.value.k == Value::K::num ? l.value.n.d : 0);
}

std::string compact_assumptions(Program& p, DepSet d, Span own) {
  if (own.valid()) {
    std::vector<AtomId> kept;
    for (AtomId a : p.deps.atoms(d)) {
      const Span at = p.deps.is_assumption(a) ? p.deps.assumption(a).at : Span{};
      if (!(at.file == own.file && at.begin >= own.begin && at.begin < own.end)) kept.push_back(a);
    }
    d = p.deps.of(std::move(kept));
  }
  std::vector<std::string> items;
  const auto views = assumptions_of(scope_of(p), d);
  for (const auto& a : views)
    items.push_back(std::string(kind_name(a.kind)) + " " + a.name + " = " + a.value + via_suffix(a));
  if (items.empty()) return "";
  // The band first, in words: "validated" only on the value's own domain.
  const std::string band = band_summary(views);
  // "and 1 more" would take the place of the one it stands for.
  const std::size_t more = items.size() > kCompactMax + 1 ? items.size() - kCompactMax : 0;
  if (more) {
    items.resize(kCompactMax);
    items.push_back(fmt::format("and {} more (:assumptions)", more));
  }
  std::string out = band.empty() ? "" : "  " + band + "\n";
  out += "  depends on:";
  std::size_t col = out.size();
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string piece = items[i] + (i + 1 < items.size() ? "," : "");
    if (col + 1 + piece.size() > kLineWidth && col > 14) {
      out += "\n             ";
      col = 13;
    }
    out += " " + piece;
    col += 1 + piece.size();
  }
  return out + "\n";
}

std::string assumption_lines_text(const Program& p, DepSet d, const std::string& indent) {
  const auto as = assumptions_of(scope_of(p), d);
  std::size_t wk = 0, wn = 0, wv = 0;
  for (const auto& a : as) {
    wk = std::max(wk, std::string_view(kind_name(a.kind)).size());
    wn = std::max(wn, a.name.size());
    wv = std::max(wv, a.value.size() + via_suffix(a).size());
  }
  std::string out;
  for (const auto& a : as) {
    std::string line = indent + fmt::format("{:<{}}  {:<{}} = {:<{}}  {}", kind_name(a.kind), wk, a.name, wn,
                                            a.value + via_suffix(a), wv, a.at);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string ReplSession::format(const Outcome& o, const TableText& table_text) {
  Program& p = core_->session().prog;
  std::string out;
  for (const auto& c : o.changes) out += c + "\n";
  for (const auto& def : o.defined) {
    std::vector<Leaf> leaves;
    flatten(def.value, def.type, def.label, leaves);
    for (const auto& l : leaves)
      out += l.label + " = " +
             answer_text(p, l.value, l.type, leaves.size() == 1 && def.display ? *def.display : display_of(p, l)) +
             "\n";
    if (!def.literal) out += compact_assumptions(p, deep_deps(def.value, p.deps), def.span);
  }
  const auto& r = o.run;
  for (const auto& item : r.order) {
    switch (item.k) {
      case RunResult::Item::K::result: {
        // A shown record arrives as one result per field, all with the item's span; print the
        // group's fields, then one assumption line for the group.
        const Shown& s = r.results[item.index];
        if (item.index > 0 && r.results[item.index - 1].span.begin == s.span.begin &&
            r.results[item.index - 1].span.file == s.span.file)
          break;
        std::size_t end = item.index + 1;
        while (end < r.results.size() && r.results[end].span.begin == s.span.begin &&
               r.results[end].span.file == s.span.file)
          ++end;
        const bool bare = item.index < o.bare.size() && o.bare[item.index];
        DepSet deps = 0;
        for (std::size_t i = item.index; i < end; ++i) {
          const Shown& x = r.results[i];
          // A bare scalar prints as "= value"; its name is its own text. Record fields keep
          // their `text.field` names.
          const std::string_view text = p.sources.slice(x.span);
          const bool scalar = text.compare(0, x.name.size(), x.name) == 0 &&
                              (text.size() == x.name.size() || text[x.name.size()] != '.');
          out += (bare && scalar ? "= " : x.name + " = ") + answer_text(p, x.value, x.type, x.display) + "\n";
          deps = p.deps.unite(deps, x.value.deps);
        }
        out += compact_assumptions(p, deps);
        break;
      }
      case RunResult::Item::K::table: {
        std::string t =
            table_text ? table_text(r.tables[item.index]) : format_table_text(scope_of(p), r.tables[item.index]);
        if (!t.empty() && t.front() == '\n') t.erase(0, 1);
        out += t;
        break;
      }
      case RunResult::Item::K::assertion: {
        const AssertOutcome& a = r.asserts[item.index];
        if (a.ok) {
          out += "assertion holds: " + a.text + "\n";
        } else {
          out += "assertion failed: " + a.text + (a.message.empty() ? "" : " — " + a.message) + "\n";
          if (!a.detail.empty()) out += "    " + a.detail + "\n";
        }
        break;
      }
    }
  }
  // Assertions inside sweeps fail without an order entry of their own.
  for (std::size_t i = 0; i < r.asserts.size(); ++i) {
    const bool listed = std::any_of(r.order.begin(), r.order.end(), [&](const auto& it) {
      return it.k == RunResult::Item::K::assertion && it.index == i;
    });
    if (!listed && !r.asserts[i].ok)
      out += "assertion failed: " + r.asserts[i].text +
             (r.asserts[i].detail.empty() ? "" : " (" + r.asserts[i].detail + ")") + "\n";
  }
  if (!o.message.empty()) out += o.message + "\n";
  return out;
}

std::string ReplSession::table_text(const Table& t, TableSlice& slice) {
  return format_table_text(scope_of(core_->session().prog), t, slice);
}

}  // namespace mls
