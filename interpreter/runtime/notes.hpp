// notes.hpp — regime notes of a sweep table (where a swept column silently changes meaning),
// built row by row in bounded memory (notes.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "interpreter/results/run_result.hpp"

namespace mls {

struct CompactRows;
struct CompactCells;

// Whether two cells of a column hold the same value (a regime note's notion of "changed").
// Binary64 numbers first: every cell of a large sweep is compared with the row before.
[[nodiscard]] inline bool same_cell(const Value& a, const Value& b) {
  if (a.k == Value::K::num && b.k == Value::K::num && a.n.sd == 0 && b.n.sd == 0 && !a.n.ex && !b.n.ex)
    return a.n.d == b.n.d;
  if (a.k != b.k) return false;
  if (a.k == Value::K::num) return !a.n.exact() && !b.n.exact() ? a.n.d == b.n.d : compare(a.n, b.n) == 0;
  if (a.k == Value::K::boolean) return a.b == b.b;
  if (a.k == Value::K::str) return a.str() == b.str();
  return true;
}

// A row compared with the row before it in the table, by whoever has both at hand (a sweep's
// worker thread, for the rows of its chunk after the first): the writer's thread then need not
// read the cells again. Tables of more than 64 columns are not described (known stays false).
struct RowDelta {
  bool known = false;         // the fields below describe this row against the previous one
  bool same_deps = false;     // every cell's deps equal the previous row's
  bool numbers_only = false;  // every changed cell is a number, on both rows
  std::uint64_t changed = 0;  // bit c: column c's cell differs (same_cell)
  // Fills `d` for `row` against `prev` (rows of the same table).
  static void compare(RowDelta& d, const std::vector<Value>& prev, const std::vector<Value>& row);
};

class NotesBuilder {
 public:
  // `reference` recomputes each row's branch arms and steps every branch site on every row,
  // where `incremental` reuses the previous row's when its deps are the same and steps only the
  // sites whose arms changed: the same notes, byte for byte (tests/unit/notes_test.cpp).
  enum class Mode { incremental, reference };
  NotesBuilder(const Program& p, const Table& t, Mode mode = Mode::incremental);
  ~NotesBuilder();
  NotesBuilder(const NotesBuilder&) = delete;
  NotesBuilder& operator=(const NotesBuilder&) = delete;
  // Rows in table order. The row's key and cells become the previous row; `row` is left with
  // the storage (and stale values) of the row before, for the caller to refill.
  // `delta`, when known, is this row against the one added before it.
  void add(Row& row, std::size_t index, const RowDelta& delta = RowDelta{});
  // The same for the rows of a chunk of compact rows that are not filtered, in order: row r is
  // point first_point + r of the sweep, and they are the table's rows first_index, first_index
  // + 1, ...; each row's delta is its own (CompactRows::delta). Their Values, and their keys
  // (made by the key_maker, set before), are made only if a note needs them. The chunk's storage
  // may be reused once this returns. Rows of one table are all added one way or all the other.
  void add_chunk(const CompactCells& cc, const CompactRows& rows, std::size_t first_point, std::size_t first_index);
  void key_maker(std::function<void(std::size_t point, std::vector<Value>& key)> key_of);
  [[nodiscard]] std::vector<Note> finish();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace mls
