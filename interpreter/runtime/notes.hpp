// notes.hpp — regime notes of a sweep table (where a swept column silently changes meaning),
// built row by row in bounded memory (notes.cpp).
#pragma once

#include <memory>
#include <vector>

#include "interpreter/results/run_result.hpp"

namespace mls {

class NotesBuilder {
 public:
  NotesBuilder(const Program& p, const Table& t);
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
