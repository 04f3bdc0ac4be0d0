// diagnostic.cpp — rendering diagnostics with source excerpts, and did-you-mean.
#include "diagnostic.hpp"

#include <algorithm>
#include <unordered_set>

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

namespace {

// Longest message, note or help line printed whole: one that echoes a megabyte of input (an
// identifier, a string) keeps its start and end, cut in the middle.
constexpr std::size_t kMaxMessageBytes = 1000;

std::string bounded(std::string_view text) {
  if (text.size() <= kMaxMessageBytes) return std::string(text);
  std::size_t head = kMaxMessageBytes * 2 / 3, tail = text.size() - kMaxMessageBytes / 4;
  while (head > 0 && (static_cast<unsigned char>(text[head]) & 0xC0) == 0x80) --head;  // whole characters
  while (tail < text.size() && (static_cast<unsigned char>(text[tail]) & 0xC0) == 0x80) ++tail;
  return std::string(text.substr(0, head)) + " ... (" + std::to_string(tail - head) + " bytes) ... " +
         std::string(text.substr(tail));
}

}  // namespace

Diagnostic make_diagnostic(ErrorKind k, Span at, std::string msg, std::vector<std::string> help) {
  Diagnostic d;
  d.kind = k;
  d.span = at;
  // Front ends that show the message themselves (an editor) get it bounded too (see bounded()).
  d.message = msg.size() > kMaxMessageBytes ? bounded(msg) : std::move(msg);
  d.help = std::move(help);
  return d;
}

void throw_diagnostic(ErrorKind k, Span at, std::string msg, std::vector<std::string> help) {
  throw DiagnosticError{make_diagnostic(k, at, std::move(msg), std::move(help))};
}

Diagnostic& Diagnostics::error(ErrorKind k, Span s, std::string msg) {
  items_.push_back(make_diagnostic(k, s, std::move(msg)));
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

// A C1 control character (U+0080..U+009F, UTF-8 C2 80..C2 9F) at byte i: a terminal obeys it
// (U+009B is CSI) as it obeys ESC.
bool c1_at(std::string_view s, std::size_t i) {
  return static_cast<unsigned char>(s[i]) == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) < 0xA0;
}

// Non-printable characters would garble the terminal; show each as one '?'.
std::string printable(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) {
      out += '?';
    } else if (c1_at(line, i)) {
      out += '?';
      ++i;
    } else {
      out += c;
    }
  }
  return out;
}

// Message text on one line: a user's error("...") may contain newlines or control characters.
std::string one_line(std::string_view raw) {
  const std::string text = bounded(raw);
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      out += "\\n";
    } else if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) {
      out += '?';
    } else if (c1_at(text, i)) {
      out += '?';
      ++i;
    } else {
      out += c;
    }
  }
  return out;
}

// Longest source line shown whole; longer lines (minified or generated input, one huge
// expression) show a window around the span, so one diagnostic stays a few lines long.
constexpr std::size_t kMaxShownLine = 160;
constexpr std::size_t kContextBefore = 60;

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The part of a source line to print, and where the underline goes in it.
struct LineView {
  std::string text;       // printable, with "..." where the line was cut
  std::string pad;        // what precedes the underline (spaces and tabs)
  std::size_t width = 1;  // underline width in columns
};

LineView view_line(std::string_view line, std::size_t col0, std::size_t span_bytes) {
  LineView v;
  std::size_t from = 0, to = line.size();
  if (display_len(line) > kMaxShownLine) {
    from = col0 > kContextBefore ? col0 - kContextBefore : 0;
    while (from > 0 && from < line.size() && is_continuation(line[from])) --from;
    to = std::min(line.size(), from + kMaxShownLine);
    while (to < line.size() && is_continuation(line[to])) ++to;
  }
  const std::string_view shown = line.substr(std::min(from, line.size()), to - std::min(from, line.size()));
  v.text = (from > 0 ? "..." : "") + printable(shown) + (to < line.size() ? "..." : "");
  v.pad = (from > 0 ? "   " : "") + caret_prefix(shown, col0 >= from ? col0 - from : 0);
  if (span_bytes > 0 && col0 < to) {
    const std::size_t stop = std::min(col0 + span_bytes, to);
    if (stop > col0 && col0 >= from) v.width = std::max<std::size_t>(1, display_len(line.substr(col0, stop - col0)));
  }
  return v;
}

void excerpt(std::string& out, const Sources& src, Span s, const std::string& label, char mark) {
  if (!s.valid()) return;
  const SourceFile& f = src.get(s.file);
  if (f.opaque) return;  // its place only (file:line:col), never its bytes
  const LineCol lc = f.locate(s.begin);
  const std::string_view line = f.line_text(lc.line);
  const std::string num = std::to_string(f.shown_line(lc.line));
  const std::string gutter(num.size(), ' ');
  // Multi-line spans are clipped to their first line.
  const LineView v = view_line(line, lc.col - 1, s.end > s.begin ? s.end - s.begin : 0);
  out += gutter + " |\n";
  out += num + " | " + v.text + "\n";
  out += gutter + " | " + v.pad + mark + std::string(v.width - 1, mark == '^' ? '~' : '-');
  if (!label.empty()) out += " " + one_line(label);
  out += "\n";
}

bool same_line(const Sources& src, Span a, Span b) {
  if (!a.valid() || !b.valid() || a.file != b.file || src.get(a.file).opaque) return false;
  const SourceFile& f = src.get(a.file);
  return f.locate(a.begin).line == f.locate(b.begin).line;
}

// Extra underline rows for secondary spans on the primary line ("this is Time (s)"). The
// window is the primary span's, so both underlines refer to the same printed text.
void secondary(std::string& out, const Sources& src, Span primary, Span s, const std::string& label) {
  const SourceFile& f = src.get(s.file);
  const LineCol lc = f.locate(s.begin);
  const std::string_view line = f.line_text(lc.line);
  const std::string gutter(std::to_string(f.shown_line(lc.line)).size(), ' ');
  const std::size_t p0 = f.locate(primary.begin).col - 1;
  const LineView pv = view_line(line, p0, 0);
  const LineView v = view_line(line, lc.col - 1, s.end > s.begin ? s.end - s.begin : 0);
  if (pv.text != v.text) return;  // too far apart on a long line to draw under one window
  out += gutter + " | " + v.pad + std::string(v.width, '-') + " " + one_line(label) + "\n";
}

}  // namespace

std::string render(const Sources& src, const Diagnostic& d) {
  std::string out;
  out += src.where_col(d.span) + ": ";
  out += d.severity == Severity::error ? "error" : "warning";
  out += "[" + std::string(info(d.kind).code) + "]: " + one_line(d.message) + "\n";
  excerpt(out, src, d.span, d.label, '^');
  for (const auto& n : d.notes)
    if (same_line(src, d.span, n.span)) secondary(out, src, d.span, n.span, n.text);
  for (const auto& n : d.notes) {
    if (same_line(src, d.span, n.span)) continue;
    out += src.where_col(n.span) + ": note: " + one_line(n.text) + "\n";
    excerpt(out, src, n.span, "", '-');
  }
  for (const auto& h : d.help) out += "  = help: " + one_line(h) + "\n";
  return out;
}

std::string render_unplaced(const Diagnostic& d) {
  std::string out = d.severity == Severity::error ? "error" : "warning";
  out += "[" + std::string(info(d.kind).code) + "]: " + one_line(d.message) + "\n";
  for (const auto& h : d.help) out += "  = help: " + one_line(h) + "\n";
  return out;
}

void add_suggestion(Diagnostic& d, const std::string& near, char quote) {
  if (near.empty()) return;
  d.suggestions.push_back(near);
  d.help.push_back("did you mean " + std::string(1, quote) + near + std::string(1, quote) + "?");
}

bool suggest(Diagnostic& d, std::string_view word, const std::vector<std::string>& candidates, char quote) {
  const std::string near = closest(word, candidates);
  add_suggestion(d, near, quote);
  return !near.empty();
}

std::string render_all(const Sources& src, const Diagnostics& ds, std::size_t max_shown) {
  // Source order (file, then offset) reads best; diagnostics without a place come last.
  std::vector<const Diagnostic*> order;
  for (const auto& d : ds.items()) order.push_back(&d);
  std::stable_sort(order.begin(), order.end(), [](const Diagnostic* a, const Diagnostic* b) {
    const auto ka = std::make_pair(a->span.file, a->span.begin);
    const auto kb = std::make_pair(b->span.file, b->span.begin);
    return ka < kb;
  });
  // The same message twice (a recursive function's body is checked more than once) says
  // nothing new: keep the first.
  std::vector<std::string> texts;
  std::unordered_set<std::string> seen;
  for (const Diagnostic* d : order) {
    std::string t = render(src, *d);
    if (seen.insert(t).second) texts.push_back(std::move(t));
  }
  std::string out;
  for (std::size_t i = 0; i < texts.size() && i < max_shown; ++i) out += texts[i];
  // A garbage or mangled file can produce an error per line: the first ones are the useful ones.
  if (texts.size() > max_shown)
    out += "mls: " + std::to_string(texts.size() - max_shown) + " more diagnostic" +
           (texts.size() - max_shown == 1 ? "" : "s") + " not shown (the first " + std::to_string(max_shown) +
           " are above)\n";
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
  // Edit distance is quadratic: a huge identifier (generated or corrupt input) gets no advice.
  if (word.size() > kMaxSuggestLength) return best;
  // One- and two-letter words are too short for a suggestion to mean anything.
  std::size_t best_d = word.size() <= 2 ? 1 : word.size() / 3 + 1;
  for (const auto& c : candidates) {
    if (c == word) continue;
    // The length difference is a lower bound of the distance: skip hopeless candidates cheaply.
    if ((c.size() > word.size() ? c.size() - word.size() : word.size() - c.size()) >= best_d) continue;
    const std::size_t d = edit_distance(word, c);
    // Ties keep the first candidate in the caller's (sorted) order: deterministic output.
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  if (!best.empty()) return best;
  // No near spelling: a candidate that is one `_`-separated part of the word, or the word one of
  // its parts (`step_time` -> `step`, `mtbf` -> `fleet_mtbf`); the longest such, first on ties.
  if (word.size() < 3) return best;
  auto part_of = [](std::string_view whole, std::string_view part) {
    if (part.size() < 3 || part.size() >= whole.size()) return false;
    const auto at = whole.find(part);
    if (at == std::string_view::npos) return false;
    const bool left = at == 0 || whole[at - 1] == '_';
    const bool right = at + part.size() == whole.size() || whole[at + part.size()] == '_';
    return left && right;
  };
  for (const auto& c : candidates)
    if ((part_of(word, c) || part_of(c, word)) && c.size() > best.size()) best = c;
  return best;
}

}  // namespace mls
