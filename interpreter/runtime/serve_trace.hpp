// serve_trace.hpp — the request trace files that drive serve_sim: CSV rows of arrival time (s),
// prompt tokens and output tokens. Parsing is pure (text in, rows or a positioned error out), so
// the fuzzer (tests/fuzz) and the unit tests call it without an evaluator.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mls::servesim {

// One request of a trace.
struct TraceRow {
  double arrival = 0;       // seconds from the trace's start
  std::int64_t prompt = 0;  // prompt tokens, >= 1
  std::int64_t output = 0;  // tokens to generate, >= 1
};

// Where and why a trace file is malformed (1-based line and byte column).
struct TraceError {
  std::uint32_t line = 0;
  std::uint32_t col = 0;
  std::string message;
  std::string line_text;  // the offending line, for the caret ("" when not shown)
  // No line of the file read as a trace before this error: its text is not shown (the file
  // may be anything), in line_text or the message.
  bool text_hidden = false;
};

struct TraceParse {
  std::vector<TraceRow> rows;
  std::optional<TraceError> error;
};

// Limits: a trace holds at most kMaxTraceRows rows; token counts at most kMaxTraceTokens each.
inline constexpr std::size_t kMaxTraceRows = 1'000'000;
inline constexpr std::int64_t kMaxTraceTokens = 10'000'000;

// Format: one request per line, `arrival_s, prompt_tokens, output_tokens`; blank lines and lines
// starting with `#` are skipped; the first other line may be the header
// `arrival_s,prompt_tokens,output_tokens` (spaces around fields allowed). Arrival times are
// non-negative decimal numbers in non-decreasing order; token counts are whole numbers >= 1.
[[nodiscard]] TraceParse parse_trace(std::string_view text);

}  // namespace mls::servesim
