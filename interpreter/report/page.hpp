// page.hpp — the frame every mls HTML page shares (`mls report`, and its diff mode): the head with
// the inline style and a Content-Security-Policy that forbids any fetch, and the foot with the
// inline sort script. The page reads without the script; it only sorts tables and opens
// <details> for printing.
#pragma once

#include <string>

namespace mls {

// From <!DOCTYPE html> to the opened <body>; `title` is escaped here.
[[nodiscard]] std::string page_head(const std::string& title);
// The footer line, the script, </body></html>.
[[nodiscard]] std::string page_foot();

}  // namespace mls
