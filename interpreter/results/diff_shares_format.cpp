// diff_shares_format.cpp — the split of one change between its causes (ValueDiff::shares, filled
// by interpreter/tooling/diff_shares.hpp), as text lines under the value and as JSON.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "diff.hpp"

namespace mls {

namespace {

std::size_t columns(const std::string& s) {
  std::size_t n = 0;  // UTF-8 lead bytes: the display width of the texts used here
  for (unsigned char ch : s)
    if ((ch & 0xC0) != 0x80) ++n;
  return n;
}

std::string pct(const std::optional<double>& f) { return f ? fmt::format("{:.1f} %", *f * 100.0) : ""; }

std::string json_num(const std::optional<double>& x) { return x ? format_json(*x) : "null"; }

}  // namespace

std::string format_shares_text(const ValueDiff& v, const std::string& indent) {
  const std::string cont(columns(indent), ' ');
  if (!v.shares) return v.shares_skipped.empty() ? "" : indent + v.shares_skipped + "\n";
  const Shares& sh = *v.shares;
  std::vector<std::array<std::string, 3>> rows;
  for (const CauseShare& c : sh.causes) {
    const std::string name = c.key.text();
    if (c.share)
      rows.push_back({name, c.share_text, pct(c.fraction)});
    else
      rows.push_back({name, "not switched alone: " + c.why, ""});
  }
  // Without every cause switched, the rest also holds what the others would have explained.
  rows.push_back({sh.complete() ? "interaction" : "rest (interaction and the causes not switched)", sh.remainder_text,
                  pct(sh.remainder_fraction)});
  std::size_t w0 = 0, w1 = 0;
  for (const auto& r : rows) {
    w0 = std::max(w0, columns(r[0]));
    if (!r[2].empty()) w1 = std::max(w1, columns(r[1]));
  }
  std::string out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    std::string line = (i ? cont : indent) + r[0] + std::string(w0 - columns(r[0]) + 2, ' ');
    if (r[2].empty()) {
      line += r[1];
    } else {
      line += std::string(w1 - columns(r[1]), ' ') + r[1] + "  " + r[2];
    }
    out += line + "\n";
  }
  return out;
}

std::string format_shares_json(const ValueDiff& v) {
  if (!v.shares && v.shares_skipped.empty()) return "null";
  if (!v.shares)
    return "{\"causes\": [], \"interaction\": null, \"remainder\": null, \"remainder_fraction\": null, \"skipped\": " +
           json_string(v.shares_skipped) + "}";
  const Shares& sh = *v.shares;
  std::string s = "{\"causes\": [";
  for (std::size_t i = 0; i < sh.causes.size(); ++i) {
    const CauseShare& c = sh.causes[i];
    s += std::string(i ? ", " : "") + "{\"kind\": " + json_string(kind_name(c.key.kind)) +
         ", \"name\": " + json_string(c.key.name) + ", \"share\": " + json_num(c.share) +
         ", \"share_fraction\": " + json_num(c.fraction) + ", \"why\": " + json_string(c.why) + "}";
  }
  s += "], \"interaction\": " + (sh.complete() ? format_json(sh.remainder) : std::string("null"));
  s += ", \"remainder\": " + format_json(sh.remainder) + ", \"remainder_fraction\": " + json_num(sh.remainder_fraction);
  return s + ", \"skipped\": \"\"}";
}

}  // namespace mls
