// grid.cpp — tables of text cells as aligned text, CSV and Markdown (grid.hpp).
#include "grid.hpp"

#include <algorithm>

#include "format.hpp"

namespace mls {

std::string csv_quote(const std::string& raw) {
  const std::string s = escape_controls(raw);
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string md_escape(const std::string& v) {
  std::string esc;
  for (char ch : v) esc += ch == '|' ? std::string("\\|") : std::string(1, ch);
  return esc;
}

std::string csv_lines(const TextRows& rows) {
  std::string out;
  for (const auto& line : rows) {
    for (std::size_t c = 0; c < line.size(); ++c) out += (c ? "," : "") + csv_quote(line[c]);
    out += "\n";
  }
  return out;
}

std::string md_table(const TextRows& rows) {
  std::string out;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    out += "|";
    for (const auto& cell : rows[r]) out += " " + md_escape(cell) + " |";
    out += "\n";
    if (r == 0) {
      out += "|";
      for (std::size_t c = 0; c < rows[0].size(); ++c) out += "---|";
      out += "\n";
    }
  }
  return out;
}

std::string aligned_text(const TextRows& rows, const GridStyle& style) {
  std::vector<std::size_t> w(rows.empty() ? 0 : rows[0].size(), 0);
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size() && i < w.size(); ++i) w[i] = std::max(w[i], r[i].size());
  std::string out;
  for (std::size_t j = 0; j < rows.size(); ++j) {
    std::string line = style.indent;
    for (std::size_t i = 0; i < rows[j].size(); ++i) {
      if (i) line += style.gap;
      const std::string& cell = rows[j][i];
      if (i + 1 == rows[j].size() || i >= w.size() || cell.size() >= w[i]) {
        line += cell;
      } else {
        const std::string fill(w[i] - cell.size(), ' ');
        const bool right = j > 0 && i < style.right.size() && style.right[i];
        line += right ? fill + cell : cell + fill;
      }
    }
    if (style.trim)
      while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace mls
