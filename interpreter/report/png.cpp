// png.cpp — see png.hpp. librsvg parses and renders the SVG into a cairo image surface, which
// cairo encodes as PNG into memory. Every handle is released on every path.
#include "png.hpp"

#include <cairo.h>
#include <librsvg/rsvg.h>

#include <cmath>
#include <memory>

namespace mls {

namespace {

struct GObjectFree {
  void operator()(RsvgHandle* h) const { g_object_unref(h); }
};
struct SurfaceFree {
  void operator()(cairo_surface_t* s) const { cairo_surface_destroy(s); }
};
struct CairoFree {
  void operator()(cairo_t* c) const { cairo_destroy(c); }
};

cairo_status_t append(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

std::string gerror_text(GError* e) {
  std::string s = e && e->message ? e->message : "unknown error";
  if (e) g_error_free(e);
  return s;
}

}  // namespace

std::optional<std::string> svg_to_png(const std::string& svg, double scale, std::string& error) {
  GError* gerr = nullptr;
  std::unique_ptr<RsvgHandle, GObjectFree> handle(
      rsvg_handle_new_from_data(reinterpret_cast<const guint8*>(svg.data()), svg.size(), &gerr));
  if (!handle) {
    error = "librsvg cannot read the chart: " + gerror_text(gerr);
    return std::nullopt;
  }
  rsvg_handle_set_dpi(handle.get(), 96);
  gdouble w = 0, h = 0;
  if (!rsvg_handle_get_intrinsic_size_in_pixels(handle.get(), &w, &h) || w <= 0 || h <= 0 || w > 1e5 || h > 1e5) {
    error = "the chart has no usable pixel size";
    return std::nullopt;
  }
  const int pw = static_cast<int>(std::ceil(w * scale)), ph = static_cast<int>(std::ceil(h * scale));
  std::unique_ptr<cairo_surface_t, SurfaceFree> surface(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, pw, ph));
  std::unique_ptr<cairo_t, CairoFree> cr(cairo_create(surface.get()));
  cairo_set_source_rgb(cr.get(), 1, 1, 1);  // a PNG pasted into a dark slide keeps its white page
  cairo_paint(cr.get());
  cairo_scale(cr.get(), scale, scale);
  const RsvgRectangle viewport{0, 0, w, h};
  if (!rsvg_handle_render_document(handle.get(), cr.get(), &viewport, &gerr)) {
    error = "librsvg cannot draw the chart: " + gerror_text(gerr);
    return std::nullopt;
  }
  cairo_surface_flush(surface.get());
  std::string png;
  if (const cairo_status_t st = cairo_surface_write_to_png_stream(surface.get(), append, &png);
      st != CAIRO_STATUS_SUCCESS) {
    error = std::string("cairo cannot encode the PNG: ") + cairo_status_to_string(st);
    return std::nullopt;
  }
  return png;
}

}  // namespace mls
