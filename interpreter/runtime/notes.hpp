// notes.hpp — regime notes of a sweep table (where a swept column silently changes meaning),
// built row by row in bounded memory (notes.cpp).
#pragma once

#include <memory>
#include <vector>

#include "interpreter/results/run_result.hpp"

namespace mls {

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
  void add(Row& row, std::size_t index);
  [[nodiscard]] std::vector<Note> finish();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace mls
