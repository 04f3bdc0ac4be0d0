// diagnostic.cpp — rendering diagnostics with source excerpts, and did-you-mean.
#include "diagnostic.hpp"

#include <algorithm>

namespace mls {

const std::vector<ErrorKindInfo>& all_error_kinds() {
  static const std::vector<ErrorKindInfo> kinds = {
#define X(id, code, exit, summary) {ErrorKind::id, code, exit, summary},
#include "error_kinds.def"
#undef X
  };
  return kinds;
}

const ErrorKindInfo& info(ErrorKind k) { return all_error_kinds()[static_cast<std::size_t>(k)]; }

Diagnostic& Diagnostics::error(ErrorKind k, Span s, std::string msg) {
  Diagnostic d;
  d.kind = k;
  d.span = s;
  d.message = std::move(msg);
  items_.push_back(std::move(d));
  return items_.back();
}

bool Diagnostics::has_errors() const {
  return std::any_of(items_.begin(), items_.end(), [](const Diagnostic& d) { return d.severity == Severity::error; });
}

int Diagnostics::exit_code() const {
  for (const auto& d : items_)
    if (d.severity == Severity::error) return info(d.kind).exit_code;
  return 0;
}

namespace {

// Display width of a byte range: count UTF-8 lead bytes, expand tabs to one column
// (we print the line as-is, so a tab in the source lines up with a tab in the gutter).
std::string caret_prefix(std::string_view line, std::size_t upto) {
  std::string out;
  for (std::size_t i = 0; i < upto && i < line.size(); ++i) {
    const auto c = static_cast<unsigned char>(line[i]);
    if (c == '\t')
      out += '\t';
    else if ((c & 0xC0) != 0x80)
      out += ' ';
  }
  return out;
}

std::size_t display_len(std::string_view s) {
  std::size_t n = 0;
  for (char ch : s)
    if ((static_cast<unsigned char>(ch) & 0xC0) != 0x80) ++n;
  return n;
}

// Non-printable bytes would garble the terminal; show them as '?'.
std::string printable(std::string_view line) {
  std::string out(line);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t') c = '?';
  return out;
}

void excerpt(std::string& out, const Sources& src, Span s, const std::string& label, char mark) {
  if (!s.valid()) return;
  const SourceFile& f = src.get(s.file);
  const LineCol lc = f.locate(s.begin);
  const std::string_view line = f.line_text(lc.line);
  const std::string num = std::to_string(f.shown_line(lc.line));
  const std::string gutter(num.size(), ' ');
  out += gutter + " |\n";
  out += num + " | " + printable(line) + "\n";
  const std::size_t col0 = lc.col - 1;
  std::size_t width = 1;
  if (s.end > s.begin) {
    // Clip multi-line spans to the first line.
    const std::size_t line_end = col0 + (line.size() > col0 ? line.size() - col0 : 0);
    const std::size_t stop = std::min<std::size_t>(col0 + (s.end - s.begin), line_end);
    if (stop > col0) width = display_len(line.substr(col0, stop - col0));
    if (width == 0) width = 1;
  }
  out += gutter + " | " + caret_prefix(line, col0) + mark + std::string(width - 1, mark == '^' ? '~' : '-');
  if (!label.empty()) out += " " + label;
  out += "\n";
}

bool same_line(const Sources& src, Span a, Span b) {
  if (!a.valid() || !b.valid() || a.file != b.file) return false;
  const SourceFile& f = src.get(a.file);
  return f.locate(a.begin).line == f.locate(b.begin).line;
}

// Extra underline rows for secondary spans on the primary line ("this is Time (s)").
void secondary(std::string& out, const Sources& src, Span s, const std::string& label) {
  const SourceFile& f = src.get(s.file);
  const LineCol lc = f.locate(s.begin);
  const std::string_view line = f.line_text(lc.line);
  const std::string gutter(std::to_string(f.shown_line(lc.line)).size(), ' ');
  const std::size_t col0 = lc.col - 1;
  std::size_t width = 1;
  if (s.end > s.begin && col0 < line.size()) width = std::max<std::size_t>(1, display_len(line.substr(col0, s.end - s.begin)));
  out += gutter + " | " + caret_prefix(line, col0) + std::string(width, '-') + " " + label + "\n";
}

}  // namespace

std::string render(const Sources& src, const Diagnostic& d) {
  std::string out;
  out += src.where_col(d.span) + ": ";
  out += d.severity == Severity::error ? "error" : "warning";
  out += "[" + std::string(info(d.kind).code) + "]: " + d.message + "\n";
  excerpt(out, src, d.span, d.label, '^');
  for (const auto& n : d.notes)
    if (same_line(src, d.span, n.span)) secondary(out, src, n.span, n.text);
  for (const auto& n : d.notes) {
    if (same_line(src, d.span, n.span)) continue;
    out += src.where_col(n.span) + ": note: " + n.text + "\n";
    excerpt(out, src, n.span, "", '-');
  }
  for (const auto& h : d.help) out += "  = help: " + h + "\n";
  return out;
}

std::string render_all(const Sources& src, const Diagnostics& ds) {
  // Source order (file, then offset) reads best; diagnostics without a place come last.
  std::vector<const Diagnostic*> order;
  for (const auto& d : ds.items()) order.push_back(&d);
  std::stable_sort(order.begin(), order.end(), [](const Diagnostic* a, const Diagnostic* b) {
    const auto ka = std::make_pair(a->span.file, a->span.begin);
    const auto kb = std::make_pair(b->span.file, b->span.begin);
    return ka < kb;
  });
  std::string out;
  for (const Diagnostic* d : order) out += render(src, *d);
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
      // Transposition counts as one edit (Damerau), the commonest typo.
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], prev[j - 1]);
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string closest(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  // One- and two-letter words are too short for a suggestion to mean anything.
  std::size_t best_d = word.size() <= 2 ? 1 : word.size() / 3 + 1;
  for (const auto& c : candidates) {
    if (c == word) continue;
    const std::size_t d = edit_distance(word, c);
    // Ties keep the first candidate in the caller's (sorted) order: deterministic output.
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

}  // namespace mls
