// tornado.cpp — the tornado chart's SVG. Each input is one row: the move down drawn in the upper
// half, the move up in the lower half, so two moves to the same side never hide each other (a
// result need not be monotone in its input); a convention's switch fills the whole row.
#include "tornado.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "axis.hpp"
#include "chart.hpp"

namespace mls {

namespace {

constexpr double kLabelW = 250, kRight = 24, kTop = 52, kRowH = 20, kBottom = 40;
constexpr const char* kDown = "#4477aa";
constexpr const char* kUp = "#cc6677";
constexpr const char* kSwitch = "#999933";

std::string f1(double v) { return fmt::format("{:.1f}", v); }

std::string pct(double v) { return fmt::format("{:+.2f} %", v * 100); }

}  // namespace

std::string tornado_svg(const Tornado& t, int width) {
  const double plot_w = std::max(120.0, width - kLabelW - kRight);
  const double height = kTop + kRowH * static_cast<double>(std::max<std::size_t>(t.bars.size(), 1)) + kBottom;
  double m = 0;
  for (const auto& b : t.bars) m = std::max({m, std::abs(b.down), std::abs(b.up)});
  if (m == 0) m = 0.01;  // every move leaves the result as it is: a ±1 % axis around no change
  const Axis ax = linear_axis(-m * 100, m * 100, 6);
  auto x = [&](double change) { return kLabelW + ax.frac(change * 100) * plot_w; };
  std::string s = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" class="chart tornado" viewBox="0 0 {0} {1}" width="{0}" height="{1}" role="img">)",
      width, f1(height));
  s += "\n<g font-family=\"sans-serif\" font-size=\"11\" fill=\"#222\">";
  s += fmt::format("\n<text x=\"8\" y=\"18\" font-size=\"14\" font-weight=\"bold\">{} = {}</text>",
                   xml_escape(t.result), xml_escape(t.shown));
  // Legend: what each colour is.
  const double ly = 36;
  const std::pair<const char*, std::string> legend[] = {
      {kDown, "input -" + t.step}, {kUp, "input +" + t.step}, {kSwitch, "convention switched"}};
  double lx = kLabelW;
  for (const auto& [colour, text] : legend) {
    s += fmt::format(
        "\n<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"9\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>", f1(lx),
        f1(ly - 8), colour, f1(lx + 16), f1(ly), xml_escape(text));
    lx += 30 + 6.2 * static_cast<double>(text.size());
  }
  const double plot_h = kRowH * static_cast<double>(std::max<std::size_t>(t.bars.size(), 1));
  s += fmt::format("\n<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#fff\" stroke=\"#888\"/>", f1(kLabelW),
                   f1(kTop), f1(plot_w), f1(plot_h));
  s += "\n<g class=\"axis x\">";
  for (const auto& tk : ax.ticks) {
    const double tx = kLabelW + ax.frac(tk.value) * plot_w;
    s += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\"/><text x=\"{0}\" y=\"{4}\" "
        "text-anchor=\"middle\">{5}</text>",
        f1(tx), f1(kTop), f1(kTop + plot_h), tk.value == 0 ? "#444" : "#e4e4e4", f1(kTop + plot_h + 14),
        xml_escape(tk.label));
  }
  s += fmt::format("<text class=\"unit\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">change of the result (%)</text></g>",
                   f1(kLabelW + plot_w / 2), f1(kTop + plot_h + 32));
  const double zero = x(0);
  for (std::size_t i = 0; i < t.bars.size(); ++i) {
    const auto& b = t.bars[i];
    const double y = kTop + kRowH * static_cast<double>(i);
    auto bar = [&](double change, double top, double h, const char* colour) {
      const double a = std::min(zero, x(change)), w = std::max(std::abs(x(change) - zero), 1.0);
      return fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>", f1(a), f1(top), f1(w),
                         f1(h), colour);
    };
    s += fmt::format("\n<g class=\"bar\" data-down=\"{}\" data-up=\"{}\"><title>{}</title>",
                     b.convention ? "" : pct(b.down), pct(b.up), xml_escape(b.label + ": " + b.detail));
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", f1(kLabelW - 6), f1(y + 14),
                     xml_escape(b.label.size() > 40 ? b.label.substr(0, 39) + "~" : b.label));
    if (b.convention)
      s += bar(b.up, y + 3, kRowH - 6, kSwitch);
    else
      s += bar(b.down, y + 2, (kRowH - 4) / 2, kDown) + bar(b.up, y + kRowH / 2, (kRowH - 4) / 2, kUp);
    s += "</g>";
  }
  if (t.more) s += fmt::format("\n<text x=\"8\" y=\"{}\">+ {} smaller</text>", f1(kTop + plot_h + 14), t.more);
  s += "\n</g></svg>";
  return s;
}

}  // namespace mls
