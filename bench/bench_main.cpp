// bench_main.cpp — per-point cost of the E2 training scenario in mls against hand-written C++ of
// the same formulas (three variants) and a plain-Python port, measured in paired, interleaved
// rounds on CPU time: every round runs each contender once, each round gives a ratio, and the
// median and range of those ratios are reported (a load swing on this shared machine moves one
// round, not the answer). Checksums of every contender are compared; a mismatch fails the run.
// The exact path (sweeps up to 4096 points) is measured the same way against a Fraction port.
// Reports ratios; asserts nothing about time.
//
// usage: mls_bench MLS_BINARY bench/e2_bench.mls [--max-gpus N] [--rounds R] [--threads T]
//                  [--python-max-gpus N] [--no-python] [--exact-max-gpus N]
//                  [--fraction-max-gpus N] [--no-exact] [--quick]
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "e2_native.hpp"
#include "interpreter/results/format.hpp"
#include "interpreter/tooling/core.hpp"

namespace {

using Clock = std::chrono::steady_clock;
namespace nb = mls::bench;

const std::vector<double> kTp = {1, 2, 4, 8};
const std::vector<double> kBatch = {512, 1024, 2048, 4096, 8192, 16384, 32768, 65536};

double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
double wall_now() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

struct Timing {
  double cpu = 0, wall = 0;  // seconds
  std::size_t points = 0;
  double checksum = 0;  // every cell of every row, in row and column order
};

// Consumes rows without formatting: the checksum, a sample for the agreement check, the engine.
// (A boolean or string cell adds its Value's n.d, 0, to the checksum, in both forms.)
class CheckSink : public mls::RunSink {
 public:
  void begin(const mls::RunResult&) override {}
  void result(const mls::Shown&) override {}
  void table_begin(const mls::Table&) override {}
  void table_row(const mls::Table&, const mls::Row& r) override {
    ++rows;
    for (const auto& c : r.cells) checksum += c.n.d;
    if (rows % 997 == 1) sample.push_back(r);
  }
  // A compiled sweep's rows as numbers: the same checksum and sample without a Value per cell
  // (mls::RowBlock; the other sinks take them one Row at a time). A block whose rows lie in one
  // array of numbers is summed as one array, in eight running sums: one chain of dependent
  // additions per cell would cost more than making the row. The sum is a different rounding of
  // the same cells (checked against the native code's to 1e-9, as every checksum).
  void table_rows(const mls::Table&, const mls::RowBlock& b) override {
    const std::size_t w = b.width(), n = b.size();
    numeric.resize(w);
    bool all_numbers = true;
    for (std::size_t c = 0; c < w; ++c) {
      numeric[c] = b.number_column(c) ? 1.0 : 0.0;
      all_numbers &= numeric[c] != 0;
    }
    const double* const flat = b.contiguous();
    if (flat && all_numbers) {
      double s[8] = {};
      const std::size_t cells = n * w;
      std::size_t k = 0;
      for (; k + 8 <= cells; k += 8)
        for (std::size_t j = 0; j < 8; ++j) s[j] += flat[k + j];
      for (; k < cells; ++k) s[k % 8] += flat[k];
      checksum += ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    } else {
      double sum = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const double* x = b.numbers(i);
        for (std::size_t c = 0; c < w; ++c) sum += numeric[c] != 0 ? x[c] : 0.0;
      }
      checksum += sum;
    }
    // Rows 1, 998, 1995, ... of the table (counted from 1), as table_row samples them.
    for (std::size_t i = (997 - rows % 997) % 997; i < n; i += 997) {
      sample.emplace_back();
      b.row(i, sample.back());
    }
    rows += n;
  }
  void table_end(const mls::Table& t) override { engine = t.engine; }
  void assertion(const mls::AssertOutcome&) override {}
  void end() override {}
  std::size_t rows = 0;
  double checksum = 0;
  std::string engine;
  std::vector<mls::Row> sample;
  std::vector<double> numeric;  // per column of the block: 1 where it holds numbers
};

Timing run_mls(const std::string& scenario, long max_gpus, unsigned threads, CheckSink& sink) {
  mls::Core core;
  auto fail = [&] {
    std::fputs(mls::render_all(core.sources(), core.diagnostics()).c_str(), stderr);
    std::exit(70);
  };
  if (!core.prepare(mls::Input{scenario, std::nullopt})) fail();
  mls::Selection sel;
  sel.sets.emplace_back("max_gpus", std::to_string(max_gpus));
  if (!core.configure(sel)) fail();
  mls::RunOptions opt;
  opt.threads = threads;
  opt.max_points = 10'000'000;
  const double c0 = cpu_now(), w0 = wall_now();
  if (!core.run(opt, sink)) fail();
  Timing t{cpu_now() - c0, wall_now() - w0, sink.rows, sink.checksum};
  return t;
}

enum class Variant { plain, storing, hoisted };
const char* variant_name(Variant v) {
  return v == Variant::plain ? "native plain" : v == Variant::storing ? "native storing rows" : "native hoisted";
}

// The same grid in the same order (gpus outermost, batch innermost). With several threads,
// thread t takes every t-th gpus value, so each thread's rows stay in order.
Timing run_native(Variant v, long max_gpus, unsigned threads) {
  const long n_gpus = max_gpus / 8;
  std::vector<double> sums(threads, 0);
  const double c0 = cpu_now(), w0 = wall_now();
  auto work = [&](unsigned tid) {
    double acc = 0;
    auto add = [&acc](double gpus, double tp, double batch, const nb::E2Point& p) {
      for (double x : {gpus, tp, batch, p.step, p.efficiency, p.throughput, p.ckpt_write, p.goodput, p.tco}) acc += x;
    };
    if (v == Variant::plain) {
      for (long gi = tid; gi < n_gpus; gi += threads) {
        const double gpus = 8.0 * static_cast<double>(gi + 1);
        for (double tp : kTp)
          for (double batch : kBatch) add(gpus, tp, batch, nb::e2_native(nb::opaque(gpus), tp, batch));
      }
    } else if (v == Variant::hoisted) {
      for (long gi = tid; gi < n_gpus; gi += threads) {
        const nb::E2Gpus g = nb::e2_gpus(8.0 * static_cast<double>(gi + 1));
        for (double tp : kTp) {
          const nb::E2Tp t = nb::e2_tp(g.gpus, tp);
          for (double batch : kBatch) add(g.gpus, tp, batch, nb::e2_point(g, t, batch));
        }
      }
    } else {
      // Every row kept (key and cells), as a program that hands rows to a writer would.
      struct Stored {
        double gpus, tp, batch;
        nb::E2Point p;
      };
      std::vector<Stored> rows;
      rows.reserve(static_cast<std::size_t>(n_gpus / threads + 1) * 32);
      for (long gi = tid; gi < n_gpus; gi += threads) {
        const double gpus = 8.0 * static_cast<double>(gi + 1);
        for (double tp : kTp)
          for (double batch : kBatch) rows.push_back({gpus, tp, batch, nb::e2_native(nb::opaque(gpus), tp, batch)});
      }
      for (const auto& r : rows) add(r.gpus, r.tp, r.batch, r.p);
    }
    sums[tid] = acc;
  };
  if (threads == 1) {
    work(0);
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work, t);
    for (auto& th : pool) th.join();
  }
  Timing t{cpu_now() - c0, wall_now() - w0, static_cast<std::size_t>(n_gpus) * 32, 0};
  for (double x : sums) t.checksum += x;
  return t;
}

// A Python port (bench/e2_python.py, e2_fraction.py) in a child process; its own CPU time of the loop.
bool run_python(const std::string& script, long max_gpus, Timing& out) {
  const std::string cmd = "python3 '" + script + "' " + std::to_string(max_gpus);
  std::FILE* f = popen(cmd.c_str(), "r");
  if (!f) return false;
  char line[256] = {};
  const bool got = std::fgets(line, sizeof line, f) != nullptr;
  const int rc = pclose(f);
  if (!got || rc != 0) return false;
  unsigned long long points = 0;
  if (std::sscanf(line, "%llu %lf %lf", &points, &out.checksum, &out.cpu) != 3) return false;
  out.points = points;
  out.wall = out.cpu;
  return true;
}

// mls and the native code must compute the same numbers, or the ratio means nothing.
int validate(const CheckSink& sink) {
  int bad = 0;
  for (const auto& row : sink.sample) {
    const double gpus = row.cells[0].n.d, tp = row.cells[1].n.d, batch = row.cells[2].n.d;
    const nb::E2Point p = nb::e2_native(gpus, tp, batch);
    const double want[] = {p.step, p.efficiency, p.throughput, p.ckpt_write, p.goodput, p.tco};
    for (int c = 0; c < 6; ++c) {
      const double got = row.cells[static_cast<std::size_t>(3 + c)].n.d;
      if (std::fabs(got - want[c]) > 1e-9 * std::max(std::fabs(got), std::fabs(want[c]))) {
        if (bad++ < 5)
          std::fprintf(stderr, "mismatch at gpus=%g tp=%g batch=%g column %d: mls %.17g native %.17g\n", gpus, tp,
                       batch, c, got, want[c]);
      }
    }
  }
  return bad;
}

bool close(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b)); }

// Peak resident memory of a separate `mls run` (rows streamed to /dev/null as CSV).
long peak_rss_kib(const std::string& mls_bin, const std::string& scenario, long max_gpus) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    dup2(devnull, 2);
    const std::string set = "max_gpus=" + std::to_string(max_gpus);
    execl(mls_bin.c_str(), mls_bin.c_str(), "run", scenario.c_str(), "--format", "csv", "--set", set.c_str(),
          "--max-points", "10000000", static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  struct rusage ru {};
  if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return ru.ru_maxrss;
}

struct Stats {
  double median, lo, hi;
};
Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  const double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  return {med, v.front(), v.back()};
}

double ns(double seconds, std::size_t points) { return 1e9 * seconds / static_cast<double>(points); }

// The exact path: mls on a grid within the exact limit (4096 points by default) against the
// fractions.Fraction port on a smaller grid, per point, in paired rounds on CPU time. The port
// is checked against mls exact on its own grid, and mls exact against native plain, to 1e-9.
int bench_exact(const std::string& scenario, const std::string& script, long max_gpus, long fraction_max_gpus,
                int rounds) {
  CheckSink on_fraction_grid;
  const Timing small = run_mls(scenario, fraction_max_gpus, 1, on_fraction_grid);
  Timing fr;
  if (!run_python(script, fraction_max_gpus, fr)) {
    std::fprintf(stderr, "mls_bench: could not run %s (use --no-exact to skip it)\n", script.c_str());
    return 1;
  }
  if (fr.points != small.points || !close(fr.checksum, small.checksum)) {
    std::fprintf(stderr, "checksums differ: Fraction %.17g (%zu rows), mls exact %.17g (%zu rows)\n", fr.checksum,
                 fr.points, small.checksum, small.points);
    return 1;
  }
  std::vector<double> mls_ns, fraction_ns, ratio;
  std::string engine;
  for (int r = 0; r < rounds; ++r) {
    CheckSink sink;
    const Timing m = run_mls(scenario, max_gpus, 1, sink);
    const Timing ref = run_native(Variant::plain, max_gpus, 1);
    if (sink.engine != "exact" || !close(m.checksum, ref.checksum)) {
      std::fprintf(stderr, "exact path: engine '%s', checksum mls %.17g native %.17g\n", sink.engine.c_str(),
                   m.checksum, ref.checksum);
      return 1;
    }
    if (!run_python(script, fraction_max_gpus, fr)) return 1;
    mls_ns.push_back(ns(m.cpu, m.points));
    fraction_ns.push_back(ns(fr.cpu, fr.points));
    ratio.push_back(fraction_ns.back() / mls_ns.back());
    engine = sink.engine;
  }
  const Stats ms = stats(mls_ns), fs = stats(fraction_ns), q = stats(ratio);
  std::printf("\nexact path (engine: %s), 1 thread, CPU time per point:\n", engine.c_str());
  std::printf("  %-22s %8.0f ns [%.0f-%.0f]  (%ld/8 x 32 points)\n", "mls exact", ms.median, ms.lo, ms.hi, max_gpus);
  std::printf("  %-22s %8.0f ns [%.0f-%.0f]   Fraction / mls %5.1fx [%.1f-%.1f]  (%ld/8 x 32 points)\n",
              "Python Fraction", fs.median, fs.lo, fs.hi, q.median, q.lo, q.hi, fraction_max_gpus);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fputs(
        "usage: mls_bench MLS_BINARY bench/e2_bench.mls [--max-gpus N] [--rounds R] [--threads T]\n"
        "                 [--python-max-gpus N] [--no-python] [--exact-max-gpus N]\n"
        "                 [--fraction-max-gpus N] [--no-exact] [--quick]\n",
        stderr);
    return 64;
  }
  const std::string mls_bin = argv[1], scenario = argv[2];
  long max_gpus = 250000, python_max_gpus = 25000, exact_max_gpus = 1024, fraction_max_gpus = 64;
  int rounds = 5;
  bool quick = false, python = true, exact = true;
  unsigned only_threads = 0;
  for (int i = 3; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--max-gpus") && i + 1 < argc)
      max_gpus = std::atol(argv[++i]);
    else if ((!std::strcmp(argv[i], "--rounds") || !std::strcmp(argv[i], "--repeat")) && i + 1 < argc)
      rounds = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
      only_threads = static_cast<unsigned>(std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--python-max-gpus") && i + 1 < argc)
      python_max_gpus = std::atol(argv[++i]);
    else if (!std::strcmp(argv[i], "--no-python"))
      python = false;
    else if (!std::strcmp(argv[i], "--exact-max-gpus") && i + 1 < argc)
      exact_max_gpus = std::atol(argv[++i]);
    else if (!std::strcmp(argv[i], "--fraction-max-gpus") && i + 1 < argc)
      fraction_max_gpus = std::atol(argv[++i]);
    else if (!std::strcmp(argv[i], "--no-exact"))
      exact = false;
    else if (!std::strcmp(argv[i], "--quick"))
      quick = true;
    else {
      std::fprintf(stderr, "mls_bench: unknown argument '%s'\n", argv[i]);
      return 64;
    }
  }
  if (max_gpus < 8 || rounds < 1 || python_max_gpus < 8 || exact_max_gpus < 8 || fraction_max_gpus < 8) return 64;
  // The Python ports live next to the scenario.
  const std::string dir =
      scenario.find('/') == std::string::npos ? "" : scenario.substr(0, scenario.find_last_of('/') + 1);
  const std::string python_script = dir + "e2_python.py", fraction_script = dir + "e2_fraction.py";
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t points = static_cast<std::size_t>(max_gpus / 8) * 32;
  std::printf("E2 training scenario (distributed + checkpoint + reliability + economics per point)\n");
  std::printf("grid: %zu points (gpus 8..%ld by 8 x 4 tp x 8 batches); %d paired round(s), each running every\n",
              points, max_gpus, rounds);
  std::printf("contender once; ratios are per round, shown as median [min-max] over the rounds\n");

  int failures = 0;
  std::vector<unsigned> thread_counts = {1u};
  if (hw > 1) thread_counts.push_back(hw);
  if (only_threads) thread_counts = {only_threads};
  const Variant variants[] = {Variant::plain, Variant::storing, Variant::hoisted};
  std::string engine;
  for (unsigned threads : thread_counts) {
    // One thread: CPU time (what the work costs). Several: wall time (what the threads buy).
    const bool cpu = threads == 1;
    std::vector<double> mls_ns, python_ns, ratio_python;
    std::vector<std::vector<double>> native_ns(3), ratio(3);
    CheckSink last;
    for (int r = 0; r < rounds; ++r) {
      CheckSink sink;
      const Timing m = run_mls(scenario, max_gpus, threads, sink);
      if (m.points != points) {
        std::fprintf(stderr, "mls produced %zu rows, expected %zu\n", m.points, points);
        return 1;
      }
      const double m_ns = ns(cpu ? m.cpu : m.wall, points);
      mls_ns.push_back(m_ns);
      for (int v = 0; v < 3; ++v) {
        const Timing n = run_native(variants[v], max_gpus, threads);
        if (n.points != points || !close(n.checksum, m.checksum)) {
          std::fprintf(stderr, "checksums differ: mls %.17g (%zu rows), %s %.17g (%zu rows)\n", m.checksum, m.points,
                       variant_name(variants[v]), n.checksum, n.points);
          return 1;
        }
        const double n_ns = ns(cpu ? n.cpu : n.wall, points);
        native_ns[static_cast<std::size_t>(v)].push_back(n_ns);
        ratio[static_cast<std::size_t>(v)].push_back(m_ns / n_ns);
      }
      if (cpu && python) {
        Timing py;
        if (!run_python(python_script, python_max_gpus, py)) {
          std::fprintf(stderr, "mls_bench: could not run %s (use --no-python to skip it)\n", python_script.c_str());
          return 1;
        }
        // Same formulas, same operation order, same grid order: the sums agree bit for bit.
        const Timing ref = run_native(Variant::plain, python_max_gpus, 1);
        if (py.points != ref.points || py.checksum != ref.checksum) {
          std::fprintf(stderr, "checksums differ: python %.17g (%zu rows), native %.17g (%zu rows)\n", py.checksum,
                       py.points, ref.checksum, ref.points);
          return 1;
        }
        python_ns.push_back(ns(py.cpu, py.points));
        ratio_python.push_back(python_ns.back() / m_ns);
      }
      last = std::move(sink);
    }
    failures += validate(last);
    if (last.sample.size() != (points + 996) / 997) {
      std::fprintf(stderr, "mls_bench: %zu sampled rows, expected %zu\n", last.sample.size(), (points + 996) / 997);
      ++failures;
    }
    engine = last.engine;
    const Stats ms = stats(mls_ns);
    std::printf("\n%u thread%s, %s time per point:\n", threads, threads == 1 ? "" : "s", cpu ? "CPU" : "wall");
    std::printf("  %-22s %8.1f ns [%.1f-%.1f]\n", "mls", ms.median, ms.lo, ms.hi);
    for (int v = 0; v < 3; ++v) {
      const Stats n = stats(native_ns[static_cast<std::size_t>(v)]);
      const Stats q = stats(ratio[static_cast<std::size_t>(v)]);
      std::printf("  %-22s %8.1f ns [%.1f-%.1f]   mls / native %5.1fx [%.1f-%.1f]\n", variant_name(variants[v]),
                  n.median, n.lo, n.hi, q.median, q.lo, q.hi);
    }
    if (!python_ns.empty()) {
      const Stats py = stats(python_ns);
      const Stats q = stats(ratio_python);
      std::printf("  %-22s %8.1f ns [%.1f-%.1f]   python / mls %5.1fx [%.1f-%.1f]  (%ld/8 x 32 points)\n",
                  "plain Python", py.median, py.lo, py.hi, q.median, q.lo, q.hi, python_max_gpus);
    }
  }
  std::printf(
      "\nengine: %s\nchecksums: mls and every native variant agree to 1e-9%s; %zu sampled points agree\n"
      "with the native code to 1e-9%s\n",
      engine.c_str(), python ? ", Python and native plain bit for bit" : "", (points + 996) / 997,
      failures ? " -- MISMATCH" : "");
  if (exact && !only_threads && bench_exact(scenario, fraction_script, exact_max_gpus, fraction_max_gpus, rounds) != 0)
    return 1;
  if (!quick) {
    const long small = peak_rss_kib(mls_bin, scenario, max_gpus / 10);
    const long large = peak_rss_kib(mls_bin, scenario, max_gpus);
    std::printf("peak memory of `mls run --format csv`: %ld KiB at %zu points, %ld KiB at %zu points (%.2fx)\n", small,
                points / 10, large, points, small > 0 ? static_cast<double>(large) / static_cast<double>(small) : 0.0);
    if (small < 0 || large < 0) ++failures;
  }
  return failures ? 1 : 0;
}
