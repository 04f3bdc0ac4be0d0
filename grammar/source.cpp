// source.cpp — line tables and position rendering for loaded files.
#include "source.hpp"

#include <algorithm>

namespace mls {

std::optional<std::size_t> first_non_text(std::string_view s) {
  auto byte = [&](std::size_t i) { return i < s.size() ? static_cast<unsigned char>(s[i]) : 0u; };
  auto cont = [&](std::size_t i) { return (byte(i) & 0xC0) == 0x80; };
  std::size_t i = 0;
  while (i < s.size()) {
    const unsigned c = byte(i);
    if (c == 0) return i;
    if (c < 0x80) {
      ++i;
      continue;
    }
    // The second byte's range excludes overlong forms (E0, F0), surrogates (ED) and code
    // points above U+10FFFF (F4); C0, C1 and F5..FF never start a sequence.
    unsigned lo = 0x80, hi = 0xBF;
    std::size_t n = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return i;
    }
    if (byte(i + 1) < lo || byte(i + 1) > hi) return i;
    for (std::size_t k = 2; k < n; ++k)
      if (!cont(i + k)) return i;
    i += n;
  }
  return std::nullopt;
}

LineCol SourceFile::locate(std::uint32_t offset) const {
  auto it = std::upper_bound(line_starts.begin(), line_starts.end(), offset);
  const auto line = static_cast<std::uint32_t>(it - line_starts.begin());
  const std::uint32_t start = line_starts[line - 1];
  return {line, offset - start + 1};
}

std::string_view SourceFile::line_text(std::uint32_t line) const {
  if (line == 0 || line > line_starts.size()) return {};
  const std::uint32_t b = line_starts[line - 1];
  std::uint32_t e = line < line_starts.size() ? line_starts[line] : static_cast<std::uint32_t>(text.size());
  while (e > b && (text[e - 1] == '\n' || text[e - 1] == '\r')) --e;
  return std::string_view(text).substr(b, e - b);
}

FileId Sources::add(std::string name, std::string text, bool is_stdlib, std::uint32_t first_line) {
  auto f = std::make_unique<SourceFile>();
  f->first_line = first_line == 0 ? 1 : first_line;
  f->name = std::move(name);
  f->text = std::move(text);
  f->is_stdlib = is_stdlib;
  f->line_starts.push_back(0);
  for (std::uint32_t i = 0; i < f->text.size(); ++i)
    if (f->text[i] == '\n') f->line_starts.push_back(i + 1);
  files_.push_back(std::move(f));
  return static_cast<FileId>(files_.size() - 1);
}

FileId Sources::add_command_line(std::string name, std::string text, std::uint32_t first_line) {
  const FileId f = add(std::move(name), std::move(text), false, first_line);
  files_[f]->command_line = true;
  return f;
}

std::string_view Sources::slice(Span s) const {
  if (!s.valid()) return {};
  const auto& t = files_[s.file]->text;
  if (s.begin > t.size()) return {};
  return std::string_view(t).substr(s.begin, std::min<std::size_t>(s.end, t.size()) - s.begin);
}

std::string Sources::where_line(Span s) const {
  if (!s.valid()) return "command line";
  const auto& f = *files_[s.file];
  return f.name + ":" + std::to_string(f.shown_line(f.locate(s.begin).line));
}

std::string Sources::where_col(Span s) const {
  if (!s.valid()) return "command line";
  const auto& f = *files_[s.file];
  const auto lc = f.locate(s.begin);
  return f.name + ":" + std::to_string(f.shown_line(lc.line)) + ":" + std::to_string(lc.col);
}

}  // namespace mls
