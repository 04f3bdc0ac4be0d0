// merge.cpp — scale-out: `mls run FILE --shard K/N --format json --out part_K.json` writes one
// shard's points as a part, and `mls merge part_*.json [--format F]` reads the parts back and
// prints exactly what one `mls run FILE --format F` prints. A part holds the run's identity
// (file, its hash, preset, --use/--set, engine limits, shard K/N) and, per sweep or search, its
// points: index, cells (binary64 shortest round-trip, exact rationals as text, booleans,
// strings) with their dependency sets as atom ids (atoms are created before evaluation, in the
// same order for the same program and selection), then the counts and the failed asserts, and
// last a digest of every byte before it. The merge re-runs the program with every sweep reading
// these points instead of computing them, and checks each part first (its digest: a changed
// value is refused before anything is printed) and each value as it reads it (its kind against
// the column's, finite numbers, cell counts, points and counts within the part's shard).
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "atomic_file.hpp"
#include "commands.hpp"
#include "interpreter/results/format.hpp"

namespace mls {
namespace {

// 2: the digest at the end.
constexpr int kPartVersion = 2;
// A string in a part is a cell's text: no mls string is near this long.
constexpr std::size_t kMaxPartString = std::size_t{64} << 20;

constexpr std::uint64_t kFnvOffset = 1469598103934665603ull;
constexpr std::uint64_t kFnvPrime = 1099511628211ull;

// A part is malformed or does not belong with the others (error[merge.part], exit 65).
struct PartError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::uint64_t fnv1a(std::string_view s, std::uint64_t h = kFnvOffset) {
  for (unsigned char c : s) h = (h ^ c) * kFnvPrime;
  return h;
}

std::string hex16(std::uint64_t h) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// The end of a part: its digest, of every byte before this text.
std::string digest_trailer(std::uint64_t h) { return ",\n \"digest\": \"" + hex16(h) + "\"}\n"; }

// Text of a part in a message: bounded, control characters shown as '?'.
std::string excerpt(std::string_view t, std::size_t n = 40) {
  std::string out;
  for (char c : t.substr(0, n)) out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c;
  return t.size() > n ? out + "..." : out;
}

// The scenario's identity: its bytes and this mls version.
std::string source_hash(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return hex16(fnv1a(text + '\0' + kVersion));
}

std::string pairs_json(const std::vector<std::pair<std::string, std::string>>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i)
    s += std::string(i ? ", " : "") + "[" + json_string(v[i].first) + ", " + json_string(v[i].second) + "]";
  return s + "]";
}

// ---- writing a part ----------------------------------------------------------------------------

// The sink of a sharded run: shown values and asserts are recomputed by the merge, so only the
// sweeps' points are written.
class PartWriter : public RunSink, public ShardWriter {
 public:
  PartWriter(const ResultScope& scope, Writer& w, const Args& a, const std::string& file) : scope_(scope), w_(w) {
    std::string s = "{\"mls_part\": " + std::to_string(kPartVersion) + ",\n \"mls\": " + json_string(kVersion) +
                    ",\n \"file\": " + json_string(file) + ",\n \"source_hash\": " + json_string(source_hash(file)) +
                    ",\n \"shard\": [" + std::to_string(a.run.shard_k) + ", " + std::to_string(a.run.shard_n) +
                    "],\n \"preset\": [" + (a.presets.empty() ? std::string() : json_string(a.presets.front())) + "]" +
                    ",\n \"use\": " + pairs_json(a.uses) + ",\n \"set\": " + pairs_json(a.sets) +
                    ",\n \"exact_limit\": " + std::to_string(a.run.exact_limit) +
                    ",\n \"max_points\": " + std::to_string(a.run.max_points) + ",\n \"sweeps\": [";
    put(s);
  }
  void begin(const RunResult&) override {}
  void result(const Shown&) override {}
  void table_begin(const Table&) override {}
  void table_row(const Table&, const Row&) override {}
  void table_end(const Table&) override {}
  void assertion(const AssertOutcome&) override {}
  void end() override {
    put(sweeps_ ? "\n ]" : "]");
    w_.put(digest_trailer(hash_));
  }

  void sweep(const std::string& name, std::size_t total, std::size_t begin, std::size_t end) override {
    put(std::string(sweeps_++ ? "," : "") + "\n  {\"name\": " + json_string(name) +
        ", \"total\": " + std::to_string(total) + ", \"begin\": " + std::to_string(begin) +
        ", \"end\": " + std::to_string(end) + ",\n   \"points\": [");
    points_ = 0;
    dep_ids_.clear();
  }
  void point(const ShardPoint& sp) override {
    line_.clear();
    // A dependency set is defined once per sweep, before its first use.
    auto dep = [&](DepSet d) {
      auto [it, fresh] = dep_ids_.emplace(d, dep_ids_.size());
      if (fresh) {
        std::string def =
            std::string(points_++ ? "," : "") + "\n    {\"deps\": " + std::to_string(it->second) + ", \"atoms\": [";
        const auto& atoms = scope_.deps.atoms(d);
        for (std::size_t i = 0; i < atoms.size(); ++i) def += (i ? "," : "") + std::to_string(atoms[i]);
        put(def + "]}");
      }
      return it->second;
    };
    auto values = [&](const std::vector<Value>& vs) {
      line_ += "[";
      for (std::size_t i = 0; i < vs.size(); ++i) {
        const Value& v = vs[i];
        std::string t;
        switch (v.k) {
          case Value::K::num:
            t = v.n.exact() ? "q:" + format_json(v.n.d) + ":" + exact_text(v.n) : "d:" + format_json(v.n.d);
            break;
          case Value::K::boolean: t = v.b ? "b:1" : "b:0"; break;
          case Value::K::str: t = "s:" + v.str(); break;
          default: throw PartError("a sweep cell that is a record or a list cannot be written to a part");
        }
        line_ += (i ? ", " : "") + json_string(t + "@" + std::to_string(dep(v.deps)));
      }
      line_ += "]";
    };
    std::string cells_line;
    values(sp.cells);
    cells_line.swap(line_);
    values(sp.objectives);
    put(std::string(points_++ ? "," : "") + "\n    [" + std::to_string(sp.index) + ", " +
        (sp.feasible ? "true" : "false") + ", " + cells_line + ", " + line_ + "]");
  }
  void sweep_end(const ShardCounts& c) override {
    std::string s = points_ ? "\n   ],\n   " : "],\n   ";
    s += "\"evaluated\": " + std::to_string(c.evaluated) + ", \"infeasible\": " + std::to_string(c.infeasible) +
         ", \"filtered\": " + std::to_string(c.filtered) + ", \"failed\": [";
    for (std::size_t i = 0; i < c.failed.size(); ++i)
      s += std::string(i ? ", " : "") + "[" + std::to_string(c.failed[i].first) + ", " +
           std::to_string(c.failed[i].second) + "]";
    put(s + "]}");
  }

 private:
  // Every byte of the part goes through here, into the digest.
  void put(const std::string& text) {
    hash_ = fnv1a(text, hash_);
    w_.put(text);
  }
  ResultScope scope_;
  Writer& w_;
  std::uint64_t hash_ = kFnvOffset;
  std::size_t sweeps_ = 0, points_ = 0;
  std::unordered_map<DepSet, std::size_t> dep_ids_;
  std::string line_;
};

// ---- reading a part ----------------------------------------------------------------------------

// A pull parser over one part file, for exactly the JSON a part holds (objects, arrays,
// strings, whole numbers, true/false), streamed: a part of 10^8 points is never held whole.
class PartParser {
 public:
  explicit PartParser(std::string path) : path_(std::move(path)), f_(std::fopen(path_.c_str(), "rb")) {
    if (!f_) throw PartError(path_ + ": cannot be read (" + std::strerror(errno) + ")");
  }
  ~PartParser() {
    if (f_) std::fclose(f_);
  }
  PartParser(const PartParser&) = delete;
  PartParser& operator=(const PartParser&) = delete;

  [[noreturn]] void fail(const std::string& what) const {
    throw PartError(path_ + ": byte " + std::to_string(pos_) + ": " + what);
  }
  int peek() {
    skip_ws();
    return look();
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "', got " + got());
    take();
  }
  bool accept(char c) {
    if (peek() != c) return false;
    take();
    return true;
  }
  std::string string() {
    expect('"');
    std::string s;
    while (true) {
      int c = take();
      if (c == EOF) fail("a string is not closed");
      if (c == '"') return s;
      if (s.size() >= kMaxPartString) fail("a string longer than 64 MiB");
      if (c != '\\') {
        s += static_cast<char>(c);
        continue;
      }
      c = take();
      switch (c) {
        case '"':
        case '\\':
        case '/': s += static_cast<char>(c); break;
        case 'n': s += '\n'; break;
        case 't': s += '\t'; break;
        case 'r': s += '\r'; break;
        case 'b': s += '\b'; break;
        case 'f': s += '\f'; break;
        case 'u': {
          unsigned cp = 0;
          for (int i = 0; i < 4; ++i) {
            const int h = take();
            if (!std::isxdigit(h)) fail("a \\u escape needs four hex digits");
            cp = cp * 16 + static_cast<unsigned>(std::isdigit(h) ? h - '0' : (std::tolower(h) - 'a' + 10));
          }
          // json_string escapes only control characters this way: C0, DEL and C1 (U+0080..U+009F).
          if (cp >= 0xA0) fail("unexpected \\u escape above U+009F");
          if (cp < 0x80) {
            s += static_cast<char>(cp);
          } else {
            s += static_cast<char>(0xC0 | (cp >> 6));
            s += static_cast<char>(0x80 | (cp & 0x3F));
          }
          break;
        }
        default: fail("unknown escape in a string");
      }
    }
  }
  std::size_t number() {
    if (!std::isdigit(peek())) fail("expected a whole number, got " + got());
    std::size_t n = 0;
    while (std::isdigit(look())) {
      const auto d = static_cast<std::size_t>(take() - '0');
      if (n > (static_cast<std::size_t>(-1) - d) / 10) fail("a number is too large");
      n = n * 10 + d;
    }
    return n;
  }
  bool boolean() {
    const int c = peek();
    const std::string word = c == 't' ? "true" : "false";
    if (c != 't' && c != 'f') fail("expected true or false, got " + got());
    for (char w : word)
      if (take() != w) fail("expected " + word);
    return c == 't';
  }
  // `"key":` — the keys of a part come in a fixed order.
  void key(const char* k) {
    if (string() != k) fail(std::string("expected the key \"") + k + "\"");
    expect(':');
  }
  std::vector<std::pair<std::string, std::string>> pairs() {
    std::vector<std::pair<std::string, std::string>> out;
    expect('[');
    if (accept(']')) return out;
    do {
      expect('[');
      std::string a = string();
      expect(',');
      std::string b = string();
      expect(']');
      out.emplace_back(std::move(a), std::move(b));
    } while (accept(','));
    expect(']');
    return out;
  }
  void end() {
    if (peek() != EOF) fail("text after the end of the part");
  }
  [[nodiscard]] const std::string& path() const { return path_; }
  // The digest of every byte taken so far.
  [[nodiscard]] std::uint64_t hash() const { return hash_; }

 private:
  int look() {
    if (at_ == len_) {
      len_ = std::fread(buf_, 1, sizeof buf_, f_);
      at_ = 0;
      if (len_ == 0) return EOF;
    }
    return static_cast<unsigned char>(buf_[at_]);
  }
  int take() {
    const int c = look();
    if (c != EOF) {
      ++at_;
      ++pos_;
      hash_ = (hash_ ^ static_cast<unsigned>(c)) * kFnvPrime;
    }
    return c;
  }
  void skip_ws() {
    while (true) {
      const int c = look();
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return;
      take();
    }
  }
  std::string got() {
    const int c = look();
    if (c == EOF) return "the end of the file";
    if (c < 0x20 || c >= 0x7f) return "byte " + std::to_string(c);
    return std::string("'") + static_cast<char>(c) + "'";
  }

  std::string path_;
  std::FILE* f_;
  char buf_[1 << 16];
  std::size_t at_ = 0, len_ = 0, pos_ = 0;
  std::uint64_t hash_ = kFnvOffset;
};

// Whether the part at `path` ends with the digest of the bytes before it: checked before the
// merge prints anything, so a changed value (a digit edited by hand, a part from a damaged disk)
// is refused, not printed. One read of the file, nothing held.
void check_digest(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw PartError(path + ": cannot be read (" + std::strerror(errno) + ")");
  std::string tail;  // the last bytes read, possibly the trailer
  std::uint64_t h = kFnvOffset;
  const std::size_t keep = digest_trailer(0).size();
  char buf[1 << 16];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    tail.append(buf, n);
    if (tail.size() > keep) {
      h = fnv1a(std::string_view(tail).substr(0, tail.size() - keep), h);
      tail.erase(0, tail.size() - keep);
    }
  }
  const bool read_error = std::ferror(f) != 0;
  std::fclose(f);
  if (read_error) throw PartError(path + ": cannot be read");
  if (tail != digest_trailer(h))
    throw PartError(path +
                    ": its digest does not match its contents: the part was changed or damaged after `mls run "
                    "--shard` wrote it");
}

struct PartHeader {
  std::string file, hash;
  std::optional<std::string> preset;  // --preset, if given
  std::size_t k = 0, n = 0, exact_limit = 0, max_points = 0;
  std::vector<std::pair<std::string, std::string>> uses, sets;
};

struct Part {
  std::unique_ptr<PartParser> in;
  PartHeader h;
  std::size_t sweeps = 0;  // sweeps read so far
  std::vector<std::vector<AtomId>> deps;
  std::vector<DepSet> dep_sets;  // per dep id of the current sweep
  // The current sweep: this part's points [begin, end), the points read and the last index.
  std::size_t begin = 0, end = 0, points = 0, last = 0;
};

PartHeader read_header(PartParser& in) {
  PartHeader h;
  in.expect('{');
  in.key("mls_part");
  if (in.number() != kPartVersion) in.fail("this part was written by another version of the part format");
  in.expect(',');
  in.key("mls");
  if (in.string() != kVersion) in.fail("this part was written by another version of mls");
  in.expect(',');
  in.key("file");
  h.file = in.string();
  in.expect(',');
  in.key("source_hash");
  h.hash = in.string();
  in.expect(',');
  in.key("shard");
  in.expect('[');
  h.k = in.number();
  in.expect(',');
  h.n = in.number();
  in.expect(']');
  if (h.n == 0 || h.k == 0 || h.k > h.n) in.fail("the shard must be K/N with 1 <= K <= N");
  in.expect(',');
  in.key("preset");
  in.expect('[');
  if (!in.accept(']')) {
    h.preset = in.string();
    in.expect(']');
  }
  in.expect(',');
  in.key("use");
  h.uses = in.pairs();
  in.expect(',');
  in.key("set");
  h.sets = in.pairs();
  in.expect(',');
  in.key("exact_limit");
  h.exact_limit = in.number();
  in.expect(',');
  in.key("max_points");
  h.max_points = in.number();
  in.expect(',');
  in.key("sweeps");
  in.expect('[');
  return h;
}

class PartReader : public ShardReader {
 public:
  // Dependency sets are read back as atom ids of `s` and interned there.
  PartReader(Scenario& s, std::vector<Part>& parts) : s_(s), parts_(parts) {}

  void sweep(const std::string& name, std::size_t total, const ShardShape& shape) override {
    counts_ = ShardCounts{};
    shape_ = shape;
    name_ = name;
    std::size_t expect_begin = 0;
    for (Part& part : parts_) {
      PartParser& in = *part.in;
      if (part.sweeps++ > 0 && !in.accept(',')) in.fail("the part has fewer sweeps than the scenario");
      in.expect('{');
      in.key("name");
      const std::string got = in.string();
      in.expect(',');
      in.key("total");
      const std::size_t t = in.number();
      if (got != name || t != total)
        in.fail("the part holds sweep '" + excerpt(got) + "' of " + std::to_string(t) +
                " points where the scenario runs '" + name + "' of " + std::to_string(total));
      in.expect(',');
      in.key("begin");
      const std::size_t b = in.number();
      in.expect(',');
      in.key("end");
      const std::size_t e = in.number();
      if (b != expect_begin || e < b || e > total)
        in.fail("the part's points " + std::to_string(b) + ".." + std::to_string(e) + " of '" + name +
                "' do not follow the previous part's (expected to begin at " + std::to_string(expect_begin) + ")");
      if (const auto want = shard_points(part.h.k, part.h.n, total); want != std::pair(b, e))
        in.fail("the part holds points " + std::to_string(b) + ".." + std::to_string(e) + " of '" + name +
                "' where shard " + std::to_string(part.h.k) + "/" + std::to_string(part.h.n) + " evaluates " +
                std::to_string(want.first) + ".." + std::to_string(want.second));
      expect_begin = e;
      part.begin = b;
      part.end = e;
      part.points = 0;
      in.expect(',');
      in.key("points");
      in.expect('[');
      part.dep_sets.clear();
    }
    if (expect_begin != total)
      throw PartError("the parts cover points 0.." + std::to_string(expect_begin) + " of '" + name + "' (of " +
                      std::to_string(total) + ")");
    current_ = 0;
    first_ = true;
  }

  bool next(ShardPoint& sp) override {
    while (current_ < parts_.size()) {
      Part& part = parts_[current_];
      PartParser& in = *part.in;
      if (!first_ ? in.accept(',') : in.peek() != ']') {
        first_ = false;
        if (in.peek() == '{') {
          define_deps(part);
          continue;
        }
        read_point(part, sp);
        return true;
      }
      in.expect(']');
      trailer(part);
      ++current_;
      first_ = true;
    }
    return false;
  }

  [[nodiscard]] const ShardCounts& counts() const override { return counts_; }

  // After the run: every part ends where the scenario's sweeps end.
  void finish() {
    for (Part& part : parts_) {
      PartParser& in = *part.in;
      if (in.peek() == (part.sweeps > 0 ? ',' : '{')) in.fail("the part has more sweeps than the scenario");
      in.expect(']');
      // What was read is what the part's digest covers (checked whole before the merge began;
      // again here, should the file have changed since).
      const std::string want = hex16(in.hash());
      in.expect(',');
      in.key("digest");
      if (in.string() != want) in.fail("the part changed while it was merged");
      in.expect('}');
      in.end();
    }
  }

 private:
  void define_deps(Part& part) {
    PartParser& in = *part.in;
    in.expect('{');
    in.key("deps");
    const std::size_t id = in.number();
    if (id != part.dep_sets.size()) in.fail("dependency sets must be defined in order");
    in.expect(',');
    in.key("atoms");
    in.expect('[');
    std::vector<AtomId> atoms;
    if (!in.accept(']')) {
      do {
        const std::size_t a = in.number();
        if (a >= s_.scope().deps.atom_count()) in.fail("an atom id the scenario does not have");
        atoms.push_back(static_cast<AtomId>(a));
      } while (in.accept(','));
      in.expect(']');
    }
    in.expect('}');
    part.dep_sets.push_back(s_.dep_set(std::move(atoms)));
  }

  void values(Part& part, std::vector<Value>& out) {
    PartParser& in = *part.in;
    out.clear();
    in.expect('[');
    if (in.accept(']')) return;
    do {
      const std::string t = in.string();
      const auto at = t.rfind('@');
      if (t.size() < 2 || t[1] != ':' || at == std::string::npos || at < 2)
        in.fail("malformed value '" + excerpt(t) + "'");
      char* end = nullptr;
      const std::string id_text = t.substr(at + 1);
      const unsigned long long id = std::strtoull(id_text.c_str(), &end, 10);
      if (id_text.empty() || *end || id >= part.dep_sets.size())
        in.fail("value '" + excerpt(t) + "' names no dependency set");
      const DepSet deps = part.dep_sets[id];
      const std::string body = t.substr(2, at - 2);
      if (t[0] == 'b' && (body == "0" || body == "1")) {
        out.push_back(Value::boolean(body == "1", deps));
      } else if (t[0] == 's') {
        out.push_back(Value::string(body, deps));
      } else if (t[0] == 'd' || t[0] == 'q') {
        const auto colon = t[0] == 'q' ? body.find(':') : body.size();
        if (colon == std::string::npos) in.fail("malformed exact value '" + excerpt(t) + "'");
        const std::string d_text = body.substr(0, colon);
        errno = 0;
        const double d = std::strtod(d_text.c_str(), &end);
        if (d_text.empty() || *end || errno == ERANGE) in.fail("malformed number '" + excerpt(t) + "'");
        // A run never shows nan or inf (runtime.non_finite), so no part of one holds it.
        if (!std::isfinite(d)) in.fail("a number that is not finite: '" + excerpt(t) + "'");
        Num n = Num::of_double(d);
        if (t[0] == 'q') {
          auto ex = Num::from_exact_text(body.substr(colon + 1), d);
          if (!ex) in.fail("malformed exact value '" + excerpt(t) + "'");
          n = *ex;
        }
        out.push_back(Value::number(std::move(n), deps));
      } else {
        in.fail("malformed value '" + excerpt(t) + "'");
      }
    } while (in.accept(','));
    in.expect(']');
  }

  static const char* kind_word(Value::K k) {
    switch (k) {
      case Value::K::num: return "a number";
      case Value::K::boolean: return "a boolean";
      case Value::K::str: return "a string";
      default: return "a record or list";
    }
  }

  // One point, checked against the table as it is read: a missing or extra cell, a cell of the
  // wrong kind or a point outside the part's shard would be read past (or printed) as computed.
  void read_point(Part& part, ShardPoint& sp) {
    PartParser& in = *part.in;
    in.expect('[');
    sp.index = in.number();
    const std::string which = "point " + std::to_string(sp.index) + " of '" + name_ + "'";
    if (sp.index < part.begin || sp.index >= part.end || (part.points > 0 && sp.index <= part.last))
      in.fail(which + " is out of order or outside the part's points " + std::to_string(part.begin) + ".." +
              std::to_string(part.end));
    part.last = sp.index;
    ++part.points;
    in.expect(',');
    sp.feasible = in.boolean();
    // A search part holds its shard's best feasible points only.
    if (shape_.search && !sp.feasible) in.fail(which + " is infeasible, yet a search part holds only feasible points");
    in.expect(',');
    values(part, sp.cells);
    if (sp.cells.size() != shape_.cells.size())
      in.fail(which + " has " + std::to_string(sp.cells.size()) + " cells where the table has " +
              std::to_string(shape_.cells.size()) + " columns");
    for (std::size_t c = 0; c < sp.cells.size(); ++c)
      if (shape_.cells[c] && sp.cells[c].k != *shape_.cells[c])
        in.fail(which + ": cell " + std::to_string(c + 1) + " is " + kind_word(sp.cells[c].k) +
                " where its column holds " + kind_word(*shape_.cells[c]) + " in every row");
    in.expect(',');
    values(part, sp.objectives);
    const std::size_t want = shape_.search ? shape_.objectives : 0;
    if (sp.objectives.size() != want)
      in.fail(which + " has " + std::to_string(sp.objectives.size()) + " objective values where '" + name_ + "' has " +
              std::to_string(want));
    for (const Value& v : sp.objectives)
      if (v.k != Value::K::num) in.fail(which + ": an objective value is " + kind_word(v.k) + ", not a number");
    in.expect(']');
  }

  void trailer(Part& part) {
    PartParser& in = *part.in;
    in.expect(',');
    in.key("evaluated");
    const std::size_t evaluated = in.number();
    in.expect(',');
    in.key("infeasible");
    const std::size_t infeasible = in.number();
    in.expect(',');
    in.key("filtered");
    const std::size_t filtered = in.number();
    // Every point of the part's range is evaluated or filtered out (an error stops a sharded
    // run); a sweep part holds every evaluated point, a search part some of the feasible ones.
    const std::size_t range = part.end - part.begin;
    if (evaluated > range || filtered != range - evaluated || infeasible > evaluated ||
        (shape_.search ? part.points > evaluated - infeasible : part.points != evaluated))
      in.fail("the counts of '" + name_ + "' (" + std::to_string(evaluated) + " evaluated, " +
              std::to_string(infeasible) + " infeasible, " + std::to_string(filtered) + " filtered) do not fit its " +
              std::to_string(range) + " points of which the part holds " + std::to_string(part.points));
    counts_.evaluated += evaluated;
    counts_.infeasible += infeasible;
    counts_.filtered += filtered;
    in.expect(',');
    in.key("failed");
    in.expect('[');
    if (!in.accept(']')) {
      std::size_t last = part.begin;
      do {
        in.expect('[');
        const std::size_t i = in.number();
        in.expect(',');
        const std::size_t item = in.number();
        in.expect(']');
        if (i < last || i >= part.end)
          in.fail("a failed assert at point " + std::to_string(i) + " is out of order or outside the part's points " +
                  std::to_string(part.begin) + ".." + std::to_string(part.end));
        last = i;
        counts_.failed.emplace_back(i, item);
      } while (in.accept(','));
      in.expect(']');
    }
    in.expect('}');
  }

  Scenario& s_;
  std::vector<Part>& parts_;
  ShardCounts counts_;
  ShardShape shape_;  // of the current sweep
  std::string name_;
  std::size_t current_ = 0;
  bool first_ = true;
};

int part_error(const std::string& message) {
  const ErrorKindInfo& k = info(ErrorKind::merge_part);
  std::fprintf(stderr, "mls: error[%s]: %s\n", k.code, message.c_str());
  return k.exit_code;
}

}  // namespace

std::unique_ptr<RunSink> make_part_writer(const ResultScope& scope, Writer& w, const Args& a, const std::string& file,
                                          ShardWriter*& shard) {
  auto pw = std::make_unique<PartWriter>(scope, w, a, file);
  shard = pw.get();
  return pw;
}

int cmd_merge(const Args& a) {
  if (a.positional.size() < 2) return usage_error("merge expects the part files of one sharded run");
  std::vector<Part> parts;
  try {
    for (std::size_t i = 1; i < a.positional.size(); ++i) {
      Part part;
      part.in = std::make_unique<PartParser>(a.positional[i]);
      part.h = read_header(*part.in);
      parts.push_back(std::move(part));
    }
    const PartHeader& h0 = parts.front().h;
    for (const Part& part : parts) {
      const PartHeader& h = part.h;
      if (h.file != h0.file || h.hash != h0.hash || h.preset != h0.preset || h.uses != h0.uses || h.sets != h0.sets ||
          h.exact_limit != h0.exact_limit || h.max_points != h0.max_points || h.n != h0.n)
        throw PartError(part.in->path() + ": from another run than " + parts.front().in->path() +
                        " (file, preset, --use, --set, limits or shard count differ)");
    }
    std::sort(parts.begin(), parts.end(), [](const Part& x, const Part& y) { return x.h.k < y.h.k; });
    for (std::size_t i = 0; i < parts.size(); ++i)
      if (parts[i].h.k != i + 1)
        throw PartError("parts of " + std::to_string(h0.n) + " shards are needed, shard " + std::to_string(i + 1) +
                        " of them is missing or another is given twice");
    if (parts.size() != h0.n)
      throw PartError("parts of " + std::to_string(h0.n) + " shards are needed, " + std::to_string(parts.size()) +
                      " given");
    if (source_hash(h0.file) != h0.hash)
      throw PartError(excerpt(h0.file, 200) + " has changed since the parts were written (or another mls wrote them)");
    for (const Part& part : parts) check_digest(part.in->path());
  } catch (const PartError& e) {
    return part_error(e.what());
  }
  const PartHeader& h = parts.front().h;
  const std::vector<std::string> part_paths(a.positional.begin() + 1, a.positional.end());
  Scenario s(core_options());
  if (!s.prepare(h.file)) return report(s);
  if (const int rc = refuse_output_over_input(a, s, part_paths)) return rc;
  if (const int rc = check_table(a, s)) return rc;
  Selection sel;
  sel.preset = h.preset;
  sel.uses = h.uses;
  sel.sets = h.sets;
  if (!s.configure(sel)) return report(s);
  PartReader reader(s, parts);
  RunOptions opt = a.run;
  opt.exact_limit = h.exact_limit;
  opt.max_points = h.max_points;
  opt.shard_in = &reader;
  AtomicFile out(a.out);
  if (!out.ok()) return io_error(out.error());
  bool failed_assert = false;
  bool ok = false;
  try {
    Writer w(out.file(), a.max_output);
    auto sink = make_formatter(a.format, s.scope(), w, h.file, format_options(a));
    auto watch = watch_asserts(*sink, failed_assert);
    ok = s.run(opt, *watch);
    if (ok) {
      reader.finish();
      w.flush();
    }
  } catch (const PartError& e) {
    out.abandon();
    return part_error(e.what());
  }
  if (!ok) {
    out.abandon();
    return report(s);
  }
  if (const int rc = refuse_output_over_input(a, s, part_paths)) return rc;  // and what the run read (traces)
  if (!out.commit()) return io_error(out.error());
  return failed_assert ? info(ErrorKind::assert_failed).exit_code : 0;
}

}  // namespace mls
