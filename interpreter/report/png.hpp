// png.hpp — a chart's SVG rasterised to PNG (`mls plot --out plot.png`), by librsvg and cairo:
// the SVG mls draws is the one picture; the PNG is that picture in pixels, never a second
// drawing of the data. glib/cairo headers stay in png.cpp.
#pragma once

#include <optional>
#include <string>

namespace mls {

// PNG bytes of `svg` at `scale` device pixels per SVG pixel (2: sharp on high-density screens
// and in slides), on a white background. Nullopt with `error` set when librsvg refuses the
// document or cairo fails (neither happens for the SVG mls writes; the caller reports io.write).
[[nodiscard]] std::optional<std::string> svg_to_png(const std::string& svg, double scale, std::string& error);

}  // namespace mls
