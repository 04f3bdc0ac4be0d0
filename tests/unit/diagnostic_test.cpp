// diagnostic_test.cpp — rendering diagnostics: carets under UTF-8 and tabs, long lines, notes,
// the cap and de-duplication of the list, and did-you-mean.
#include "grammar/diagnostic.hpp"

#include <doctest/doctest.h>

using namespace mls;

namespace {
Span at(const Sources& src, FileId f, std::string_view needle, std::size_t len = 0) {
  const auto& t = src.get(f).text;
  const auto b = static_cast<std::uint32_t>(t.find(needle));
  return Span{f, b, static_cast<std::uint32_t>(b + (len ? len : needle.size()))};
}
}  // namespace

TEST_CASE("the caret counts characters, not bytes, and keeps tabs") {
  Sources src;
  const FileId f = src.add("t.mls", "let d = 5 \xC2\xB5s + \"\xC3\xA9t\xC3\xA9\" + x\n", false);
  Diagnostic d;
  d.kind = ErrorKind::type_mismatch;
  d.message = "expected a number";
  d.span = at(src, f, "\"\xC3\xA9t\xC3\xA9\"");
  // "let d = 5 µs + " is 15 characters (µ is two bytes); the string is 5 characters wide.
  CHECK(render(src, d) ==
        "t.mls:1:17: error[type.mismatch]: expected a number\n"
        "  |\n"
        "1 | let d = 5 \xC2\xB5s + \"\xC3\xA9t\xC3\xA9\" + x\n"
        "  |                ^~~~~\n");
  const FileId g = src.add("tab.mls", "\tshow\tx\n", false);
  d.span = at(src, g, "x");
  CHECK(render(src, d) ==
        "tab.mls:1:7: error[type.mismatch]: expected a number\n"
        "  |\n"
        "1 | \tshow\tx\n"
        "  | \t    \t^\n");
}

TEST_CASE("secondary labels on the same line and notes elsewhere") {
  Sources src;
  const FileId f = src.add("t.mls", "let a = 1\nlet x = 80 GB + 3 s\n", false);
  Diagnostic d;
  d.kind = ErrorKind::dim_mismatch;
  d.message = "cannot add Information (B) and Time (s)";
  d.span = at(src, f, "80 GB + 3 s");
  d.notes.push_back({at(src, f, "80 GB"), "this is Information (B)"});
  d.notes.push_back({at(src, f, "let a"), "elsewhere"});
  d.help.push_back("a hint");
  CHECK(render(src, d) ==
        "t.mls:2:9: error[dim.mismatch]: cannot add Information (B) and Time (s)\n"
        "  |\n"
        "2 | let x = 80 GB + 3 s\n"
        "  |         ^~~~~~~~~~~\n"
        "  |         ----- this is Information (B)\n"
        "t.mls:1:1: note: elsewhere\n"
        "  |\n"
        "1 | let a = 1\n"
        "  | -----\n"
        "  = help: a hint\n");
}

TEST_CASE("long lines show a window around the span; messages stay on one line") {
  Sources src;
  std::string line = "show " + std::string(300, 'a') + " + BAD + " + std::string(300, 'b') + "\n";
  const FileId f = src.add("long.mls", line, false);
  Diagnostic d;
  d.kind = ErrorKind::name_unknown;
  d.message = "two\nlines\x1b[2J";
  d.span = at(src, f, "BAD");
  const std::string r = render(src, d);
  CHECK(r.find("two\\nlines?[2J") != std::string::npos);  // newline escaped, ESC replaced
  CHECK(r.find("| ...aaaa") != std::string::npos);
  CHECK(r.find("bbb...\n") != std::string::npos);
  // The caret still sits under BAD: same offset in the printed line and the underline row.
  const auto text_row = r.find("1 | ");
  const auto caret_row = r.find("  | ", text_row);
  const std::size_t col_text = r.find("BAD", text_row) - (text_row + 4);
  const std::size_t col_caret = r.find('^', caret_row) - (caret_row + 4);
  CHECK(col_text == col_caret);
  for (const auto& l : {r.substr(text_row, r.find('\n', text_row) - text_row)}) CHECK(l.size() < 200);
}

TEST_CASE("render_all: source order, duplicates once, at most N then a count") {
  Sources src;
  const FileId f = src.add("m.mls", "a\nb\nc\nd\n", false);
  Diagnostics ds;
  ds.error(ErrorKind::name_unknown, at(src, f, "c"), "third");
  ds.error(ErrorKind::name_unknown, at(src, f, "a"), "first");
  ds.error(ErrorKind::name_unknown, at(src, f, "a"), "first");  // the same twice
  ds.error(ErrorKind::name_unknown, at(src, f, "b"), "second");
  ds.error(ErrorKind::name_unknown, at(src, f, "d"), "fourth");
  const std::string all = render_all(src, ds);
  CHECK(all.find("first") < all.find("second"));
  CHECK(all.find("second") < all.find("third"));
  CHECK(all.find("first") == all.rfind("first"));
  const std::string capped = render_all(src, ds, 2);
  CHECK(capped.find("third") == std::string::npos);
  CHECK(capped.find("mls: 2 more diagnostics not shown (the first 2 are above)") != std::string::npos);
  CHECK(ds.exit_code() == 65);
}

TEST_CASE("did-you-mean") {
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("teh", "the") == 1);  // a transposition is one edit
  CHECK(closest("checkpoint_intreval", {"checkpoint_interval", "gpus"}) == "checkpoint_interval");
  CHECK(closest("gb", {"GB"}).empty());  // two letters: exact matches only
  CHECK(closest("zzzzzz", {"gpus", "h"}).empty());
  CHECK(closest(std::string(1000, 'a'), {std::string(999, 'a')}).empty());  // too long to bother
}
