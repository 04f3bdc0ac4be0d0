// grid.hpp — tables of text cells (a header row, then rows) as aligned text, CSV and Markdown:
// the one cell quoting every renderer uses (`mls run`'s sinks, `mls list`, `mls validate`).
#pragma once

#include <string>
#include <vector>

namespace mls {

// A CSV field (RFC 4180: quoted when it holds a comma, a quote or a line break, CR or LF).
// Control characters but tab and newline are written as text first (escape_controls: `\x1B`,
// `\u009B`), as text and Markdown do, so no CSV viewer or terminal receives a raw escape.
[[nodiscard]] std::string csv_quote(const std::string& raw);

// A Markdown table cell: `|` escaped.
[[nodiscard]] std::string md_escape(const std::string& v);

using TextRows = std::vector<std::vector<std::string>>;

// Rows (the first the header) as CSV lines, each field through csv_quote.
[[nodiscard]] std::string csv_lines(const TextRows& rows);

// Rows (the first the header) as a Markdown table, each cell through md_escape.
[[nodiscard]] std::string md_table(const TextRows& rows);

// How aligned text lays out its rows: `indent` before each line, `gap` between cells; columns
// padded to their widest cell (in bytes), right-aligned where `right` says (never the header);
// the last cell of a line is not padded, and `trim` cuts the blanks a line ends with.
struct GridStyle {
  std::string indent;
  std::string gap = "  ";
  std::vector<bool> right;
  bool trim = true;
};

// Rows (the first the header) as aligned text.
[[nodiscard]] std::string aligned_text(const TextRows& rows, const GridStyle& style);

}  // namespace mls
