// tornado.hpp — a sensitivity ranking as a tornado chart (`mls report FILE --sensitivity RESULT`):
// one horizontal bar pair per input, the result's relative change when the input is moved down
// and up, largest first, centred on "no change". Reads plain numbers only: the ranking itself is
// computed by tooling (interpreter/tooling/sensitivity), which this layer may not include.
#pragma once

#include <string>
#include <vector>

namespace mls {

struct TornadoBar {
  std::string label;   // "H100.peak", "mtbf_model -> gpu_only"
  std::string detail;  // "registry 989 TFLOP/s, elasticity +0.883" (the bar's tooltip)
  // Relative changes of the result (fractions: -0.0893 is -8.93 %). A setting has both sides; a
  // convention switched to one other choice has only `up` (drawn in its own colour).
  double down = 0, up = 0;
  bool convention = false;
};

struct Tornado {
  std::string result;            // "scale.tokens_per_s[gpus=1024]"
  std::string shown;             // "998333 s^-1"
  std::string step;              // "10 %"
  std::vector<TornadoBar> bars;  // in order, largest first
  std::size_t more = 0;          // ranked inputs not drawn
};

// Standalone SVG element, `width` pixels wide; height follows the bar count.
[[nodiscard]] std::string tornado_svg(const Tornado& t, int width = 720);

}  // namespace mls
