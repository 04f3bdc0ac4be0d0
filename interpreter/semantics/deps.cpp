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
  assumptions_.push_back(std::move(a));
  atoms_.push_back(Atom{static_cast<std::int32_t>(assumptions_.size() - 1), 0, 0});
  return static_cast<AtomId>(atoms_.size() - 1);
}

std::uint32_t Deps::add_site(Site s) {
  const auto id = static_cast<std::uint32_t>(sites_.size());
  const auto first = static_cast<AtomId>(atoms_.size());
  for (std::size_t i = 0; i < s.arms.size(); ++i) atoms_.push_back(Atom{-1, id, static_cast<std::uint32_t>(i)});
  sites_.push_back({std::move(s), first});
  return id;
}

void Deps::rollback(Mark m) {
  const bool dropped = atoms_.size() > m.atoms;
  atoms_.resize(m.atoms);
  assumptions_.resize(m.assumptions);
  sites_.resize(m.sites);
  if (!dropped) return;
  // Interned sets that mention rolled-back atoms stay stored (their ids are never reused) but
  // leave the index, so that a set of new atoms that reuse those ids is interned afresh. Only
  // sets interned after the mark can mention them: the cost is what the input did, not the
  // size of the table (issue 19, item 9).
  std::lock_guard<std::mutex> lock(mu_);
  const std::uint32_t count = count_.load(std::memory_order_acquire);
  for (std::uint32_t id = m.sets; id < count; ++id) {
    const auto& v = atoms(id);
    if (std::any_of(v.begin(), v.end(), [&](AtomId a) { return a >= m.atoms; })) {
      auto it = index_.find(v);
      if (it != index_.end() && it->second == id) index_.erase(it);
    }
  }
  generation_ = g_generation++;
}

std::size_t Deps::VecHash::operator()(const std::vector<AtomId>& v) const {
  std::size_t h = 1469598103934665603ull;
  for (auto x : v) h = (h ^ x) * 1099511628211ull;
  return h;
}

DepSet Deps::intern(std::vector<AtomId> v) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(v);
  if (it != index_.end()) return it->second;
  const std::uint32_t id = count_.load(std::memory_order_relaxed);
  const std::size_t c = id >> kChunkBits;
  if (c >= kChunks) return 0;  // 268M distinct sets: unreachable in practice; degrade to empty
  Chunk* chunk = chunks_[c].load(std::memory_order_acquire);
  if (!chunk) {
    chunk = new Chunk();
    chunks_[c].store(chunk, std::memory_order_release);
  }
  chunk->sets[id & ((1u << kChunkBits) - 1)] = v;
  index_.emplace(std::move(v), id);
  count_.store(id + 1, std::memory_order_release);
  return id;
}

const std::vector<AtomId>& Deps::atoms(DepSet s) const {
  return chunks_[s >> kChunkBits].load(std::memory_order_acquire)->sets[s & ((1u << kChunkBits) - 1)];
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
  return intern(std::move(atoms));
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
  const auto& x = atoms(a);
  const auto& y = atoms(b);
  std::vector<AtomId> out;
  out.reserve(x.size() + y.size());
  std::set_union(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(out));
  const DepSet r = intern(std::move(out));
  if (cache.map.size() > (1u << 20)) cache.map.clear();
  cache.map.emplace(key, r);
  slot = {key, r};
  return r;
}

}  // namespace mls
