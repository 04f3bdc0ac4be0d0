// line_editor.hpp — reading lines at the REPL prompt: libedit (BSD) line editing, persistent
// history and Tab completion when built with it (MLS_HAVE_LIBEDIT), plain reads otherwise.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "interpreter/tooling/completion.hpp"

namespace mls {

class LineEditor {
 public:
  using Completer = std::function<Completion(std::string_view before_cursor)>;
  enum class Read { line, eof, interrupted };

  // `history_path` empty: no persistent history. At most `history_max` lines are kept.
  LineEditor(Completer completer, std::string history_path, int history_max = 1000);
  ~LineEditor();
  LineEditor(const LineEditor&) = delete;
  LineEditor& operator=(const LineEditor&) = delete;

  // One line without its newline. `interrupted`: Ctrl-C (the caller drops a pending input).
  Read read(const std::string& prompt, std::string& line);
  // Adds a line to the history and saves the history file (atomically: temp file + rename).
  void remember(const std::string& line);
  // Whether this build edits lines (libedit) or reads them plainly.
  [[nodiscard]] static bool editing();
  // A problem with the history file, reported once by the caller ("" if none).
  [[nodiscard]] const std::string& history_error() const { return history_error_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string history_error_;
};

// ~/.mls_history, or $MLS_HISTORY; "" when MLS_HISTORY is set and empty (history disabled).
[[nodiscard]] std::string default_history_path();

}  // namespace mls
