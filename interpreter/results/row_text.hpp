// row_text.hpp — a sweep's rows formatted off the writer's thread. A table of a million rows
// spends most of its time turning numbers into text, and that text depends only on the row
// and on the column display units fixed at table_begin: a sink that can say so hands out a
// RowFormat, the sweep's worker threads format their chunks of rows with it, and the sink
// writes the texts in enumeration order. Output bytes are the same as through table_row.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "run_result.hpp"

namespace mls {

// One formatting thread's memory of each column's recent texts and the binary64 numbers they
// were made from: consecutive rows of a sweep repeat most cells (the outer sweep variables
// change slowly, the innermost one cycles through a few values), and a number seen before
// need not be formatted again.
class CellMemo {
 public:
  // Appends column c's text for v: what make(out) appended for the same number last time, or
  // make(out) itself (remembered when v is a binary64 number).
  template <class Make>
  void append(std::string& out, std::size_t c, const Value& v, Make&& make) {
    if (v.k != Value::K::num || v.n.exact()) {
      make(out);
      return;
    }
    append_binary64(out, c, v.n.d, make);
  }
  // The same for a cell known to be the binary64 number x (a compact row's, read directly).
  template <class Make>
  void append_binary64(std::string& out, std::size_t c, double x, Make&& make) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &x, sizeof bits);
    // A few texts per column, the slot chosen by a hash of the number: an inner sweep variable
    // of up to kWays values (a batch size, a tensor-parallel degree) then always finds its text.
    if ((c + 1) * kWays > slots_.size()) slots_.resize((c + 1) * kWays);
    Slot& s = slots_[c * kWays + static_cast<std::size_t>((bits * 0x9E3779B97F4A7C15ull) >> 61)];
    if (s.len != 0 && s.bits == bits) {
      out.append(s.text, s.len);
      return;
    }
    const std::size_t at = out.size();
    make(out);
    // A text too long for the slot (a number is rarely over 24 bytes) is not remembered.
    const std::size_t len = out.size() - at;
    s.len = len <= sizeof s.text ? static_cast<std::uint8_t>(len) : 0;
    if (s.len != 0) std::memcpy(s.text, out.data() + at, len);
    s.bits = bits;
  }

 private:
  static constexpr std::size_t kWays = 8;  // slots per column (the hash above keeps 3 bits)
  // The text in place, not in a std::string: remembering it is a copy of a few bytes, with no
  // call into the string's reallocation logic per changed cell.
  struct Slot {
    std::uint8_t len = 0;  // 0: nothing remembered
    std::uint64_t bits = 0;
    char text[40] = {};
  };
  std::vector<Slot> slots_;
};

// Formats rows as one sink's table_row would write them. Immutable: shared between threads,
// each of which brings its own memo (one memo serves one format only).
class RowFormat {
 public:
  virtual ~RowFormat() = default;
  // Appends the bytes table_row would write for a row with these cells.
  virtual void append(std::span<const Value> cells, std::string& out, CellMemo& memo) const = 0;
  // The same bytes for a row whose every cell is a binary64 number (no resolution: the Values
  // append would take are Value::number(Num::of_double(x[c])) with any deps), read from the
  // numbers directly. False, appending nothing, where the format has no such path.
  virtual bool append_numbers(std::span<const double> x, std::string& out, CellMemo& memo) const {
    (void)x;
    (void)out;
    (void)memo;
    return false;
  }
};

// A RunSink that accepts preformatted rows (a second base class: found by dynamic_cast).
class RowTextSink {
 public:
  virtual ~RowTextSink() = default;
  // The format of the rows of `t` from now on, or nullptr (not yet — text output fixes its
  // column widths after the first rows — or never). Asked after table_begin and after rows.
  virtual std::shared_ptr<const RowFormat> row_format(const Table& t) = 0;
  // In place of table_row: one row's text, made by the format row_format returned for `t`.
  virtual void table_row_text(const Table& t, std::string_view text) = 0;
};

// format_value(v, d) appended to `out`: binary64 numbers without a resolution in plain
// binary64 arithmetic (number_fast.hpp, same bytes), the rest through format_value.
void append_value(std::string& out, const Value& v, const Display& d);

}  // namespace mls
