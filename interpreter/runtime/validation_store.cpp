// validation_store.cpp — validation tables on disk, so that a run does not refit the calibration
// once per source every time it shows a train() result. A table is keyed by what it depends on
// (mls's version, the stdlib's text, the configuration: runtime/validation.cpp, stable_key) and
// stored as text whose numbers round-trip exactly, so a table read back prints the same bytes as
// one computed. Writes go to a temporary file renamed into place (readers see a whole file or none;
// concurrent writers of one key write the same bytes); a file that does not parse, or whose key
// differs (a hash collision), is ignored; a directory that cannot be written costs nothing but the
// computation. docs/validation.md, "What it costs".
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>

#include "validation.hpp"

namespace mls {

namespace {

struct DiskCache {
  std::mutex mu;
  bool enabled = false;
  std::string dir;
};
DiskCache& disk() {
  static DiskCache d;
  return d;
}

std::string escape(const std::string& s) {
  std::string o;
  for (const char c : s) {
    if (c == '\\')
      o += "\\\\";
    else if (c == '\t')
      o += "\\t";
    else if (c == '\n')
      o += "\\n";
    else if (c == '\r')
      o += "\\r";
    else
      o += c;
  }
  return o;
}

std::string unescape(const std::string& s) {
  std::string o;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      o += s[i];
      continue;
    }
    const char n = s[++i];
    o += n == 't' ? '\t' : n == 'n' ? '\n' : n == 'r' ? '\r' : n;
  }
  return o;
}

std::string num(double x) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", x);
  return b;
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t t = line.find('\t', start);
    out.push_back(unescape(line.substr(start, t - start)));
    if (t == std::string::npos) break;
    start = t + 1;
  }
  return out;
}

bool parse_num(const std::string& s, double& x) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  x = std::strtod(s.c_str(), &end);
  return end && *end == '\0' && errno == 0;
}

std::string join(const std::vector<std::string>& v) {
  std::string o;
  for (const auto& s : v) o += (o.empty() ? "" : "\x1f") + s;
  return o;
}

std::vector<std::string> unjoin(const std::string& s) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  std::size_t start = 0;
  while (true) {
    const std::size_t t = s.find('\x1f', start);
    out.push_back(s.substr(start, t - start));
    if (t == std::string::npos) break;
    start = t + 1;
  }
  return out;
}

constexpr const char* kMagic = "mls validation table 4";

std::uint64_t fnv(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (const unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string file_for(const std::string& dir, const std::string& key) {
  char b[40];
  std::snprintf(b, sizeof b, "validation-%016llx.tsv", static_cast<unsigned long long>(fnv(key)));
  return dir + "/" + b;
}

bool make_dirs(const std::string& dir) {
  std::string at;
  std::size_t start = 0;
  while (start <= dir.size()) {
    const std::size_t slash = dir.find('/', start);
    at = dir.substr(0, slash == std::string::npos ? dir.size() : slash);
    if (!at.empty() && ::mkdir(at.c_str(), 0700) != 0 && errno != EEXIST) return false;
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  struct stat st {};
  return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

void enable_validation_disk_cache(const std::string& dir) {
  DiskCache& d = disk();
  std::lock_guard<std::mutex> lock(d.mu);
  std::string where = dir;
  if (where.empty()) {
    if (const char* m = std::getenv("MLS_CACHE_DIR"); m && *m)
      where = m;
    else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
      where = std::string(x) + "/mls";
    else if (const char* h = std::getenv("HOME"); h && *h)
      where = std::string(h) + "/.cache/mls";
  }
  d.enabled = !where.empty();
  d.dir = where;
}

namespace validation_detail {

std::string serialize(const ValidationTable& t) {
  std::string o = std::string(kMagic) + "\n";
  o += "table\t" + escape(t.family) + "\t" + num(t.loss) + "\t" + num(t.fitted_loss) + "\t" +
       std::to_string(t.fit_iterations) + "\n";
  for (const CaseRow& c : t.cases) {
    const std::vector<std::string> f = {c.id,
                                        c.family,
                                        c.quantity,
                                        c.source,
                                        c.source_key,
                                        c.system,
                                        c.metric,
                                        c.unit,
                                        c.held_out ? "1" : "0",
                                        c.fits ? "1" : "0",
                                        c.within ? "1" : "0",
                                        c.expressible ? "1" : "0",
                                        c.reason,
                                        num(c.measured),
                                        num(c.predicted),
                                        num(c.band),
                                        num(c.error),
                                        num(c.utilization),
                                        num(c.utilization_measured),
                                        c.domain.accelerator,
                                        c.domain.generation,
                                        c.domain.vendor,
                                        c.domain.precision,
                                        c.domain.framework,
                                        c.domain.scale,
                                        c.domain.moe ? "1" : "0",
                                        num(c.loso_error),
                                        num(c.lodo_error),
                                        c.lodo ? "1" : "0"};
    o += "case";
    for (const auto& x : f) o += "\t" + escape(x);
    o += "\n";
  }
  for (const FitConstant& k : t.fit) {
    const std::vector<std::string> f = {join(k.names),        num(k.value),        num(k.fitted),
                                        num(k.lower),         num(k.upper),        k.near,
                                        k.pinned ? "1" : "0", join(k.informed_by), num(k.null)};
    o += "fit";
    for (const auto& x : f) o += "\t" + escape(x);
    o += "\n";
  }
  return o + "end\n";
}

std::shared_ptr<ValidationTable> deserialize(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != kMagic) return nullptr;
  auto t = std::make_shared<ValidationTable>();
  bool ended = false, head = false;
  while (std::getline(in, line)) {
    if (line == "end") {
      ended = true;
      break;
    }
    const auto f = split_tabs(line);
    if (f[0] == "table" && f.size() == 5) {
      double it = 0;
      if (!parse_num(f[2], t->loss) || !parse_num(f[3], t->fitted_loss) || !parse_num(f[4], it)) return nullptr;
      t->family = f[1];
      t->fit_iterations = static_cast<std::size_t>(it);
      head = true;
    } else if (f[0] == "case" && f.size() == 30) {
      CaseRow c;
      c.id = f[1], c.family = f[2], c.quantity = f[3], c.source = f[4], c.source_key = f[5], c.system = f[6];
      c.metric = f[7], c.unit = f[8];
      c.held_out = f[9] == "1", c.fits = f[10] == "1", c.within = f[11] == "1", c.expressible = f[12] == "1";
      c.reason = f[13];
      for (auto [i, x] : {std::pair{14, &c.measured},
                          {15, &c.predicted},
                          {16, &c.band},
                          {17, &c.error},
                          {18, &c.utilization},
                          {19, &c.utilization_measured},
                          {27, &c.loso_error},
                          {28, &c.lodo_error}})
        if (!parse_num(f[static_cast<std::size_t>(i)], *x)) return nullptr;
      c.domain.accelerator = f[20], c.domain.generation = f[21], c.domain.vendor = f[22], c.domain.precision = f[23];
      c.domain.framework = f[24], c.domain.scale = f[25], c.domain.moe = f[26] == "1";
      c.lodo = f[29] == "1";
      t->cases.push_back(std::move(c));
    } else if (f[0] == "fit" && f.size() == 10) {
      FitConstant k;
      k.names = unjoin(f[1]);
      for (auto [i, x] : {std::pair{2, &k.value}, {3, &k.fitted}, {4, &k.lower}, {5, &k.upper}, {9, &k.null}})
        if (!parse_num(f[static_cast<std::size_t>(i)], *x)) return nullptr;
      k.near = f[6];
      k.pinned = f[7] == "1";
      k.informed_by = unjoin(f[8]);
      t->fit.push_back(std::move(k));
    } else {
      return nullptr;
    }
  }
  return ended && head ? t : nullptr;
}

std::optional<std::string> disk_get(const std::string& key) {
  std::string dir;
  {
    DiskCache& d = disk();
    std::lock_guard<std::mutex> lock(d.mu);
    if (!d.enabled) return std::nullopt;
    dir = d.dir;
  }
  std::ifstream in(file_for(dir, key), std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string all = ss.str();
  // The file begins with its key, length-prefixed: a different key in the same file is a miss.
  const std::string head = std::to_string(key.size()) + "\n";
  if (all.compare(0, head.size(), head) != 0 || all.compare(head.size(), key.size(), key) != 0) return std::nullopt;
  return all.substr(head.size() + key.size());
}

void disk_put(const std::string& key, const std::string& value) {
  std::string dir;
  {
    DiskCache& d = disk();
    std::lock_guard<std::mutex> lock(d.mu);
    if (!d.enabled) return;
    dir = d.dir;
  }
  if (!make_dirs(dir)) return;
  const std::string path = file_for(dir, key);
  static std::atomic<unsigned> counter{0};
  std::random_device rd;
  const std::string tmp =
      path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++) + "." + std::to_string(rd());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return;
    out << key.size() << "\n" << key << value;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      return;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) std::remove(tmp.c_str());
}

}  // namespace validation_detail

}  // namespace mls
