// diff_shares.cpp — one-at-a-time attribution of a diff's changes: each cause switched alone on
// the left side, through the same `--use` / `--set` mechanism and rolled-back re-run as
// `mls sensitivity`, so every share is the stdlib's formulas evaluated, never an estimate.
#include "diff_shares.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "rerun.hpp"

namespace mls {

namespace {

// The causes a value's change is split between: its reasons whose value differs. The same value
// set by another hand moved nothing and gets no share; an approximation the evaluator made and a
// validation summary are not inputs (as for `mls sensitivity`).
std::vector<const AssumptionChange*> causes_of(const DiffReport& d, const ValueDiff& v) {
  std::vector<const AssumptionChange*> out;
  for (const auto& k : v.because) {
    const AssumptionChange* c = d.change_of(k);
    if (c && !c->same_value() && k.kind != AssumptionKind::approx && k.kind != AssumptionKind::validation)
      out.push_back(c);
  }
  return out;
}

// A difference of two binary64 re-runs smaller than this share of the values is their rounding,
// not a share: it prints as 0 rather than as 5.684e-14 ms.
constexpr double kRounding = 1e-9;

Num denoised(const Num& x, double scale) { return std::fabs(x.d) <= kRounding * scale ? Num::of_int(0) : x; }

// The left side's selection with `c` switched to the right side's value; nullopt with `why` when
// it cannot be switched alone (then it gets no share rather than a guessed one).
std::optional<Selection> switched(const Selection& base, const AssumptionChange& c,
                                  const std::vector<const AssumptionChange*>& all, std::string& why) {
  const auto& target = c.right ? c.right : c.right_other_kind;
  if (!target) {
    why = "only the left side has it: there is no right-side value to switch to";
    return std::nullopt;
  }
  Selection s = base;
  if (c.key.kind == AssumptionKind::convention) {
    s.uses.emplace_back(c.key.name, target->value);
    return s;
  }
  // A setting is moved by its right-side text. Text that reads another name would be evaluated
  // with the left's value of that name: not the right side's setting when that name differs too.
  if (mentions_name(target->value, c.key.name)) {
    why = "its right-side value (" + target->value + ") reads its own earlier value";
    return std::nullopt;
  }
  for (const AssumptionChange* o : all)
    if (o != &c && mentions_name(target->value, o->key.name)) {
      why = "its right-side value (" + target->value + ") reads " + o->key.name + ", which differs too";
      return std::nullopt;
    }
  s.sets.emplace_back(c.key.name, target->value);
  return s;
}

class Splitter {
 public:
  Splitter(Core& s, const Selection& sel, const RunResult& run, const RunOptions& opt, const DiffReport& d,
           const ShareLimits& lim)
      : s_(s), sel_(sel), run_(run), opt_(opt), d_(d), lim_(lim) {}

  // `name`: the value as `mls explain` finds it on the left side.
  void split(ValueDiff& v, const std::string& name) {
    if (v.status != DiffStatus::changed || !v.comparable || v.left.k != Value::K::num || !v.change) return;
    const auto causes = causes_of(d_, v);
    if (causes.size() < 2) return;
    // Two files may differ in their formulas too: the leftover would not be an interaction.
    // Not said per value (every value of such a diff would say it): docs/diff.md does.
    if (d_.left_file != d_.right_file) return;
    if (causes.size() > lim_.max_causes) {
      v.shares_skipped = fmt::format("not split: {} causes (at most {} are split)", causes.size(), lim_.max_causes);
      return;
    }
    if (reruns_ + 1 + causes.size() > lim_.max_reruns) {
      v.shares_skipped = fmt::format("not split: the diff's {} re-runs are spent", lim_.max_reruns);
      return;
    }
    Shares sh;
    // In the display unit, exact where the run and the re-runs keep rationals: shares that add
    // up leave an interaction of exactly 0.
    const Display& du = v.left_display;
    const Num left = in_unit(v.left.n, du);
    bool lost = false;
    Num rest = sub(in_unit(v.right.n, du), left, lost);
    const double scale = std::max(std::fabs(left.d), std::fabs(in_unit(v.right.n, du).d));
    // The re-run with nothing switched must give the left value back: a value it cannot find
    // alone (a solve's answer) or finds another way gets no split rather than wrong shares.
    std::string why;
    ++reruns_;
    const auto same = Rerun(s_, run_, name, opt_).number(sel_, why);
    if (!same || !is_zero(denoised(sub(in_unit(*same, du), left, lost), scale))) {
      v.shares_skipped = "not split: " + (same ? "re-evaluated alone it is not the left value" : why);
      return;
    }
    for (const AssumptionChange* c : causes) {
      CauseShare cs;
      cs.key = c->key;
      if (const auto sel = switched(sel_, *c, causes, cs.why)) {
        ++reruns_;
        Rerun rerun(s_, run_, name, opt_);
        if (const auto x = rerun.number(*sel, cs.why)) {
          const Num dx = denoised(sub(in_unit(*x, du), left, lost), scale);
          cs.share = dx.d;
          cs.share_text = change_in_unit_text(dx, du);
          rest = sub(rest, dx, lost);
        }
      }
      if (cs.share && *v.change != 0) cs.fraction = *cs.share == 0 ? 0.0 : *cs.share / *v.change;
      sh.causes.push_back(std::move(cs));
    }
    rest = denoised(rest, scale);
    sh.remainder = rest.d;
    if (*v.change != 0) sh.remainder_fraction = sh.remainder == 0 ? 0.0 : sh.remainder / *v.change;
    sh.remainder_text = change_in_unit_text(rest, du);
    v.shares = std::move(sh);
  }

 private:
  Core& s_;
  const Selection& sel_;
  const RunResult& run_;
  const RunOptions& opt_;
  const DiffReport& d_;
  const ShareLimits& lim_;
  std::size_t reruns_ = 0;
};

// Shown twice under one label: `explain` finds the first, so the second cannot be re-run alone.
bool shown_once(const RunResult& r, const std::string& name) {
  std::size_t n = 0;
  for (const auto& s : r.results) n += s.name == name;
  return n == 1;
}

}  // namespace

void split_changes(Core& left, const Selection& left_sel, const RunResult& left_run, const RunOptions& opt,
                   DiffReport& d, const ShareLimits& lim) {
  Splitter sp(left, left_sel, left_run, opt, d, lim);
  // Values first, then cells, in the order the diff prints them: the re-run budget is spent
  // deterministically.
  for (ValueDiff& v : d.results)
    if (shown_once(left_run, v.name)) sp.split(v, v.name);
  for (TableDiff& t : d.tables)
    for (ValueDiff& c : t.cells) sp.split(c, t.name + "." + c.name + "[" + t.row_text(c.row) + "]");
}

}  // namespace mls
