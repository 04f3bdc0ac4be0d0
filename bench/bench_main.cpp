// bench_main.cpp — points per second of the E2 training scenario in mls vs hand-written C++ of
// the same formulas, measured in the same run (single thread and all threads), plus peak memory
// of `mls run` at 10^5 vs 10^6 points. Reports ratios; asserts nothing about wall-clock time.
//
// usage: mls_bench MLS_BINARY bench/e2_bench.mls [--max-gpus N] [--repeat R] [--threads T] [--quick]
// (--threads T measures only T threads, e.g. under a profiler; the default measures 1 and all.)
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "e2_native.hpp"
#include "interpreter/results/format.hpp"
#include "interpreter/tooling/driver.hpp"

namespace {

using mls::bench::E2Point;
using Clock = std::chrono::steady_clock;

const std::vector<double> kTp = {1, 2, 4, 8};
const std::vector<double> kBatch = {512, 1024, 2048, 4096, 8192, 16384, 32768, 65536};

// Consumes rows without formatting; keeps a checksum and a sample for validation.
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
  void table_end(const mls::Table& t) override { engine = t.engine; }
  void assertion(const mls::AssertOutcome&) override {}
  void end() override {}
  std::size_t rows = 0;
  double checksum = 0;
  std::string engine;
  std::vector<mls::Row> sample;
};

struct MlsRun {
  double seconds;
  CheckSink sink;
};

MlsRun run_mls(const std::string& scenario, long max_gpus, unsigned threads) {
  mls::Session s;
  if (!mls::prepare(s, scenario)) {
    std::fputs(mls::render_all(s.prog.sources, s.prog.diags).c_str(), stderr);
    std::exit(70);
  }
  mls::Selection sel;
  sel.sets.emplace_back("max_gpus", std::to_string(max_gpus));
  auto cfg = mls::configure(s.prog, s.ck, sel);
  if (!cfg) {
    std::fputs(mls::render_all(s.prog.sources, s.prog.diags).c_str(), stderr);
    std::exit(70);
  }
  mls::RunOptions opt;
  opt.threads = threads;
  opt.max_points = 10'000'000;
  MlsRun out{};
  const auto t0 = Clock::now();
  mls::run_program(s.prog, s.ck, *cfg, opt, out.sink);
  out.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return out;
}

struct NativeRun {
  double seconds;
  std::size_t points;
  double checksum;
};

// The same grid in the same order (gpus outermost, batch innermost).
NativeRun run_native(long max_gpus, unsigned threads) {
  const long n_gpus = max_gpus / 8;
  std::vector<double> sums(threads, 0);
  const auto t0 = Clock::now();
  auto work = [&](unsigned tid) {
    double acc = 0;
    for (long gi = tid; gi < n_gpus; gi += threads) {
      const double gpus = 8.0 * static_cast<double>(gi + 1);
      for (double tp : kTp)
        for (double batch : kBatch) {
          const E2Point p = mls::bench::e2_native(gpus, tp, batch);
          acc += gpus + tp + batch + p.step + p.efficiency + p.throughput + p.ckpt_write + p.goodput + p.tco;
        }
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
  NativeRun r{std::chrono::duration<double>(Clock::now() - t0).count(), static_cast<std::size_t>(n_gpus) * 32, 0};
  for (double x : sums) r.checksum += x;
  return r;
}

// mls and the native code must compute the same numbers, or the ratio means nothing.
int validate(const CheckSink& sink) {
  int bad = 0;
  for (const auto& row : sink.sample) {
    const double gpus = row.cells[0].n.d, tp = row.cells[1].n.d, batch = row.cells[2].n.d;
    const E2Point p = mls::bench::e2_native(gpus, tp, batch);
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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fputs("usage: mls_bench MLS_BINARY bench/e2_bench.mls [--max-gpus N] [--repeat R] [--threads T] [--quick]\n",
               stderr);
    return 64;
  }
  const std::string mls_bin = argv[1], scenario = argv[2];
  long max_gpus = 250000;
  int repeat = 3;
  bool quick = false;
  unsigned only_threads = 0;
  for (int i = 3; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--max-gpus") && i + 1 < argc)
      max_gpus = std::atol(argv[++i]);
    else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc)
      repeat = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
      only_threads = static_cast<unsigned>(std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--quick"))
      quick = true;
  }
  if (max_gpus < 8 || repeat < 1) return 64;
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t points = static_cast<std::size_t>(max_gpus / 8) * 32;
  std::printf("E2 training scenario (distributed + checkpoint + reliability + economics per point)\n");
  std::printf("grid: %zu points (gpus 8..%ld by 8 x 4 tp x 8 batches), %d repetition(s), best time kept\n\n", points,
              max_gpus, repeat);

  int failures = 0;
  std::vector<unsigned> thread_counts = {1u};
  if (hw > 1) thread_counts.push_back(hw);
  if (only_threads) thread_counts = {only_threads};
  for (unsigned threads : thread_counts) {
    double best_mls = 1e300, best_native = 1e300;
    CheckSink last;
    for (int r = 0; r < repeat; ++r) {
      MlsRun m = run_mls(scenario, max_gpus, threads);
      NativeRun n = run_native(max_gpus, threads);
      if (m.sink.rows != points || n.points != points) {
        std::fprintf(stderr, "point counts differ: mls %zu, native %zu, expected %zu\n", m.sink.rows, n.points, points);
        return 1;
      }
      best_mls = std::min(best_mls, m.seconds);
      best_native = std::min(best_native, n.seconds);
      last = std::move(m.sink);
    }
    failures += validate(last);
    std::printf(
        "%-12s mls %8.3f s  %9.0f points/s  %7.1f ns/point   native %8.4f s  %11.0f points/s  %6.1f ns/point   ratio "
        "%5.1fx\n",
        threads == 1 ? "1 thread" : (std::to_string(threads) + " threads").c_str(), best_mls, points / best_mls,
        1e9 * best_mls / static_cast<double>(points), best_native, points / best_native,
        1e9 * best_native / static_cast<double>(points), best_mls / best_native);
  }
  std::printf("engine: %s; %zu sampled points agree with the native code to 1e-9\n",
              failures ? "MISMATCH" : "binary64, compiled", points / 997 + 1);
  if (!quick) {
    const long small = peak_rss_kib(mls_bin, scenario, max_gpus / 10);
    const long large = peak_rss_kib(mls_bin, scenario, max_gpus);
    std::printf("peak memory of `mls run --format csv`: %ld KiB at %zu points, %ld KiB at %zu points (%.2fx)\n", small,
                points / 10, large, points, small > 0 ? static_cast<double>(large) / static_cast<double>(small) : 0.0);
    if (small < 0 || large < 0) ++failures;
  }
  return failures ? 1 : 0;
}
