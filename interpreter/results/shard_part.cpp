// shard_part.cpp — the shard-part file format (shard_part.hpp): its writer, and its reader built
// on nlohmann-json's SAX parser, each part streamed on a thread of its own through a bounded queue.
#include "shard_part.hpp"

#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <iterator>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <unordered_map>

namespace mls {

namespace {

// 2: the digest at the end.
constexpr int kPartVersion = 2;
// A string in a part is a cell's text: no mls string is near this long.
constexpr std::size_t kMaxPartString = std::size_t{64} << 20;
// Containers nest at most this deep in a part: the root, its sweeps, a sweep, its points, a
// point, a point's cells.
constexpr std::size_t kMaxPartDepth = 6;
// Items a part's reader thread may hold ahead of the merge.
constexpr std::size_t kQueueItems = 256;

constexpr std::uint64_t kFnvOffset = 1469598103934665603ull;
constexpr std::uint64_t kFnvPrime = 1099511628211ull;

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

std::string pairs_json(const std::vector<std::pair<std::string, std::string>>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i)
    s += std::string(i ? ", " : "") + "[" + json_string(v[i].first) + ", " + json_string(v[i].second) + "]";
  return s + "]";
}

// ---- writing a part ----------------------------------------------------------------------------

class PartWriter : public RunSink, public ShardWriter {
 public:
  PartWriter(const ResultScope& scope, Writer& w, const PartIdentity& id) : scope_(scope), w_(w) {
    std::string s = "{\"mls_part\": " + std::to_string(kPartVersion) + ",\n \"mls\": " + json_string(kVersion) +
                    ",\n \"file\": " + json_string(id.file) + ",\n \"source_hash\": " + json_string(id.source_hash) +
                    ",\n \"shard\": [" + std::to_string(id.k) + ", " + std::to_string(id.n) + "],\n \"preset\": [" +
                    (id.preset ? json_string(*id.preset) : std::string()) + "]" +
                    ",\n \"use\": " + pairs_json(id.uses) + ",\n \"set\": " + pairs_json(id.sets) +
                    ",\n \"exact_limit\": " + std::to_string(id.exact_limit) +
                    ",\n \"max_points\": " + std::to_string(id.max_points) + ",\n \"sweeps\": [";
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
  // A dependency set is defined once per sweep, before its first use.
  std::size_t dep(DepSet d) {
    auto [it, fresh] = dep_ids_.emplace(d, dep_ids_.size());
    if (fresh) {
      std::string def =
          std::string(points_++ ? "," : "") + "\n    {\"deps\": " + std::to_string(it->second) + ", \"atoms\": [";
      const auto& atoms = scope_.deps.atoms(d);
      for (std::size_t i = 0; i < atoms.size(); ++i) def += (i ? "," : "") + std::to_string(atoms[i]);
      put(def + "]}");
    }
    return it->second;
  }
  // Cells as "KIND:TEXT@DEPS": d (binary64), q (exact: binary64 and the rational), b, s.
  void values(const std::vector<Value>& vs) {
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
  }
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

}  // namespace

bool PartIdentity::same_run(const PartIdentity& o) const {
  return file == o.file && source_hash == o.source_hash && preset == o.preset && uses == o.uses && sets == o.sets &&
         exact_limit == o.exact_limit && max_points == o.max_points && n == o.n;
}

std::string part_source_hash(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return hex16(fnv1a(text + '\0' + kVersion));
}

std::string part_excerpt(std::string_view t, std::size_t n) {
  std::string out;
  for (char c : t.substr(0, n)) out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c;
  return t.size() > n ? out + "..." : out;
}

std::unique_ptr<RunSink> make_part_writer(const ResultScope& scope, Writer& w, const PartIdentity& id,
                                          ShardWriter*& shard) {
  auto pw = std::make_unique<PartWriter>(scope, w, id);
  shard = pw.get();
  return pw;
}

void check_part_digest(const std::string& path) {
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

// ---- reading a part ----------------------------------------------------------------------------

// What a part's reader thread hands the merge, in file order: its identity, then per sweep its
// head, dependency sets and points, and its counts; the end (with whether the digest matched
// the bytes read) or an error. `pos`: bytes read when the item was complete.
struct PartItem {
  enum class Kind { header, sweep, deps, point, counts, end, error } kind = Kind::error;
  std::size_t pos = 0;
  std::string text;                        // header: nothing; sweep: its name; error: the message
  std::size_t a = 0, b = 0, c = 0, d = 0;  // sweep: total, begin, end; deps: id; point: index; counts: ...
  bool flag = false;                       // point: feasible; end: the digest matched
  std::vector<std::size_t> atoms;          // deps
  std::vector<std::string> cells, objectives;
  std::vector<std::pair<std::size_t, std::size_t>> failed;  // counts
  PartIdentity id;                                          // header
};

namespace {

using ojson = nlohmann::ordered_json;

// The merge went away (an error elsewhere): the reader thread unwinds.
struct Cancelled {};

// The items of one part between its reader thread and the merge: at most kQueueItems ahead.
class ItemQueue {
 public:
  void push(PartItem item) {
    std::unique_lock<std::mutex> lock(mu_);
    space_.wait(lock, [&] { return cancelled_ || items_.size() < kQueueItems; });
    if (cancelled_) throw Cancelled{};
    items_.push_back(std::move(item));
    ready_.notify_one();
  }
  PartItem pop() {
    std::unique_lock<std::mutex> lock(mu_);
    ready_.wait(lock, [&] { return !items_.empty(); });
    PartItem item = std::move(items_.front());
    items_.pop_front();
    space_.notify_one();
    return item;
  }
  void cancel() {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
    space_.notify_all();
  }
  [[nodiscard]] bool cancelled() {
    std::lock_guard<std::mutex> lock(mu_);
    return cancelled_;
  }

 private:
  std::mutex mu_;
  std::condition_variable ready_, space_;
  std::deque<PartItem> items_;
  bool cancelled_ = false;
};

// The bytes of a part file as the parser reads them: counted, hashed into the digest, and
// bounded between two parser events (a string or a number longer than kMaxPartString is refused
// before the parser has buffered it whole).
class ByteSource {
 public:
  ByteSource(std::FILE* f, const std::string& path) : f_(f), path_(path) {}
  [[nodiscard]] bool at_end() {
    if (at_ < len_) return false;
    len_ = std::fread(buf_, 1, sizeof buf_, f_);
    at_ = 0;
    if (len_ == 0 && std::ferror(f_)) throw PartError(path_ + ": cannot be read");
    return len_ == 0;
  }
  char take() {
    const char c = buf_[at_++];
    ++pos_;
    hash_ = (hash_ ^ static_cast<unsigned char>(c)) * kFnvPrime;
    if (++since_event_ > kMaxPartString + 64)
      throw PartError(path_ + ": byte " + std::to_string(pos_) + ": a string longer than 64 MiB");
    return c;
  }
  void event() { since_event_ = 0; }
  [[nodiscard]] std::size_t pos() const { return pos_; }
  [[nodiscard]] std::uint64_t hash() const { return hash_; }

 private:
  std::FILE* f_;
  const std::string& path_;
  char buf_[1 << 16];
  std::size_t at_ = 0, len_ = 0, pos_ = 0, since_event_ = 0;
  std::uint64_t hash_ = kFnvOffset;
};

// An input iterator over a ByteSource, for nlohmann's iterator input adapter (which reads one
// character at a time and compares against the end).
class ByteIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = char;
  ByteIterator() = default;
  explicit ByteIterator(ByteSource* s) : s_(s) {}
  char operator*() const { return s_->take(); }
  ByteIterator& operator++() { return *this; }  // take() moved on already
  ByteIterator operator++(int) { return *this; }
  bool operator==(const ByteIterator& o) const { return end() == o.end(); }
  bool operator!=(const ByteIterator& o) const { return !(*this == o); }

 private:
  [[nodiscard]] bool end() const { return !s_ || s_->at_end(); }
  ByteSource* s_ = nullptr;
};

// The SAX handler of one part: the part's fixed layout as a state machine over the nesting
// depth; each small value (a header field, a sweep's field, one point or dependency set) is built
// as a DOM of its own and turned into an item as it completes.
class PartSax : public nlohmann::json_sax<ojson> {
 public:
  PartSax(ByteSource& src, ItemQueue& q, const std::string& path) : src_(src), q_(q), path_(path) {}

  bool null() override { return value(ojson(nullptr)); }
  bool boolean(bool v) override { return value(ojson(v)); }
  bool number_integer(number_integer_t v) override { return value(ojson(v)); }
  bool number_unsigned(number_unsigned_t v) override { return value(ojson(v)); }
  bool number_float(number_float_t v, const string_t&) override { return value(ojson(v)); }
  bool string(string_t& v) override { return value(ojson(std::move(v))); }
  bool binary(binary_t&) override { fail("unexpected binary value"); }
  bool start_object(std::size_t) override { return open(true); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    src_.event();
    if (!dom_.empty()) {
      ojson& obj = *dom_.back();
      if (obj.contains(k)) fail("the key \"" + part_excerpt(k) + "\" is given twice");
      pending_key_ = std::move(k);
      return true;
    }
    const std::vector<const char*>& keys = depth_ == 1 ? kRootKeys : kSweepKeys;
    if (depth_ != 1 && depth_ != 3) fail("unexpected key");
    std::size_t& next = depth_ == 1 ? root_key_ : sweep_key_;
    if (next >= keys.size() || k != keys[next])
      fail(next >= keys.size() ? "unexpected key \"" + part_excerpt(k) + "\""
                               : std::string("expected the key \"") + keys[next] + "\"");
    ++next;
    if (depth_ == 3 && k == "points") push_sweep_head();
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override {
    std::string what = ex.what();
    // Past the library's "[json.exception.parse_error.101] parse error at line L, column C: ".
    if (const auto c = what.find(": ", what.find("column")); c != std::string::npos) what = what.substr(c + 2);
    throw PartError(path_ + ": byte " + std::to_string(position) + ": " + what);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw PartError(path_ + ": byte " + std::to_string(src_.pos()) + ": " + what);
  }

  static inline const std::vector<const char*> kRootKeys = {"mls_part",    "mls",        "file",   "source_hash",
                                                            "shard",       "preset",     "use",    "set",
                                                            "exact_limit", "max_points", "sweeps", "digest"};
  static inline const std::vector<const char*> kSweepKeys = {"name",      "total",      "begin",    "end",   "points",
                                                             "evaluated", "infeasible", "filtered", "failed"};

  // Where in the layout a container opens: the sweeps array, a sweep, its points are walked;
  // everything else is a small value built whole.
  bool open(bool object) {
    src_.event();
    if (++depth_ > kMaxPartDepth) fail("nesting deeper than a part has");
    if (dom_.empty()) {
      if (depth_ == 1 && object) return true;  // the root
      if (depth_ == 2 && !object && root_key_ == 11) {
        push_header();
        return true;
      }
      if (depth_ == 3 && object && walking_sweeps()) {
        sweep_key_ = 0;
        sweep_ = ojson::object();
        return true;
      }
      if (depth_ == 4 && !object && sweep_key_ == 5) return true;  // the points
      if (depth_ == 1) fail("a part is a JSON object");
      root_ = object ? ojson::object() : ojson::array();
      dom_.push_back(&root_);
      return true;
    }
    dom_.push_back(&add(object ? ojson::object() : ojson::array()));
    return true;
  }
  bool close() {
    src_.event();
    const std::size_t was = depth_--;
    if (!dom_.empty()) {
      dom_.pop_back();
      if (dom_.empty()) done(std::move(root_));
      return true;
    }
    if (was == 4) return true;  // the points end
    if (was == 3) {
      if (sweep_key_ != kSweepKeys.size()) fail(std::string("expected the key \"") + kSweepKeys[sweep_key_] + "\"");
      push_counts();
      return true;
    }
    if (was == 2) {
      sweeps_hash_ = src_.hash();  // the digest covers every byte through the sweeps' ']'
      return true;
    }
    if (root_key_ != kRootKeys.size()) fail(std::string("expected the key \"") + kRootKeys[root_key_] + "\"");
    return true;
  }
  bool value(ojson v) {
    src_.event();
    if (!dom_.empty()) {
      add(std::move(v));
      return true;
    }
    if (depth_ == 0) fail("a part is a JSON object");
    done(std::move(v));
    return true;
  }
  // A value into the DOM being built.
  ojson& add(ojson v) {
    ojson& top = *dom_.back();
    if (top.is_array()) {
      top.push_back(std::move(v));
      return top.back();
    }
    ojson& slot = top[pending_key_];
    slot = std::move(v);
    return slot;
  }
  [[nodiscard]] bool walking_sweeps() const { return root_key_ == 11; }

 public:
  // Once the whole part is parsed: its end, with whether its digest is that of the bytes read.
  void push_end() {
    PartItem end;
    end.kind = PartItem::Kind::end;
    end.flag = header_.value("digest", ojson()) == hex16(sweeps_hash_);
    push(std::move(end));
  }

 private:
  // A small value is complete, at the place the depth and the last key say.
  void done(ojson v) {
    if (depth_ == 1) {
      if (root_key_ == 11) fail("expected the list of sweeps");
      header_[kRootKeys[root_key_ - 1]] = std::move(v);
    } else if (depth_ == 3) {
      if (sweep_key_ == 5) fail("expected the list of points");
      sweep_[kSweepKeys[sweep_key_ - 1]] = std::move(v);
    } else if (depth_ == 4 && sweep_key_ == 5) {
      push_entry(v);
    } else {
      fail(depth_ == 2 ? "a sweep is a JSON object" : "unexpected value");
    }
  }

  static bool whole(const ojson& v) { return v.is_number_unsigned(); }
  std::size_t number(const ojson& v, const char* what) const {
    if (!whole(v)) fail(std::string("expected a whole number for ") + what);
    return v.get<std::size_t>();
  }
  const std::string& text(const ojson& v, const char* what) const {
    if (!v.is_string()) fail(std::string("expected a string for ") + what);
    return v.get_ref<const std::string&>();
  }
  std::vector<std::pair<std::string, std::string>> pairs(const ojson& v, const char* what) const {
    std::vector<std::pair<std::string, std::string>> out;
    if (!v.is_array()) fail(std::string("expected a list of pairs for ") + what);
    for (const ojson& p : v) {
      if (!p.is_array() || p.size() != 2) fail(std::string("expected a list of pairs for ") + what);
      out.emplace_back(text(p[0], what), text(p[1], what));
    }
    return out;
  }

  void push_header() {
    const ojson& h = header_;
    if (number(h["mls_part"], "mls_part") != kPartVersion)
      fail("this part was written by another version of the part format");
    if (text(h["mls"], "mls") != kVersion) fail("this part was written by another version of mls");
    PartItem item;
    item.kind = PartItem::Kind::header;
    PartIdentity& id = item.id;
    id.file = text(h["file"], "file");
    id.source_hash = text(h["source_hash"], "source_hash");
    const ojson& shard = h["shard"];
    if (!shard.is_array() || shard.size() != 2) fail("the shard must be [K, N]");
    id.k = number(shard[0], "the shard");
    id.n = number(shard[1], "the shard");
    if (id.n == 0 || id.k == 0 || id.k > id.n) fail("the shard must be K/N with 1 <= K <= N");
    const ojson& preset = h["preset"];
    if (!preset.is_array() || preset.size() > 1) fail("the preset must be [] or [NAME]");
    if (!preset.empty()) id.preset = text(preset[0], "the preset");
    id.uses = pairs(h["use"], "use");
    id.sets = pairs(h["set"], "set");
    id.exact_limit = number(h["exact_limit"], "exact_limit");
    id.max_points = number(h["max_points"], "max_points");
    push(std::move(item));
  }
  void push_sweep_head() {
    PartItem item;
    item.kind = PartItem::Kind::sweep;
    item.text = text(sweep_["name"], "name");
    item.a = number(sweep_["total"], "total");
    item.b = number(sweep_["begin"], "begin");
    item.c = number(sweep_["end"], "end");
    push(std::move(item));
  }
  // A point `[INDEX, FEASIBLE, [CELLS], [OBJECTIVES]]` or a dependency set `{"deps": ID, "atoms": [...]}`.
  void push_entry(const ojson& v) {
    PartItem item;
    auto strings = [&](const ojson& list, std::vector<std::string>& out) {
      if (!list.is_array()) fail("expected a list of values");
      for (const ojson& s : list) out.push_back(text(s, "a value"));
    };
    if (v.is_object()) {
      if (v.size() != 2 || v.begin().key() != "deps" || std::next(v.begin()).key() != "atoms" || !v["atoms"].is_array())
        fail("a dependency set is {\"deps\": ID, \"atoms\": [...]}");
      item.kind = PartItem::Kind::deps;
      item.a = number(v["deps"], "deps");
      for (const ojson& a : v["atoms"]) item.atoms.push_back(number(a, "an atom"));
    } else {
      if (!v.is_array() || v.size() != 4 || !v[1].is_boolean()) fail("a point is [INDEX, FEASIBLE, CELLS, OBJECTIVES]");
      item.kind = PartItem::Kind::point;
      item.a = number(v[0], "a point's index");
      item.flag = v[1].get<bool>();
      strings(v[2], item.cells);
      strings(v[3], item.objectives);
    }
    push(std::move(item));
  }
  void push_counts() {
    PartItem item;
    item.kind = PartItem::Kind::counts;
    item.a = number(sweep_["evaluated"], "evaluated");
    item.b = number(sweep_["infeasible"], "infeasible");
    item.c = number(sweep_["filtered"], "filtered");
    const ojson& failed = sweep_["failed"];
    if (!failed.is_array()) fail("expected a list of failed asserts");
    for (const ojson& f : failed) {
      if (!f.is_array() || f.size() != 2) fail("a failed assert is [POINT, ITEM]");
      item.failed.emplace_back(number(f[0], "a failed assert"), number(f[1], "a failed assert"));
    }
    push(std::move(item));
  }
  void push(PartItem item) {
    item.pos = src_.pos();
    q_.push(std::move(item));
  }

  ByteSource& src_;
  ItemQueue& q_;
  const std::string& path_;
  std::size_t depth_ = 0;
  std::size_t root_key_ = 0, sweep_key_ = 0;  // keys read of the root and of the current sweep
  ojson header_ = ojson::object(), sweep_ = ojson::object();
  ojson root_;               // the small value being built
  std::vector<ojson*> dom_;  // its open containers
  std::string pending_key_;
  std::uint64_t sweeps_hash_ = 0;
};

}  // namespace

// A part file and the thread that parses it.
class PartStream {
 public:
  explicit PartStream(std::string path) : path_(std::move(path)), f_(std::fopen(path_.c_str(), "rb")) {
    if (!f_) throw PartError(path_ + ": cannot be read (" + std::strerror(errno) + ")");
    thread_ = std::thread([this] { parse(); });
  }
  ~PartStream() {
    queue_.cancel();
    thread_.join();
    std::fclose(f_);
  }
  PartStream(const PartStream&) = delete;
  PartStream& operator=(const PartStream&) = delete;
  // The next item; an error the thread met is thrown here.
  PartItem pop() {
    PartItem item = queue_.pop();
    if (item.kind == PartItem::Kind::error) {
      queue_.push(item);  // every later pop meets it too
      throw PartError(item.text);
    }
    return item;
  }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  void parse() {
    PartItem error;
    try {
      ByteSource src(f_, path_);
      PartSax sax(src, queue_, path_);
      if (nlohmann::ordered_json::sax_parse(ByteIterator(&src), ByteIterator(), &sax)) sax.push_end();
      return;
    } catch (const Cancelled&) {
      return;
    } catch (const PartError& e) {
      error.text = e.what();
    } catch (const std::exception& e) {
      error.text = path_ + ": cannot be read (" + e.what() + ")";
    }
    try {
      queue_.push(std::move(error));
    } catch (const Cancelled&) {
    }
  }

  std::string path_;
  std::FILE* f_;
  ItemQueue queue_;
  std::thread thread_;
};

PartFile::PartFile(std::string path) : stream_(std::make_unique<PartStream>(std::move(path))) {
  PartItem item = stream_->pop();
  if (item.kind != PartItem::Kind::header) throw PartError(stream_->path() + ": a part begins with its header");
  id_ = std::move(item.id);
}

PartFile::~PartFile() = default;

const std::string& PartFile::path() const { return stream_->path(); }

// ---- the parts of a merge ----------------------------------------------------------------------

namespace {

const char* kind_word(Value::K k) {
  switch (k) {
    case Value::K::num: return "a number";
    case Value::K::boolean: return "a boolean";
    case Value::K::str: return "a string";
    default: return "a record or list";
  }
}

[[noreturn]] void fail_at(const PartFile& part, const PartItem& item, const std::string& what) {
  throw PartError(part.path() + ": byte " + std::to_string(item.pos) + ": " + what);
}

}  // namespace

PartsReader::PartsReader(std::vector<std::unique_ptr<PartFile>>& parts, const Deps& deps,
                         std::function<DepSet(std::vector<AtomId>)> intern)
    : parts_(parts), deps_(deps), intern_(std::move(intern)), sweeps_(parts.size()) {}

void PartsReader::sweep(const std::string& name, std::size_t total, const ShardShape& shape) {
  counts_ = ShardCounts{};
  shape_ = shape;
  name_ = name;
  std::size_t expect_begin = 0;
  for (std::size_t p = 0; p < parts_.size(); ++p) {
    PartFile& part = *parts_[p];
    const PartItem item = part.stream_->pop();
    if (item.kind != PartItem::Kind::sweep) fail_at(part, item, "the part has fewer sweeps than the scenario");
    const std::size_t t = item.a, b = item.b, e = item.c;
    if (item.text != name || t != total)
      fail_at(part, item,
              "the part holds sweep '" + part_excerpt(item.text) + "' of " + std::to_string(t) +
                  " points where the scenario runs '" + name + "' of " + std::to_string(total));
    if (b != expect_begin || e < b || e > total)
      fail_at(part, item,
              "the part's points " + std::to_string(b) + ".." + std::to_string(e) + " of '" + name +
                  "' do not follow the previous part's (expected to begin at " + std::to_string(expect_begin) + ")");
    const PartIdentity& id = part.identity();
    if (const auto want = shard_points(id.k, id.n, total); want != std::pair(b, e))
      fail_at(part, item,
              "the part holds points " + std::to_string(b) + ".." + std::to_string(e) + " of '" + name +
                  "' where shard " + std::to_string(id.k) + "/" + std::to_string(id.n) + " evaluates " +
                  std::to_string(want.first) + ".." + std::to_string(want.second));
    expect_begin = e;
    sweeps_[p] = Sweep{{}, b, e, 0, 0};
  }
  if (expect_begin != total)
    throw PartError("the parts cover points 0.." + std::to_string(expect_begin) + " of '" + name + "' (of " +
                    std::to_string(total) + ")");
  current_ = 0;
}

bool PartsReader::next(ShardPoint& sp) {
  while (current_ < parts_.size()) {
    PartFile& part = *parts_[current_];
    PartItem item = part.stream_->pop();
    switch (item.kind) {
      case PartItem::Kind::deps: define_deps(current_, item); continue;
      case PartItem::Kind::point: read_point(current_, item, sp); return true;
      case PartItem::Kind::counts:
        trailer(current_, item);
        ++current_;
        continue;
      default: fail_at(part, item, "the part's sweep '" + name_ + "' is cut short");
    }
  }
  return false;
}

void PartsReader::finish() {
  for (const auto& part : parts_) {
    const PartItem item = part->stream_->pop();
    if (item.kind != PartItem::Kind::end) fail_at(*part, item, "the part has more sweeps than the scenario");
    // What was read is what the part's digest covers (checked whole before the merge began;
    // again here, should the file have changed since).
    if (!item.flag) fail_at(*part, item, "the part changed while it was merged");
  }
}

void PartsReader::define_deps(std::size_t p, const PartItem& item) {
  Sweep& sw = sweeps_[p];
  if (item.a != sw.dep_sets.size()) fail_at(*parts_[p], item, "dependency sets must be defined in order");
  std::vector<AtomId> atoms;
  for (const std::size_t a : item.atoms) {
    if (a >= deps_.atom_count()) fail_at(*parts_[p], item, "an atom id the scenario does not have");
    atoms.push_back(static_cast<AtomId>(a));
  }
  sw.dep_sets.push_back(intern_(std::move(atoms)));
}

// Cells as the writer writes them: "KIND:TEXT@DEPS".
void PartsReader::values(std::size_t p, const PartItem& item, const std::vector<std::string>& texts,
                         std::vector<Value>& out) {
  const PartFile& part = *parts_[p];
  const std::vector<DepSet>& dep_sets = sweeps_[p].dep_sets;
  out.clear();
  for (const std::string& t : texts) {
    const auto at = t.rfind('@');
    if (t.size() < 2 || t[1] != ':' || at == std::string::npos || at < 2)
      fail_at(part, item, "malformed value '" + part_excerpt(t) + "'");
    char* end = nullptr;
    const std::string id_text = t.substr(at + 1);
    const unsigned long long id = std::strtoull(id_text.c_str(), &end, 10);
    if (id_text.empty() || *end || id >= dep_sets.size())
      fail_at(part, item, "value '" + part_excerpt(t) + "' names no dependency set");
    const DepSet deps = dep_sets[id];
    const std::string body = t.substr(2, at - 2);
    if (t[0] == 'b' && (body == "0" || body == "1")) {
      out.push_back(Value::boolean(body == "1", deps));
    } else if (t[0] == 's') {
      out.push_back(Value::string(body, deps));
    } else if (t[0] == 'd' || t[0] == 'q') {
      const auto colon = t[0] == 'q' ? body.find(':') : body.size();
      if (colon == std::string::npos) fail_at(part, item, "malformed exact value '" + part_excerpt(t) + "'");
      const std::string d_text = body.substr(0, colon);
      errno = 0;
      const double d = std::strtod(d_text.c_str(), &end);
      if (d_text.empty() || *end || errno == ERANGE) fail_at(part, item, "malformed number '" + part_excerpt(t) + "'");
      // A run never shows nan or inf (runtime.non_finite), so no part of one holds it.
      if (!std::isfinite(d)) fail_at(part, item, "a number that is not finite: '" + part_excerpt(t) + "'");
      Num n = Num::of_double(d);
      if (t[0] == 'q') {
        auto ex = Num::from_exact_text(body.substr(colon + 1), d);
        if (!ex) fail_at(part, item, "malformed exact value '" + part_excerpt(t) + "'");
        n = *ex;
      }
      out.push_back(Value::number(std::move(n), deps));
    } else {
      fail_at(part, item, "malformed value '" + part_excerpt(t) + "'");
    }
  }
}

// One point, checked against the table as it is read: a missing or extra cell, a cell of the
// wrong kind or a point outside the part's shard would be read past (or printed) as computed.
void PartsReader::read_point(std::size_t p, PartItem& item, ShardPoint& sp) {
  const PartFile& part = *parts_[p];
  Sweep& sw = sweeps_[p];
  sp.index = item.a;
  const std::string which = "point " + std::to_string(sp.index) + " of '" + name_ + "'";
  if (sp.index < sw.begin || sp.index >= sw.end || (sw.points > 0 && sp.index <= sw.last))
    fail_at(part, item,
            which + " is out of order or outside the part's points " + std::to_string(sw.begin) + ".." +
                std::to_string(sw.end));
  sw.last = sp.index;
  ++sw.points;
  sp.feasible = item.flag;
  // A search part holds its shard's best feasible points only.
  if (shape_.search && !sp.feasible)
    fail_at(part, item, which + " is infeasible, yet a search part holds only feasible points");
  values(p, item, item.cells, sp.cells);
  if (sp.cells.size() != shape_.cells.size())
    fail_at(part, item,
            which + " has " + std::to_string(sp.cells.size()) + " cells where the table has " +
                std::to_string(shape_.cells.size()) + " columns");
  for (std::size_t c = 0; c < sp.cells.size(); ++c)
    if (shape_.cells[c] && sp.cells[c].k != *shape_.cells[c])
      fail_at(part, item,
              which + ": cell " + std::to_string(c + 1) + " is " + kind_word(sp.cells[c].k) +
                  " where its column holds " + kind_word(*shape_.cells[c]) + " in every row");
  values(p, item, item.objectives, sp.objectives);
  const std::size_t want = shape_.search ? shape_.objectives : 0;
  if (sp.objectives.size() != want)
    fail_at(part, item,
            which + " has " + std::to_string(sp.objectives.size()) + " objective values where '" + name_ + "' has " +
                std::to_string(want));
  for (const Value& v : sp.objectives)
    if (v.k != Value::K::num)
      fail_at(part, item, which + ": an objective value is " + kind_word(v.k) + ", not a number");
}

void PartsReader::trailer(std::size_t p, const PartItem& item) {
  const PartFile& part = *parts_[p];
  const Sweep& sw = sweeps_[p];
  const std::size_t evaluated = item.a, infeasible = item.b, filtered = item.c;
  // Every point of the part's range is evaluated or filtered out (an error stops a sharded
  // run); a sweep part holds every evaluated point, a search part some of the feasible ones.
  const std::size_t range = sw.end - sw.begin;
  if (evaluated > range || filtered != range - evaluated || infeasible > evaluated ||
      (shape_.search ? sw.points > evaluated - infeasible : sw.points != evaluated))
    fail_at(part, item,
            "the counts of '" + name_ + "' (" + std::to_string(evaluated) + " evaluated, " +
                std::to_string(infeasible) + " infeasible, " + std::to_string(filtered) + " filtered) do not fit its " +
                std::to_string(range) + " points of which the part holds " + std::to_string(sw.points));
  counts_.evaluated += evaluated;
  counts_.infeasible += infeasible;
  counts_.filtered += filtered;
  std::size_t last = sw.begin;
  for (const auto& [i, assert_item] : item.failed) {
    if (i < last || i >= sw.end)
      fail_at(part, item,
              "a failed assert at point " + std::to_string(i) + " is out of order or outside the part's points " +
                  std::to_string(sw.begin) + ".." + std::to_string(sw.end));
    last = i;
    counts_.failed.emplace_back(i, assert_item);
  }
}

}  // namespace mls
