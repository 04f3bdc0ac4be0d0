// workspace_test.cpp — the editor facade's internals: UTF-16 positions (clamped, non-ASCII),
// diagnostics with suggestions, what is at an offset, definitions of locals and documents,
// references, and hover that evaluates lazily and refuses a sweep over its point bound.
#include "interpreter/tooling/workspace.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace mls;

TEST_CASE("text positions count UTF-16 code units and clamp") {
  const std::string t = "ab\n\xF0\x9F\x98\x80\xC3\xA9x\n";  // "ab", then U+1F600 (2 units), é (1), x
  CHECK(text_pos(t, 0) == TextPos{0, 0});
  CHECK(text_pos(t, 3) == TextPos{1, 0});
  CHECK(text_pos(t, 7) == TextPos{1, 2});    // after the emoji
  CHECK(text_pos(t, 9) == TextPos{1, 3});    // after é
  CHECK(text_pos(t, 999) == TextPos{2, 0});  // clamped to the end
  CHECK(text_offset(t, TextPos{1, 3}) == 9);
  CHECK(text_offset(t, TextPos{1, 4}) == 10);
  CHECK(text_offset(t, TextPos{1, 99}) == 10);  // end of the line
  CHECK(text_offset(t, TextPos{99, 0}) == t.size());
  for (std::size_t off : {0, 1, 3, 7, 9, 10, 11}) CHECK(text_offset(t, text_pos(t, off)) == off);
}

TEST_CASE("diagnostics carry the range, code and did-you-mean") {
  Workspace ws;
  ws.open("/virtual/a.mls", "let x = 1\nlet y = H10 + x\n");
  const auto ds = ws.diagnostics("/virtual/a.mls");
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].code == "name.unknown");
  CHECK(ds[0].range == TextRange{{1, 8}, {1, 11}});
  REQUIRE(!ds[0].suggestions.empty());
  CHECK(ds[0].suggestions[0] == "H100");
  ws.open("/virtual/a.mls", "let x = 1\n");
  CHECK(ws.diagnostics("/virtual/a.mls").empty());
  CHECK(ws.diagnostics("/virtual/not_open.mls").empty());
}

TEST_CASE("an error inside the stdlib is shown at the document's call that reached it") {
  // fleet_mtbf -> node_mtbf reads node.gpus of an accelerator: two stdlib calls below line 2.
  Workspace ws;
  ws.open("/virtual/f.mls", "let f = fleet(TPU_v6e, 64, InfiniBand_NDR)\nshow m = fleet_mtbf(f) -> h\n");
  const auto ds = ws.diagnostics("/virtual/f.mls");
  REQUIRE(!ds.empty());
  for (const auto& d : ds) {
    CHECK(d.code == "field.unknown");
    CHECK(d.message.find("reliability.mls:") != std::string::npos);  // where in the stdlib, in the text
    CHECK(d.range == TextRange{{1, 9}, {1, 22}});                    // fleet_mtbf(f)
  }
}

TEST_CASE("an open document is read for imports instead of the disk") {
  Workspace ws;
  ws.open("/virtual/lib.mls", "let base = 2 GB\n");
  ws.open("/virtual/main.mls", "import \"lib.mls\"\nlet twice = base * 2\n");
  CHECK(ws.diagnostics("/virtual/main.mls").empty());
  const auto d = ws.definition("/virtual/main.mls", TextPos{1, 14});
  REQUIRE(d.size() == 1);
  CHECK(d[0].file == "/virtual/lib.mls");
  CHECK(d[0].range == TextRange{{0, 4}, {0, 8}});
}

TEST_CASE("definitions, references and hover in one document") {
  Workspace ws;
  const std::string p = "/virtual/b.mls";
  ws.open(p,
          "let f(a) = a * 2\n"
          "let g = f(3 s)\n"
          "sweep s over n in 1..3 {\n"
          "  show n, m = f(n * 1 s)\n"
          "}\n");
  REQUIRE(ws.diagnostics(p).empty());
  // `a` in the body is the parameter.
  auto d = ws.definition(p, TextPos{0, 11});
  REQUIRE(d.size() == 1);
  CHECK(d[0].range == TextRange{{0, 6}, {0, 7}});
  // f: declared once, called twice.
  const auto refs = ws.references(p, TextPos{0, 4}, true);
  CHECK(refs.size() == 3);
  CHECK(ws.references(p, TextPos{0, 4}, false).size() == 2);
  // Hover on g evaluates it: 6 s, with no assumption of its own beyond the literal.
  auto h = ws.hover(p, TextPos{1, 4});
  REQUIRE(h);
  CHECK(h->markdown.find("Time") != std::string::npos);
  CHECK(h->markdown.find("`6 s`") != std::string::npos);
  // The column m of the sweep: three rows.
  h = ws.hover(p, TextPos{3, 10});
  REQUIRE(h);
  CHECK(h->markdown.find("3 rows") != std::string::npos);
  ws.limits.hover_points = 2;
  ws.open(p, "sweep s over n in 1..3 {\n  show n, m = n * 2\n}\n");
  h = ws.hover(p, TextPos{1, 10});
  REQUIRE(h);
  CHECK(h->markdown.find("not evaluated (too large") != std::string::npos);
  // Out-of-range positions are clamped, never an error.
  CHECK_NOTHROW((void)ws.hover(p, TextPos{1000, 1000}));
  const auto syms = ws.symbols(p);
  REQUIRE(syms.size() == 1);
  CHECK(syms[0].name == "s");
}

TEST_CASE("completion offers fields after a dot") {
  Workspace ws;
  ws.open("/virtual/c.mls", "let y = H100.\n");
  const auto c = ws.completion("/virtual/c.mls", TextPos{0, 13});
  CHECK(std::find(c.labels.begin(), c.labels.end(), "hbm") != c.labels.end());
  CHECK(c.replace == TextRange{{0, 13}, {0, 13}});
}

TEST_CASE("completion offers the document's names and the fields of its records") {
  Workspace ws;
  const std::string p = "/virtual/d.mls";
  ws.open(p, "let budget = { gpus: 8, hours: 10 h }\nlet b2 = budget.\nlet c = bu\n");
  auto c = ws.completion(p, TextPos{1, 16});
  CHECK(c.labels == std::vector<std::string>{"gpus", "hours"});
  c = ws.completion(p, TextPos{2, 10});
  CHECK(std::find(c.labels.begin(), c.labels.end(), "budget") != c.labels.end());
  CHECK(c.replace == TextRange{{2, 8}, {2, 10}});
}

TEST_CASE("hover in a document with errors evaluates what the errors do not reach") {
  Workspace ws;
  const std::string p = "/virtual/e.mls";
  // Typing `H100.`: the document does not parse, and `a` does not depend on it.
  ws.open(p, "let a = 2 * 3\nlet b = H100.\nlet c = b + 1\n");
  REQUIRE(!ws.diagnostics(p).empty());
  auto h = ws.hover(p, TextPos{0, 4});
  REQUIRE(h);
  CHECK(h->markdown.find("`6`") != std::string::npos);
  CHECK(h->markdown.find("not evaluated") == std::string::npos);
  h = ws.hover(p, TextPos{2, 4});
  REQUIRE(h);
  CHECK(h->markdown.find("not evaluated: depends on `b` (line 2), which has an error") != std::string::npos);
  // An error in a function: its caller is not evaluated, a let that calls another function is.
  ws.open(p, "let f(x) = x + 1 s\nlet g(x) = x * 2\nlet p = f(3)\nlet q = g(3)\nshow shown = q * 2\n");
  h = ws.hover(p, TextPos{3, 4});
  REQUIRE(h);
  CHECK(h->markdown.find("`6`") != std::string::npos);
  h = ws.hover(p, TextPos{2, 4});
  REQUIRE(h);
  CHECK(h->markdown.find("not evaluated: depends on `f` (line 1), which has an error") != std::string::npos);
  h = ws.hover(p, TextPos{0, 4});
  REQUIRE(h);
  h = ws.hover(p, TextPos{4, 6});
  REQUIRE(h);
  CHECK(h->markdown.find("`12`") != std::string::npos);
}

TEST_CASE("hover in a document whose choices cannot all be configured") {
  Workspace ws;
  const std::string p = "/virtual/f.mls";
  // The configuration refuses the `use`: what reads the convention is not evaluated, the rest is,
  // under the clean choices (the `set`).
  ws.open(p,
          "use hfu = nonsense\nlet x = 2 GB\nset x = 4 GB\nlet y = x * 2\n"
          "let mine = match hfu { palm => 1, _ => 2 }\n");
  const auto ds = ws.diagnostics(p);
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].code == "convention.choice");
  auto h = ws.hover(p, TextPos{3, 4});
  REQUIRE(h);
  CHECK(h->markdown.find("`8 GB`") != std::string::npos);
  CHECK(h->markdown.find("x = 4 GB") != std::string::npos);  // the set applies
  h = ws.hover(p, TextPos{4, 4});
  REQUIRE(h);
  CHECK(h->markdown.find("not evaluated: depends on `use hfu = nonsense` (line 1), which has an error") !=
        std::string::npos);
  h = ws.hover(p, TextPos{0, 5});  // the convention: no choice is current
  REQUIRE(h);
  CHECK(h->markdown.find("**current**") == std::string::npos);
  CHECK(h->markdown.find("no current choice: depends on `use hfu = nonsense`") != std::string::npos);
}
