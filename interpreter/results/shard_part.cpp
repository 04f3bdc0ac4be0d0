// shard_part.cpp — the shard-part format (shard_part.hpp): the run's identity, the writer, the
// digest, and the checks a merge makes of every item the parts' SAX readers (shard_part_read.cpp)
// hand over.
#include "shard_part.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <unordered_map>

#include "shard_part_format.hpp"

namespace mls {

using namespace part_format;

namespace {

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
    const PartItem item = part.next_item();
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
    PartItem item = part.next_item();
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
    const PartItem item = part->next_item();
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
