// source.hpp — source files, byte spans and their line/column mapping.
// Every phase reports positions as Spans; only rendering turns them into file:line:col.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mls {

using FileId = std::uint32_t;
inline constexpr FileId kNoFile = 0xffffffffu;

struct Span {
  FileId file = kNoFile;
  std::uint32_t begin = 0;  // byte offset, inclusive
  std::uint32_t end = 0;    // byte offset, exclusive
  [[nodiscard]] bool valid() const { return file != kNoFile; }
};

// Offset of the first byte that makes `s` not UTF-8 text, or nullopt. Strict (RFC 3629): a NUL
// byte, a stray continuation byte, a truncated sequence, an overlong form, a UTF-16 surrogate
// (U+D800..DFFF) or a code point above U+10FFFF all count; the parser and the terminal then
// only ever see well-formed text.
[[nodiscard]] std::optional<std::size_t> first_non_text(std::string_view s);

// The UTF-8 byte order mark some editors put first in a file: skipped, never an error.
inline constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

struct LineCol {
  std::uint32_t line = 0;  // 1-based
  std::uint32_t col = 0;   // 1-based, in bytes
};

struct SourceFile {
  std::string name;  // as shown to users: "stdlib/units.mls", "scenarios/x.mls"
  std::string text;
  bool is_stdlib = false;
  // The bytes are never shown (no excerpt under a diagnostic): a file read as data that has not
  // shown it is what the reader expects (a config.json that is not a JSON object with a
  // model_type may be any file, a secret among them). Positions are still given.
  bool opaque = false;
  // Text the front end wrote from its own arguments (`--set NAME=VALUE`, `mls repl --use`): what
  // it sets is placed on the command line, not at a line of this pseudo-file.
  bool command_line = false;
  // Number shown for the first line. REPL inputs are separate files, but their lines are
  // numbered as in the whole session (or stdin), so `<stdin>:12` points at the 12th line read.
  std::uint32_t first_line = 1;
  std::vector<std::uint32_t> line_starts;  // byte offset of each line
  [[nodiscard]] LineCol locate(std::uint32_t offset) const;
  [[nodiscard]] std::string_view line_text(std::uint32_t line) const;
  // The number users see for a 1-based line of this file.
  [[nodiscard]] std::uint32_t shown_line(std::uint32_t line) const { return line + first_line - 1; }
};

// Owns every loaded file for the lifetime of a session (the AST keeps spans into them).
class Sources {
 public:
  FileId add(std::string name, std::string text, bool is_stdlib, std::uint32_t first_line = 1);
  FileId add_command_line(std::string name, std::string text, std::uint32_t first_line = 1);
  [[nodiscard]] const SourceFile& get(FileId id) const { return *files_[id]; }
  void set_opaque(FileId id, bool opaque) { files_[id]->opaque = opaque; }
  [[nodiscard]] std::size_t size() const { return files_.size(); }
  [[nodiscard]] std::string_view slice(Span s) const;
  // "file:line" (for assumptions) and "file:line:col" (for diagnostics).
  [[nodiscard]] std::string where_line(Span s) const;
  [[nodiscard]] std::string where_col(Span s) const;
  // Drop files added after `count` (REPL rollback of a failed input).
  void truncate(std::size_t count) { files_.resize(count); }

 private:
  std::vector<std::unique_ptr<SourceFile>> files_;
};

}  // namespace mls
