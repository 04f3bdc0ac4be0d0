// error_reach_test.cpp — the dependency walk behind hover in a document with errors (issue 36):
// which statements an error reaches, through lets, functions, `set`s, `use`s and text that did not
// parse, which it does not, and which choices stay in the configuration.
#include "interpreter/tooling/error_reach.hpp"

#include <doctest/doctest.h>

#include "grammar/symbols.hpp"
#include "interpreter/tooling/driver.hpp"

using namespace mls;

namespace {

// `text` loaded and checked over the prelude (and configured when `configure`), as the editor does.
struct Doc {
  Core core;
  std::size_t first = 0;
  explicit Doc(const std::string& text, bool configure = false) {
    REQUIRE(core.load_prelude());
    REQUIRE(core.check());
    first = core.diagnostics().size();
    (void)core.add_main(Input{"/virtual/t.mls", text});
    REQUIRE(core.session().prog.main_file != kNoFile);
    (void)core.check();
    if (configure) (void)core.configure(Selection{});
    REQUIRE(core.has_errors());
  }
  const Stmt& stmt(const std::string& name) {
    for (const Stmt* s : core.session().prog.main_stmts)
      if (s->name == intern(name) && s->kind != SK::use) return *s;
    FAIL("no statement " << name);
    throw;
  }
  // "" when clean, else the cause's name and the line it is on.
  std::string cause(const std::string& name) {
    const ErrorReach reach(core.session().prog, first);
    const auto c = reach.cause(stmt(name));
    if (!c) return "";
    const SourceFile& f = core.sources().get(c->at.file);
    return c->what + " line " + std::to_string(f.locate(c->at.begin).line) + (c->everything ? " everything" : "");
  }
};

}  // namespace

TEST_CASE("an unfinished let reaches the lets that read it, not the others") {
  Doc d("let a = 2 * 3\nlet b = H100.\nlet c = b + 1\nlet d = c * a\nlet e = a + 1\n");
  CHECK(d.cause("a") == "");
  CHECK(d.cause("c") == "`b` line 2");  // unresolved, and not reported: the parse error explains it
  CHECK(d.cause("d") == "`b` line 2");  // through c
  CHECK(d.cause("e") == "");
}

TEST_CASE("an error in a function reaches its callers only") {
  Doc d(
      "let f(x) = x + 1 s\n"
      "let g(x) = x * 2\n"
      "let h(x) = g(x) + f(x)\n"
      "let p = f(3)\n"
      "let q = g(3)\n"
      "let r = h(q)\n");
  CHECK(d.cause("q") == "");
  CHECK(d.cause("p") == "`f` line 1");
  CHECK(d.cause("r") == "`f` line 1");  // through h
  CHECK(d.cause("f") == "`f` line 1");  // itself
}

TEST_CASE("mutually recursive functions reach an error from either side") {
  // BFS over what is read, not over results so far: the order of the walk does not matter.
  Doc d(
      "let odd(n) = if n <= 0 then 0 else even(n - 1)\n"
      "let even(n) = if n <= 0 then bad_name else odd(n - 1)\n"
      "let x = odd(3)\n"
      "let y = even(3)\n"
      "let z = 1\n");
  CHECK(d.cause("x") == "`even` line 2");
  CHECK(d.cause("y") == "`even` line 2");
  CHECK(d.cause("z") == "");
}

TEST_CASE("a set with an error reaches what reads its target") {
  Doc d("let x = 2\nset x = zz\nlet y = x * 2\nlet z = 3\n");
  CHECK(d.cause("y") == "`set x = zz` line 2");
  CHECK(d.cause("x") == "`set x = zz` line 2");
  CHECK(d.cause("z") == "");
  const ErrorReach reach(d.core.session().prog, d.first);
  CHECK(reach.clean_choices().empty());
}

TEST_CASE(
    "a set that does not parse reaches its target; one with no target yet nothing; one of an unknown name "
    "everything") {
  Doc d("let x = 2\nlet y = x + 1\nset x =\nlet z = 1\n");
  CHECK(d.cause("y") == "`set x =` line 3");
  CHECK(d.cause("z") == "");
  Doc e("let x = 2\nset\nlet z = 1\n");  // being typed: it names nothing it could set
  CHECK(e.cause("x") == "");
  CHECK(e.cause("z") == "");
  Doc f("let x = 2\nset zz\nlet z = 1\n");
  CHECK(f.cause("z") == "`set zz` line 2 everything");
}

TEST_CASE("a use the configuration refuses reaches what reads the convention, through the prelude") {
  Doc d(
      "use hfu = nonsense\n"
      "use batch = global\n"
      "let a = 2 GB * 3\n"
      "let mine = match hfu { palm => 1, _ => 2 }\n"
      "let s = mine + 1\n",
      true);
  CHECK(d.cause("a") == "");
  CHECK(d.cause("mine") == "`use hfu = nonsense` line 1");
  CHECK(d.cause("s") == "`use hfu = nonsense` line 1");
  const ErrorReach reach(d.core.session().prog, d.first);
  const auto clean = reach.clean_choices();
  REQUIRE(clean.size() == 1);
  CHECK(sym_name(clean[0]->name) == "batch");
}

TEST_CASE("a statement that may change any value reaches everything") {
  Doc d("let a = 2\npreset nope\n", true);
  CHECK(d.cause("a") == "`preset nope` line 2 everything");
}

TEST_CASE("a chain of a hundred thousand lets is walked without recursion") {
  std::string text = "let v0 = H100.\n";
  for (int i = 1; i <= 100000; ++i) text += "let v" + std::to_string(i) + " = v" + std::to_string(i - 1) + " + 1\n";
  text += "let free = 1\n";
  Doc d(text);
  CHECK(d.cause("v100000") == "`v0` line 1");
  CHECK(d.cause("free") == "");
}
