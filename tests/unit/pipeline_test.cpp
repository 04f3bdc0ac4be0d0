// pipeline_test.cpp — the driver on in-memory files (FileReader): imports, cycles, limits of the
// evaluation, pipeline threads, and atomic writes.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include "cli/atomic_file.hpp"
#include "interpreter/semantics/stack.hpp"
#include "interpreter/tooling/driver.hpp"

using namespace mls;

namespace {
struct Memory {
  std::map<std::string, std::string> files;
  void install(Session& s) const {
    s.prog.reader = [this](const std::string& path) -> std::optional<std::string> {
      auto it = files.find(std::filesystem::path(path).lexically_normal().generic_string());
      if (it == files.end()) return std::nullopt;
      return it->second;
    };
  }
};

bool has(const Session& s, ErrorKind k) {
  for (const auto& d : s.prog.diags.items())
    if (d.kind == k) return true;
  return false;
}
}  // namespace

TEST_CASE("imports are read through the FileReader") {
  Memory m;
  m.files["main.mls"] = "import \"lib/a.mls\"\nshow x = twice(21)\n";
  m.files["lib/a.mls"] = "let twice(v) = 2 * v\n";
  Session s;
  m.install(s);
  REQUIRE(prepare(s, "main.mls"));
  auto r = execute(s, Selection{}, RunOptions{});
  REQUIRE(r.has_value());
  CHECK(r->results.at(0).value.n.d == 42);
}

TEST_CASE("import cycles and missing imports are errors") {
  Memory m;
  m.files["main.mls"] = "import \"b.mls\"\n";
  m.files["b.mls"] = "import \"main.mls\"\n";
  Session s;
  m.install(s);
  CHECK_FALSE(prepare(s, "main.mls"));
  CHECK(has(s, ErrorKind::load_cycle));
  Session t;
  Memory n;
  n.files["main.mls"] = "import \"nope.mls\"\n";
  n.install(t);
  CHECK_FALSE(prepare(t, "main.mls"));
  CHECK(has(t, ErrorKind::load_missing));
  CHECK(t.prog.diags.exit_code() == 66);
}

TEST_CASE("binary input is refused before parsing") {
  Memory m;
  m.files["main.mls"] = std::string("show 1\n\0\x01", 9);
  Session s;
  m.install(s);
  CHECK_FALSE(prepare(s, "main.mls"));
  CHECK(has(s, ErrorKind::load_binary));
}

TEST_CASE("the step budget and the sweep cap come from RunOptions") {
  Memory m;
  m.files["main.mls"] = "let f(n) = if n <= 0 then 1 else f(n - 1) + f(n - 1)\nshow f(30)\n";
  Session s;
  m.install(s);
  REQUIRE(prepare(s, "main.mls"));
  RunOptions opt;
  opt.max_steps = 10'000;
  CHECK_FALSE(execute(s, Selection{}, opt).has_value());
  CHECK(has(s, ErrorKind::limit_steps));

  Memory w;
  w.files["main.mls"] = "sweep t over x in 1..100 { show x }\n";
  Session u;
  w.install(u);
  REQUIRE(prepare(u, "main.mls"));
  opt.max_points = 50;
  CHECK_FALSE(execute(u, Selection{}, opt).has_value());
  CHECK(has(u, ErrorKind::sweep_too_large));
}

TEST_CASE("a sweep gives the same table on 1 and 4 threads") {
  Memory m;
  m.files["main.mls"] = "sweep t over x in 1..2000 { show x, y = x * x / 7 }\n";
  auto run = [&](unsigned threads) {
    Session s;
    m.install(s);
    REQUIRE(prepare(s, "main.mls"));
    RunOptions opt;
    opt.threads = threads;
    auto r = execute(s, Selection{}, opt);
    REQUIRE(r.has_value());
    std::vector<double> cells;
    for (const auto& row : r->tables.at(0).rows) cells.push_back(row.cells.at(1).n.d);
    return cells;
  };
  CHECK(run(1) == run(4));
}

TEST_CASE("pipeline threads: exceptions cross back, nesting runs in place") {
  CHECK_THROWS_AS(run_on_pipeline_stack([] { throw std::runtime_error("boom"); }), std::runtime_error);
  bool inner = false;
  run_on_pipeline_stack([&] { run_on_pipeline_stack([&] { inner = true; }); });
  CHECK(inner);
  bool ran = false;
  PipelineThread th([&] { ran = !stack_nearly_exhausted(); });
  REQUIRE(th.started());
  th.join();
  CHECK(ran);
}

TEST_CASE("write_atomically leaves the old file when it cannot write") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("mls_unit_" + std::to_string(::getpid()));
  fs::create_directories(dir / "sub");
  const std::string target = (dir / "out.txt").string();
  std::string err;
  REQUIRE(write_atomically(target, "old", err));
  CHECK_FALSE(write_atomically((dir / "sub").string(), "x", err));  // a directory
  CHECK(err.find("is a directory") != std::string::npos);
  CHECK_FALSE(write_atomically((dir / "missing" / "f.txt").string(), "x", err));
  std::ifstream in(target);
  std::string content;
  std::getline(in, content);
  CHECK(content == "old");
  REQUIRE(write_atomically(target, "new", err));
  std::ifstream again(target);
  std::getline(again, content);
  CHECK(content == "new");
  std::size_t entries = 0;
  for (const auto& e : fs::directory_iterator(dir))
    entries += e.path().filename().string().find(".tmp") == std::string::npos ? 1 : 100;
  CHECK(entries == 2);  // out.txt and sub: no temporary file left
  fs::remove_all(dir);
}
