// fuzz_pipeline.cpp — libFuzzer target over the whole pipeline: load (in memory), parse, resolve,
// check, configure, run with small caps, and format in every output format.
//
// The input is the main file, "main.mls". Lines `#--- NAME.mls` split it into several files
// that `import` can reach (so cycles and missing imports are fuzzed too), and leading lines
// `#!use NAME=CHOICE`, `#!set NAME=VALUE`, `#!preset NAME` act like the command-line options.
// Besides crashes and sanitizer reports, the target traps on broken promises: an internal
// error, a failed phase without a diagnostic, or JSON output that is not JSON (inf, nan).
// A recipe (structured.hpp) expands to the input first: files of up to 16 MiB, nesting millions
// deep, lists of a million elements, a hundred thousand statements.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>

#include "cli/memory_limit.hpp"
#include "interpreter/report/chart.hpp"
#include "interpreter/report/report.hpp"
#include "interpreter/results/format.hpp"
#include "interpreter/tooling/driver.hpp"
#include "structured.hpp"

namespace {

using Files = std::map<std::string, std::string>;

std::string normal(const std::string& path) { return std::filesystem::path(path).lexically_normal().generic_string(); }

Files split_files(std::string_view input) {
  Files files;
  std::string name = "main.mls";
  std::string text;
  std::size_t pos = 0;
  while (pos < input.size()) {
    std::size_t end = input.find('\n', pos);
    end = end == std::string_view::npos ? input.size() : end + 1;
    const std::string_view line = input.substr(pos, end - pos);
    if (line.rfind("#--- ", 0) == 0) {
      files[name] += text;
      text.clear();
      std::string n(line.substr(5));
      while (!n.empty() && (n.back() == '\n' || n.back() == '\r' || n.back() == ' ')) n.pop_back();
      name = normal(n.empty() ? "unnamed.mls" : n);
    } else {
      text += line;
    }
    pos = end;
  }
  files[name] += text;
  return files;
}

mls::Selection selection_of(const std::string& main) {
  mls::Selection sel;
  std::size_t pos = 0;
  while (main.compare(pos, 2, "#!") == 0) {
    std::size_t end = main.find('\n', pos);
    if (end == std::string::npos) end = main.size();
    const std::string line = main.substr(pos + 2, end - pos - 2);
    const auto eq = line.find('=');
    if (line.rfind("use ", 0) == 0 && eq != std::string::npos)
      sel.uses.emplace_back(line.substr(4, eq - 4), line.substr(eq + 1));
    if (line.rfind("set ", 0) == 0 && eq != std::string::npos)
      sel.sets.emplace_back(line.substr(4, eq - 4), line.substr(eq + 1));
    if (line.rfind("preset ", 0) == 0) sel.preset = line.substr(7);
    pos = end + 1;
    if (pos >= main.size()) break;
  }
  return sel;
}

// Bare JSON tokens outside strings must be numbers, true, false or null.
bool json_tokens_ok(const std::string& json) {
  bool in_str = false;
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_str) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_str = false;
      continue;
    }
    if (c == '"') {
      in_str = true;
      continue;
    }
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      std::size_t e = i;
      while (e < json.size() && ((json[e] >= 'a' && json[e] <= 'z') || (json[e] >= 'A' && json[e] <= 'Z'))) ++e;
      const std::string word = json.substr(i, e - i);
      // "e" inside a number such as 1e+20 is preceded by a digit.
      const bool exponent = word == "e" && i > 0 && json[i - 1] >= '0' && json[i - 1] <= '9';
      if (word != "true" && word != "false" && word != "null" && !exponent) return false;
      i = e - 1;
    }
  }
  return !in_str;
}

[[noreturn]] void broken(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_pipeline: %s\n%s\n", what, detail.c_str());
  __builtin_trap();
}

// Loading and checking the prelude costs far more than a typical input under the sanitizers,
// so it is done once and each input is a transaction of the session core, rolled back afterwards
// (as the REPL undoes a failed input). A fresh base is made every kFreshEvery inputs (interned
// dependency sets are not freed by rollback), and always for the first input, so running the
// target on one crash file reproduces a fresh `mls run`. MLS_FUZZ_FRESH=1 makes a fresh session
// for every input.
constexpr std::size_t kFreshEvery = 256;

struct Base {
  mls::Core core;
};

std::unique_ptr<Base> make_base() {
  auto b = std::make_unique<Base>();
  if (!b->core.load_prelude() || !b->core.check())
    broken("the prelude does not load", mls::render_all(b->core.sources(), b->core.diagnostics()));
  return b;
}

}  // namespace

namespace {

std::unique_ptr<Base> base;

void run_input(const Files& files);

}  // namespace

// An input that needs more memory than the limit (MLS_MAX_MEMORY, or the executable's 4 GiB) fails
// with std::bad_alloc as `mls run` does (cli/main.cpp reports limit.memory): the session may be
// half-way through a phase, so it is dropped and the next input gets a fresh one. Memory in
// proportion to the input is allowed (a list literal costs ~1 KB per 2-byte element, a short
// statement ~1.5 KB: at most ~500 bytes per input byte); reaching the limit with an input smaller
// than (limit - the session's heap before it) / kMaxBytesPerInputByte is memory out of
// proportion, a finding. So is a bad_alloc that is not the limit's (the sanitizer's allocator
// refusing a size), and one while the prelude loads (a limit too low for the session itself).
constexpr std::size_t kMaxBytesPerInputByte = 2048;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view raw(reinterpret_cast<const char*>(data), size);
  std::string_view recipe;
  const bool is_recipe = mls_fuzz::recipe_of(raw, recipe);
  if (!is_recipe && size > (std::size_t{1} << 16))
    return -1;  // keep each small-mode run fast: large inputs are the structured mode's
  static std::size_t runs = 0;
  static const bool fresh_always = std::getenv("MLS_FUZZ_FRESH") != nullptr;
  if (!base || fresh_always || runs++ % kFreshEvery == 0) {
    base.reset();  // first: two sessions at once would count twice against the limit
    base = make_base();
  }
  const std::size_t held = mls::memory_in_use();
  std::size_t input_size = 0;  // 0 until the input is expanded: a limit reached before is the target's
  try {
    // The expansion and the split files count against the limit too (up to 2 x 16 MiB).
    std::string expanded;
    if (is_recipe) expanded = mls_fuzz::expand(recipe);
    const std::string_view in = is_recipe ? std::string_view(expanded) : raw;
    input_size = in.size();
    const Files files = split_files(in);
    run_input(files);
  } catch (const std::bad_alloc&) {
    if (!mls::memory_limit_reached()) throw;
    mls::clear_memory_limit_reached();
    base.reset();
    const std::size_t room = mls::memory_limit() > held ? mls::memory_limit() - held : 0;
    if (input_size > 0 && input_size < room / kMaxBytesPerInputByte)
      broken("memory out of proportion to the input", std::to_string(input_size) + " bytes reached the " +
                                                          mls::memory_limit_text() + " limit with " +
                                                          std::to_string(held >> 20) + " MiB held before it");
    std::fprintf(stderr, "fuzz_pipeline: the input needs more than the %s memory limit (%zu MiB held before it)\n",
                 mls::memory_limit_text().c_str(), held >> 20);
  }
  return 0;
}

namespace {

void run_input(const Files& files) {
  mls::Core& core = base->core;
  mls::Session& s = core.session();
  const mls::Core::Transaction input = core.begin();
  s.prog.reader = [&files](const std::string& path) -> std::optional<std::string> {
    auto it = files.find(normal(path));
    if (it == files.end()) return std::nullopt;
    return it->second;
  };
  mls::RunOptions opt;
  opt.max_points = 1000;
  opt.threads = 1;
  opt.exact_limit = 64;  // sweeps above 64 points take the binary64 path
  opt.max_steps = 200'000;
  opt.max_results = 10'000;
  const auto main_it = files.find("main.mls");
  const mls::Selection sel = selection_of(main_it == files.end() ? std::string() : main_it->second);
  // Uncertain literals (docs/uncertainty.md): a few seeded samples take the Monte Carlo path.
  if (main_it != files.end())
    for (const char* w : {"+-", "uniform(", "normal(", "triangular("})
      if (main_it->second.find(w) != std::string::npos) opt.uncertainty = 3;
  opt.seed = files.size();

  std::optional<mls::RunResult> r;
  // The prelude is loaded already: prepare() loads the main file (and its imports) and checks it.
  if (core.prepare(mls::Input{"main.mls", std::nullopt})) {
    if (core.configure(sel)) r = core.run(opt);
    if (!r && !core.has_errors()) broken("the run failed without a diagnostic", "");
  } else if (!core.has_errors()) {
    broken("prepare failed without a diagnostic", "");
  }
  if (r) {
    const std::string json = mls::format_result("json", scope_of(s.prog), *r, "main.mls");
    if (!json_tokens_ok(json)) broken("JSON output is not JSON", json);
    for (const char* f : {"text", "csv", "md"}) (void)mls::format_result(f, scope_of(s.prog), *r, "main.mls");
    // The report and every table's charts (docs/report.md): any run's output must render.
    (void)mls::report_html(mls::scope_of(s.prog), *r, {.file = "main.mls", .selection = "", .sensitivity = {}});
    for (const auto& t : r->tables) {
      if (!mls::chartable(t)) continue;
      const mls::Chart c = mls::chart_of(t, {});
      (void)mls::chart_svg(c);
      (void)mls::chart_text(c);
    }
  }
  const std::string rendered = mls::render_all(s.prog.sources, s.prog.diags);
  for (const auto& d : s.prog.diags.items())
    if (d.kind == mls::ErrorKind::internal) broken("internal error", rendered);
  r.reset();  // values refer to the program's tables: drop them before the rollback
  s.prog.reader = nullptr;
  core.rollback(input);
}

}  // namespace
