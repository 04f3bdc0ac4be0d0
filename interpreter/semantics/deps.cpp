// deps.cpp — atom tables and the thread-safe interner of dependency sets.
#include "deps.hpp"

#include <algorithm>
#include <array>

#include "selection.hpp"

namespace mls {

const char* kind_name(AssumptionKind k) {
  switch (k) {
    case AssumptionKind::note: return "note";
    case AssumptionKind::convention: return "convention";
    case AssumptionKind::set: return "set";
    case AssumptionKind::registry: return "registry";
    case AssumptionKind::default_: return "default";
    case AssumptionKind::approx: return "approx";
    case AssumptionKind::validation: return "validation";
  }
  return "?";
}

std::string Via::text() const {
  switch (kind) {
    case ViaKind::none: return "";
    case ViaKind::stdlib: return "stdlib";
    case ViaKind::scenario: return "scenario";
    case ViaKind::arithmetic: return "arithmetic";
    case ViaKind::model_from_hf: return "model_from_hf";
    case ViaKind::default_: return "default";
    case ViaKind::preset: return "preset " + preset;
    case ViaKind::command_line: return "command line";
  }
  return "?";
}

bool Via::is_default() const {
  return kind == ViaKind::default_ || (kind == ViaKind::preset && preset == kDefaultPreset);
}

bool quiet(const Via& v, ViaListing l) {
  switch (v.kind) {
    case ViaKind::none:
    case ViaKind::stdlib:
    case ViaKind::scenario:
    case ViaKind::arithmetic: return true;
    case ViaKind::default_: return l == ViaListing::compact;
    case ViaKind::model_from_hf:
    case ViaKind::preset:
    case ViaKind::command_line: return false;
  }
  return false;
}

std::string assumption_place(const Sources& src, const Assumption& a) {
  if (!a.at.valid() && a.kind == AssumptionKind::approx) return "";
  return src.where_line(a.at);
}

namespace {
std::atomic<std::uint64_t> g_generation{1};
}

Deps::Deps() : chunks_(new std::atomic<Chunk*>[kChunks]), generation_(g_generation++) {
  for (std::size_t i = 0; i < kChunks; ++i) chunks_[i].store(nullptr, std::memory_order_relaxed);
  sites_.push_back({});  // site 0 = none
  intern({});            // set 0 = empty
}

Deps::~Deps() {
  for (std::size_t i = 0; i < kChunks; ++i) delete chunks_[i].load(std::memory_order_relaxed);
}

AtomId Deps::add_assumption(Assumption a) {
  std::lock_guard<std::mutex> lock(add_mu_);
  assumptions_.push_back(std::move(a));
  atoms_.push_back(Atom{static_cast<std::int32_t>(assumptions_.size() - 1), 0, 0});
  return static_cast<AtomId>(atoms_.size() - 1);
}

std::uint32_t Deps::add_site(Site s) {
  std::lock_guard<std::mutex> lock(add_mu_);
  const auto id = static_cast<std::uint32_t>(sites_.size());
  const auto first = static_cast<AtomId>(atoms_.size());
  for (std::size_t i = 0; i < s.arms.size(); ++i) atoms_.push_back(Atom{-1, id, static_cast<std::uint32_t>(i)});
  sites_.push_back({std::move(s), first});
  return id;
}

void Deps::rollback(Mark m) {
  const bool dropped = atoms_.size() > m.atoms;
  atoms_.resize_down(m.atoms);
  assumptions_.resize_down(m.assumptions);
  sites_.resize(m.sites);
  // The sets interned after the mark go, and their ids are given again: nothing made after the
  // mark is used after the rollback (a failed REPL input keeps only its rendered messages, a
  // variant of `mls sensitivity` only its number). Kept, they grew with every variant: 2,000
  // inputs moved one by one, each a chain of sums over the others, reached 23.6 GB (issue 38,
  // item 6). The cost is what the input did, not the size of the table (issue 19, item 9).
  std::lock_guard<std::mutex> lock(mu_);
  const std::uint32_t count = count_.load(std::memory_order_acquire);
  if (count <= m.sets) {
    if (dropped) generation_ = g_generation++;  // per-thread caches of single() name the atoms
    return;
  }
  for (std::uint32_t id = m.sets; id < count; ++id) {
    Chunk* chunk = chunks_[id >> kChunkBits].load(std::memory_order_relaxed);
    const std::size_t at = id & ((1u << kChunkBits) - 1);
    Node& n = chunk->nodes[at];
    if (n.size > kSmall) {
      auto it = halves_index_.find((static_cast<std::uint64_t>(n.left) << 32) | n.right);
      if (it != halves_index_.end() && it->second == id) halves_index_.erase(it);
    } else {
      auto it = index_.find(chunk->sets[at]);
      if (it != index_.end() && it->second == id) index_.erase(it);
    }
    std::vector<AtomId>().swap(chunk->sets[at]);
    n = Node{};
  }
  count_.store(m.sets, std::memory_order_release);
  generation_ = g_generation++;
}

std::size_t Deps::VecHash::operator()(const std::vector<AtomId>& v) const {
  std::size_t h = 1469598103934665603ull;
  for (auto x : v) h = (h ^ x) * 1099511628211ull;
  return h;
}

DepSet Deps::add(std::vector<AtomId> small_atoms, Node n) {
  const std::uint32_t id = count_.load(std::memory_order_relaxed);
  const std::size_t c = id >> kChunkBits;
  if (c >= kChunks) return 0;  // 268M distinct sets: unreachable in practice; degrade to empty
  Chunk* chunk = chunks_[c].load(std::memory_order_acquire);
  if (!chunk) {
    chunk = new Chunk();
    chunks_[c].store(chunk, std::memory_order_release);
  }
  chunk->sets[id & ((1u << kChunkBits) - 1)] = std::move(small_atoms);
  chunk->nodes[id & ((1u << kChunkBits) - 1)] = n;
  count_.store(id + 1, std::memory_order_release);
  return id;
}

DepSet Deps::intern(std::vector<AtomId> v) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(v);
  if (it != index_.end()) return it->second;
  const Node n{static_cast<std::uint32_t>(v.size()), v.empty() ? 0 : v.front(), v.empty() ? 0 : v.back(), 0, 0};
  const DepSet id = add(v, n);
  if (id != 0 || v.empty()) index_.emplace(std::move(v), id);
  return id;
}

DepSet Deps::intern_halves(DepSet l, DepSet r) {
  const std::uint64_t key = (static_cast<std::uint64_t>(l) << 32) | r;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = halves_index_.find(key);
  if (it != halves_index_.end()) return it->second;
  const Node& nl = node(l);
  const Node& nr = node(r);
  const DepSet id = add({}, Node{nl.size + nr.size, nl.lo, nr.hi, l, r});
  if (id != 0) halves_index_.emplace(key, id);
  return id;
}

namespace {
// The highest bit in which two different atoms differ.
unsigned top_bit(AtomId a, AtomId b) { return 31u - static_cast<unsigned>(__builtin_clz(a ^ b)); }
}  // namespace

DepSet Deps::make(const AtomId* begin, const AtomId* end) {
  if (end - begin <= static_cast<std::ptrdiff_t>(kSmall)) return intern(std::vector<AtomId>(begin, end));
  const unsigned bit = top_bit(*begin, *(end - 1));
  const AtomId* mid = std::partition_point(begin, end, [bit](AtomId a) { return ((a >> bit) & 1) == 0; });
  return intern_halves(make(begin, mid), make(mid, end));
}

// A set's atoms below and above `bit`, where every atom of the set agrees on the bits above it.
std::pair<DepSet, DepSet> Deps::split(DepSet s, unsigned bit) {
  if (s == 0) return {0, 0};
  const Node& n = node(s);
  const bool lo_up = ((n.lo >> bit) & 1) != 0, hi_up = ((n.hi >> bit) & 1) != 0;
  if (lo_up == hi_up) return lo_up ? std::pair<DepSet, DepSet>{0, s} : std::pair<DepSet, DepSet>{s, 0};
  if (n.size > kSmall) return {n.left, n.right};  // a large set across `bit` is split there already
  const std::vector<AtomId>& v = small(s);
  const auto mid = std::partition_point(v.begin(), v.end(), [bit](AtomId a) { return ((a >> bit) & 1) == 0; });
  return {intern(std::vector<AtomId>(v.begin(), mid)), intern(std::vector<AtomId>(mid, v.end()))};
}

// The set of the atoms of l (below a bit) and of r (above it).
DepSet Deps::join(DepSet l, DepSet r) {
  if (l == 0) return r;
  if (r == 0) return l;
  if (node(l).size + node(r).size > kSmall) return intern_halves(l, r);
  std::vector<AtomId> v(small(l));
  const std::vector<AtomId>& y = small(r);
  v.insert(v.end(), y.begin(), y.end());
  return intern(std::move(v));
}

DepSet Deps::merge(DepSet a, DepSet b) {
  if (a == b || b == 0) return a;
  if (a == 0) return b;
  const Node& na = node(a);
  const Node& nb = node(b);
  if (na.size <= kSmall && nb.size <= kSmall) {
    const std::vector<AtomId>& x = small(a);
    const std::vector<AtomId>& y = small(b);
    std::vector<AtomId> out;
    out.reserve(x.size() + y.size());
    std::set_union(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(out));
    if (out.size() <= kSmall) return intern(std::move(out));
    return make(out.data(), out.data() + out.size());
  }
  // Both sides split where the union's atoms first differ; the halves merge on their own, and
  // a half one side does not reach is shared as it is.
  const unsigned bit = top_bit(std::min(na.lo, nb.lo), std::max(na.hi, nb.hi));
  const auto [al, ar] = split(a, bit);
  const auto [bl, br] = split(b, bit);
  const DepSet l = merge(al, bl);
  return join(l, merge(ar, br));
}

void Deps::gather(DepSet s, std::vector<AtomId>& out) const {
  const Node& n = node(s);
  if (n.size <= kSmall) {
    const std::vector<AtomId>& v = small(s);
    out.insert(out.end(), v.begin(), v.end());
    return;
  }
  gather(n.left, out);
  gather(n.right, out);
}

AtomList Deps::atoms(DepSet s) const {
  const Node& n = node(s);
  if (n.size <= kSmall) return AtomList(std::span<const AtomId>(small(s)));
  std::vector<AtomId> out;
  out.reserve(n.size);
  gather(s, out);
  return AtomList(std::move(out));
}

DepSet Deps::single(AtomId a) {
  // Per-thread memo by atom: evaluation asks for the same literal and branch atoms at every
  // point, and interning takes a lock and a hash of a fresh vector. (Set 0 is the empty set:
  // never the answer for an atom, so 0 marks "not known yet".)
  struct Cache {
    std::uint64_t generation = 0;
    std::vector<DepSet> sets;
  };
  thread_local Cache cache;
  if (cache.generation != generation_) {
    cache.sets.clear();
    cache.generation = generation_;
  }
  if (a < cache.sets.size() && cache.sets[a] != 0) return cache.sets[a];
  const DepSet r = intern({a});
  if (a < (1u << 24)) {
    if (a >= cache.sets.size()) cache.sets.resize(std::max<std::size_t>(a + 1, 2 * cache.sets.size()), 0);
    cache.sets[a] = r;
  }
  return r;
}

DepSet Deps::of(std::vector<AtomId> atoms) {
  std::sort(atoms.begin(), atoms.end());
  atoms.erase(std::unique(atoms.begin(), atoms.end()), atoms.end());
  if (atoms.size() <= kSmall) return intern(std::move(atoms));
  return make(atoms.data(), atoms.data() + atoms.size());
}

DepSet Deps::unite(DepSet a, DepSet b) {
  if (a == b || b == 0) return a;
  if (a == 0) return b;
  if (a > b) std::swap(a, b);
  // Per-thread memo: sweeps repeat the same unions millions of times.
  // In front of it, a direct-mapped table of recent unions (a key is never 0: a >= 1 here).
  static constexpr std::size_t kRecent = 4096;
  struct Cache {
    std::uint64_t generation = 0;
    std::unordered_map<std::uint64_t, DepSet> map;
    std::array<std::pair<std::uint64_t, DepSet>, kRecent> recent{};
  };
  thread_local Cache cache;
  if (cache.generation != generation_) {
    cache.map.clear();
    cache.recent.fill({0, 0});
    cache.generation = generation_;
  }
  const std::uint64_t key = (static_cast<std::uint64_t>(a) << 32) | b;
  auto& slot = cache.recent[((key * 0x9E3779B97F4A7C15ull) >> 52) & (kRecent - 1)];
  if (slot.first == key) return slot.second;
  auto it = cache.map.find(key);
  if (it != cache.map.end()) {
    slot = {key, it->second};
    return it->second;
  }
  const DepSet r = merge(a, b);
  if (cache.map.size() > (1u << 20)) cache.map.clear();
  cache.map.emplace(key, r);
  slot = {key, r};
  return r;
}

}  // namespace mls
