// shard_part_read.cpp — a part file read by nlohmann-json's SAX parser on a thread of its own
// (PartFile, shard_part.hpp): the part's fixed layout walked as a state machine, each small value
// built whole and handed to the merge as an item through a bounded queue.
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <iterator>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "shard_part.hpp"
#include "shard_part_format.hpp"

namespace mls {

using namespace part_format;

namespace {

using ojson = nlohmann::ordered_json;

// The merge went away (an error elsewhere): the reader thread unwinds.
struct Cancelled {};

// The items of one part between its reader thread and the merge, handed over in batches (a lock
// and a wake-up per batch, not per point): at most kQueueBatches of kBatchItems ahead.
class ItemQueue {
 public:
  // The reader thread's side. `flush`: hand over what is gathered now (the header, the end).
  void push(PartItem item, bool flush) {
    gathering_.push_back(std::move(item));
    if (!flush && gathering_.size() < kBatchItems) return;
    std::unique_lock<std::mutex> lock(mu_);
    space_.wait(lock, [&] { return cancelled_ || batches_.size() < kQueueBatches; });
    if (cancelled_) throw Cancelled{};
    batches_.push_back(std::move(gathering_));
    gathering_.clear();
    ready_.notify_one();
  }
  // The merge's side.
  PartItem pop() {
    if (next_ == taken_.size()) {
      std::unique_lock<std::mutex> lock(mu_);
      ready_.wait(lock, [&] { return !batches_.empty(); });
      taken_ = std::move(batches_.front());
      batches_.pop_front();
      next_ = 0;
      space_.notify_one();
    }
    return std::move(taken_[next_++]);
  }
  void cancel() {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
    space_.notify_all();
  }

 private:
  static constexpr std::size_t kBatchItems = 64, kQueueBatches = 4;
  std::mutex mu_;
  std::condition_variable ready_, space_;
  std::deque<std::vector<PartItem>> batches_;
  bool cancelled_ = false;
  std::vector<PartItem> gathering_;  // the reader thread's
  std::vector<PartItem> taken_;      // the merge's: the batch it reads from
  std::size_t next_ = 0;
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

  bool null() override { return entry_.active ? entry_value() : value(ojson(nullptr)); }
  bool boolean(bool v) override { return entry_.active ? entry_value(nullptr, &v) : value(ojson(v)); }
  bool number_integer(number_integer_t v) override { return entry_.active ? entry_value() : value(ojson(v)); }
  bool number_unsigned(number_unsigned_t v) override {
    const std::size_t n = v;
    return entry_.active ? entry_value(&n) : value(ojson(v));
  }
  bool number_float(number_float_t v, const string_t&) override {
    return entry_.active ? entry_value() : value(ojson(v));
  }
  bool string(string_t& v) override {
    return entry_.active ? entry_value(nullptr, nullptr, &v) : value(ojson(std::move(v)));
  }
  bool binary(binary_t&) override { fail("unexpected binary value"); }
  bool start_object(std::size_t) override { return open(true); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    src_.event();
    if (entry_.active) {
      // A dependency set's keys, in the writer's order.
      static const char* const kDepsKeys[] = {"deps", "atoms"};
      if (entry_.item.kind != PartItem::Kind::deps || depth_ != 5 || entry_.slot >= 2 || k != kDepsKeys[entry_.slot])
        fail(kDepsShape);
      ++entry_.slot;
      return true;
    }
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
    if (entry_.active) {
      // Only a point's cells and objectives, or a dependency set's atoms, are lists in an entry.
      const bool point = entry_.item.kind == PartItem::Kind::point;
      if (object || depth_ != 6 || (point ? entry_.slot < 2 || entry_.slot > 3 : entry_.slot != 2 || entry_.atoms))
        fail(point ? kPointShape : kDepsShape);
      entry_.in_list = true;
      return true;
    }
    if (dom_.empty()) {
      if (depth_ == 5 && sweep_key_ == 5) {  // a point, or a dependency set
        entry_ = Entry{};
        entry_.active = true;
        entry_.item.kind = object ? PartItem::Kind::deps : PartItem::Kind::point;
        return true;
      }
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
    if (entry_.active) {
      if (was == 6) {
        entry_.in_list = false;
        if (entry_.item.kind == PartItem::Kind::point)
          ++entry_.slot;
        else
          entry_.atoms = true;
        return true;
      }
      const bool point = entry_.item.kind == PartItem::Kind::point;
      if (point ? entry_.slot != 4 : !entry_.id || !entry_.atoms) fail(point ? kPointShape : kDepsShape);
      entry_.active = false;
      push(std::move(entry_.item));
      return true;
    }
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
      fail(kPointShape);
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
  static constexpr const char* kPointShape = "a point is [INDEX, FEASIBLE, [CELLS], [OBJECTIVES]]";
  static constexpr const char* kDepsShape = "a dependency set is {\"deps\": ID, \"atoms\": [ATOMS]}";

  // A scalar inside a point or a dependency set, read straight into its item (no DOM: a part
  // holds millions of them). At most one of `n`, `b`, `text` is given: a whole number, a
  // boolean, a string; none for any other value.
  bool entry_value(const std::size_t* n = nullptr, const bool* b = nullptr, std::string* text = nullptr) {
    src_.event();
    PartItem& item = entry_.item;
    if (item.kind == PartItem::Kind::point) {
      if (entry_.in_list) {
        if (!text) fail("expected a string for a value");
        (entry_.slot == 2 ? item.cells : item.objectives).push_back(std::move(*text));
      } else if (entry_.slot == 0 && n) {
        item.a = *n;
      } else if (entry_.slot == 1 && b) {
        item.flag = *b;
      } else {
        fail(kPointShape);
      }
      if (!entry_.in_list) ++entry_.slot;
      return true;
    }
    if (!n || (entry_.in_list ? entry_.slot != 2 : entry_.slot != 1 || entry_.id)) fail(kDepsShape);
    if (entry_.in_list) {
      item.atoms.push_back(*n);
    } else {
      item.a = *n;
      entry_.id = true;
    }
    return true;
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
    const bool flush = item.kind == PartItem::Kind::header || item.kind == PartItem::Kind::end;
    q_.push(std::move(item), flush);
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
  // The point or dependency set being read: the element or key it is at (`slot`), whether in its
  // list, whether a dependency set has its id and its atoms.
  struct Entry {
    bool active = false, in_list = false, id = false, atoms = false;
    std::size_t slot = 0;
    PartItem item;
  } entry_;
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
    // The last item (an error or the end) stays: every later pop meets it too, so no pop waits
    // for a thread that is done.
    PartItem item = last_ ? *last_ : queue_.pop();
    if (item.kind == PartItem::Kind::error || item.kind == PartItem::Kind::end) last_ = item;
    if (item.kind == PartItem::Kind::error) throw PartError(item.text);
    return item;
  }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  void parse() {
    PartItem error;
    try {
      ByteSource src(f_, path_);
      PartSax sax(src, queue_, path_);
      if (nlohmann::ordered_json::sax_parse(ByteIterator(&src), ByteIterator(), &sax)) {
        sax.push_end();
        return;
      }
      error.text = path_ + ": cannot be read";  // every handler returns true or throws: not met
    } catch (const Cancelled&) {
      return;
    } catch (const PartError& e) {
      error.text = e.what();
    } catch (const std::exception& e) {
      error.text = path_ + ": cannot be read (" + e.what() + ")";
    } catch (...) {
      error.text = path_ + ": cannot be read";
    }
    try {
      queue_.push(std::move(error), true);
    } catch (const Cancelled&) {
    }
  }

  std::string path_;
  std::FILE* f_;
  ItemQueue queue_;
  std::optional<PartItem> last_;  // the error or the end, once popped
  std::thread thread_;
};

PartFile::PartFile(std::string path) : stream_(std::make_unique<PartStream>(std::move(path))) {
  PartItem item = stream_->pop();
  if (item.kind != PartItem::Kind::header) throw PartError(stream_->path() + ": a part begins with its header");
  id_ = std::move(item.id);
}

PartFile::~PartFile() = default;

const std::string& PartFile::path() const { return stream_->path(); }

PartItem PartFile::next_item() { return stream_->pop(); }

}  // namespace mls
