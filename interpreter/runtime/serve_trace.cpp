// serve_trace.cpp — the CSV reader of serve_sim's request traces: every malformed byte is reported
// with its line and column, never guessed around (a silently skipped row would change every result).
#include "serve_trace.hpp"

#include <charconv>
#include <cmath>
#include <system_error>

namespace mls::servesim {

namespace {

constexpr const char* kColumns[] = {"arrival_s", "prompt_tokens", "output_tokens"};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Fields of one line: [begin, end) byte offsets of each, trimmed of spaces.
struct Field {
  std::size_t begin, end;
};

std::vector<Field> split(std::string_view line) {
  std::vector<Field> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= line.size(); ++i) {
    if (i < line.size() && line[i] != ',') continue;
    std::size_t b = start, e = i;
    while (b < e && is_space(line[b])) ++b;
    while (e > b && is_space(line[e - 1])) --e;
    out.push_back({b, e});
    start = i + 1;
  }
  return out;
}

std::string shown(std::string_view s) {
  if (s.empty()) return "nothing";
  std::string out = "'";
  for (char c : s.substr(0, 24)) out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  if (s.size() > 24) out += "...";
  return out + "'";
}

}  // namespace

TraceParse parse_trace(std::string_view text) {
  TraceParse out;
  std::uint32_t lineno = 0;
  bool seen_row_or_header = false;  // the first line that is not blank or a comment was read
  bool seen_header = false;
  double last_arrival = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++lineno;
    // Until a line has read as a header or a row, the file may be anything (serving_trace
    // ("secret.txt")): errors then give the place, never the text.
    const bool trace_like = seen_header || !out.rows.empty();
    auto fail = [&](std::size_t col0, std::string msg) {
      out.error = TraceError{lineno, static_cast<std::uint32_t>(col0 + 1), std::move(msg),
                             trace_like ? std::string(line) : std::string(), !trace_like};
      out.rows.clear();
      return out;
    };
    auto got = [&](std::string_view s) { return trace_like ? shown(s) : std::string("something else"); };
    std::size_t first = 0;
    while (first < line.size() && is_space(line[first])) ++first;
    if (first == line.size() || line[first] == '#') continue;
    const std::vector<Field> f = split(line);
    auto field = [&](std::size_t i) { return line.substr(f[i].begin, f[i].end - f[i].begin); };
    if (!seen_row_or_header) {
      seen_row_or_header = true;
      if (f.size() == 3 && field(0) == kColumns[0]) {
        for (std::size_t i = 1; i < 3; ++i)
          if (field(i) != kColumns[i])
            return fail(f[i].begin,
                        std::string("expected the header column '") + kColumns[i] + "', got " + got(field(i)));
        seen_header = true;
        continue;
      }
    }
    if (f.size() != 3)
      return fail(f.size() > 3 ? f[3].begin : line.size(),
                  "expected 3 fields (arrival_s, prompt_tokens, output_tokens), got " + std::to_string(f.size()));
    if (out.rows.size() >= kMaxTraceRows)
      return fail(0, "a trace holds at most " + std::to_string(kMaxTraceRows) + " requests");
    TraceRow row;
    {
      const std::string_view s = field(0);
      const auto r = std::from_chars(s.data(), s.data() + s.size(), row.arrival);
      if (s.empty() || r.ec != std::errc{} || r.ptr != s.data() + s.size() || !std::isfinite(row.arrival) ||
          row.arrival < 0)
        return fail(f[0].begin, "expected an arrival time in seconds (a number >= 0), got " + got(s));
      if (row.arrival < last_arrival)
        return fail(f[0].begin, "arrival times must not decrease: " + std::string(s) + " s comes after an arrival at " +
                                    std::to_string(last_arrival) + " s");
      last_arrival = row.arrival;
    }
    for (std::size_t i = 1; i < 3; ++i) {
      const std::string_view s = field(i);
      std::int64_t v = 0;
      const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
      if (s.empty() || r.ec != std::errc{} || r.ptr != s.data() + s.size() || v < 1 || v > kMaxTraceTokens)
        return fail(f[i].begin, std::string("expected ") + kColumns[i] + " as a whole number from 1 to " +
                                    std::to_string(kMaxTraceTokens) + ", got " + got(s));
      (i == 1 ? row.prompt : row.output) = v;
    }
    out.rows.push_back(row);
  }
  if (out.rows.empty() && !out.error)
    out.error = TraceError{lineno == 0 ? 1 : lineno, 1, "the trace holds no requests", "", false};
  return out;
}

}  // namespace mls::servesim
