// memory_limit.cpp — the global operator new and delete of the mls executable, counting the live
// bytes of the C++ heap against the memory limit. Each thread keeps a running balance and adds it
// to the shared count once it passes kBatch either way, so an allocation costs a usable-size
// lookup and a thread-local addition; the limit is checked when a balance is added. A sanitizer
// build keeps the sanitizer's allocator (and has no limit), unless the target asks for the limit
// (MLS_HEAP_LIMIT_UNDER_SANITIZER: the pipeline's fuzz target, whose structured inputs of up to
// 16 MiB may need gigabytes; tests/fuzz/CMakeLists.txt): it then counts the sanitizer's malloc.
#include "memory_limit.hpp"

#include <malloc.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

// g++ says __SANITIZE_ADDRESS__, clang __has_feature(address_sanitizer).
#if defined(__SANITIZE_ADDRESS__)
#define MLS_SANITIZER_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MLS_SANITIZER_ALLOCATOR 1
#endif
#endif
#if defined(MLS_SANITIZER_ALLOCATOR) && !defined(MLS_HEAP_LIMIT_UNDER_SANITIZER)
#define MLS_COUNT_HEAP 0
#else
#define MLS_COUNT_HEAP 1
#endif

namespace mls {

namespace {

constexpr bool kCounting = MLS_COUNT_HEAP != 0;

// Bytes a thread may allocate (or free) before its balance joins the shared count: with 512
// threads the count is off by at most 128 MiB either way.
constexpr std::int64_t kBatch = std::int64_t{256} << 10;

std::atomic<std::int64_t> g_live{0};      // bytes allocated and not freed, as of the last batches
std::atomic<std::int64_t> g_limit{-1};    // -1: MLS_MAX_MEMORY not read yet; 0: no limit
std::atomic<bool> g_reached{false};       // an allocation failed at the limit
std::atomic<bool> g_bad_value{false};     // MLS_MAX_MEMORY did not parse
thread_local std::int64_t t_balance = 0;  // this thread's allocations less its frees, not yet counted

// MLS_MAX_MEMORY without allocating (this runs inside operator new): digits, then an optional
// K, M, G or T (binary multiples, optionally followed by "iB" or "B"); "off" and 0 mean no limit.
std::int64_t read_limit() {
  const char* s = std::getenv(kMemoryLimitVariable);
  if (!s || !*s) return static_cast<std::int64_t>(kDefaultMemoryLimit);
  if ((s[0] == 'o' || s[0] == 'O') && (s[1] == 'f' || s[1] == 'F') && (s[2] == 'f' || s[2] == 'F') && !s[3]) return 0;
  std::uint64_t n = 0;
  const char* p = s;
  for (; *p >= '0' && *p <= '9'; ++p) {
    if (n > (std::uint64_t{1} << 50)) break;
    n = n * 10 + static_cast<std::uint64_t>(*p - '0');
  }
  int shift = 0;
  switch (*p) {
    case 'k':
    case 'K':
      shift = 10;
      ++p;
      break;
    case 'm':
    case 'M':
      shift = 20;
      ++p;
      break;
    case 'g':
    case 'G':
      shift = 30;
      ++p;
      break;
    case 't':
    case 'T':
      shift = 40;
      ++p;
      break;
    default: break;
  }
  if (shift && *p == 'i' && p[1] == 'B')
    p += 2;
  else if (*p == 'B')
    ++p;
  if (p == s || *p || n > (std::uint64_t{1} << (62 - shift))) {
    g_bad_value.store(true, std::memory_order_relaxed);
    return static_cast<std::int64_t>(kDefaultMemoryLimit);
  }
  return static_cast<std::int64_t>(n << shift);
}

std::int64_t limit_now() {
  std::int64_t l = g_limit.load(std::memory_order_relaxed);
  if (l < 0) {
    l = kCounting ? read_limit() : 0;
    g_limit.store(l, std::memory_order_relaxed);
  }
  return l;
}

// Adds this thread's balance to the shared count when a thread ends (a thread that only frees
// would otherwise leave the count too high for good).
struct Flush {
  bool armed = false;
  Flush() = default;
  Flush(const Flush&) = delete;
  Flush& operator=(const Flush&) = delete;
  ~Flush() {
    g_live.fetch_add(t_balance, std::memory_order_relaxed);
    t_balance = 0;
  }
};
thread_local Flush t_flush;

// Counts p (just allocated); past the limit, frees it and fails as the machine would.
void count(void* p) {
  t_balance += static_cast<std::int64_t>(malloc_usable_size(p));
  if (t_balance < kBatch) return;
  t_flush.armed = true;  // constructs it on this thread: its destructor runs at the thread's exit
  const std::int64_t live = g_live.fetch_add(t_balance, std::memory_order_relaxed) + t_balance;
  t_balance = 0;
  const std::int64_t limit = limit_now();
  if (limit > 0 && live > limit) {
    t_balance -= static_cast<std::int64_t>(malloc_usable_size(p));
    std::free(p);
    g_reached.store(true, std::memory_order_relaxed);
    throw std::bad_alloc();
  }
}

void uncount(void* p) {
  t_balance -= static_cast<std::int64_t>(malloc_usable_size(p));
  if (t_balance > -kBatch) return;
  t_flush.armed = true;
  g_live.fetch_add(t_balance, std::memory_order_relaxed);
  t_balance = 0;
}

// [[maybe_unused]]: the sanitizer builds keep their own operator new (see the end of the file).
[[maybe_unused]] void* allocate(std::size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  count(p);
  return p;
}

[[maybe_unused]] void* allocate_aligned(std::size_t n, std::align_val_t al) {
  const auto a = static_cast<std::size_t>(al);
  void* p = nullptr;
  if (posix_memalign(&p, a < sizeof(void*) ? sizeof(void*) : a, n ? n : 1) != 0) throw std::bad_alloc();
  count(p);
  return p;
}

[[maybe_unused]] void release(void* p) noexcept {
  if (!p) return;
  uncount(p);
  std::free(p);
}

}  // namespace

std::size_t memory_limit() { return static_cast<std::size_t>(limit_now()); }

bool memory_limit_reached() { return g_reached.load(std::memory_order_relaxed); }

std::size_t memory_in_use() {
  const std::int64_t live = g_live.load(std::memory_order_relaxed) + t_balance;
  return live > 0 ? static_cast<std::size_t>(live) : 0;
}

void clear_memory_limit_reached() { g_reached.store(false, std::memory_order_relaxed); }

std::string memory_limit_text() {
  const std::size_t l = memory_limit();
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  std::size_t u = 0;
  std::size_t v = l;
  while (u < 4 && v >= 1024 && v % 1024 == 0) {
    v /= 1024;
    ++u;
  }
  return std::to_string(v) + " " + units[u];
}

std::string memory_limit_warning() {
  (void)limit_now();
  if (!g_bad_value.load(std::memory_order_relaxed)) return "";
  return std::string(kMemoryLimitVariable) +
         " must be a number of bytes (with K, M, G or T) or 'off'; the limit stays " + memory_limit_text();
}

}  // namespace mls

#if MLS_COUNT_HEAP
// The replaceable global allocation functions ([new.delete]): every C++ allocation of the
// executable, and of the libraries it links, passes here.
void* operator new(std::size_t n) { return mls::allocate(n); }
void* operator new[](std::size_t n) { return mls::allocate(n); }
void* operator new(std::size_t n, std::align_val_t a) { return mls::allocate_aligned(n, a); }
void* operator new[](std::size_t n, std::align_val_t a) { return mls::allocate_aligned(n, a); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return mls::allocate(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return mls::allocate(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  try {
    return mls::allocate_aligned(n, a);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  try {
    return mls::allocate_aligned(n, a);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { mls::release(p); }
void operator delete[](void* p) noexcept { mls::release(p); }
void operator delete(void* p, std::size_t) noexcept { mls::release(p); }
void operator delete[](void* p, std::size_t) noexcept { mls::release(p); }
void operator delete(void* p, std::align_val_t) noexcept { mls::release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { mls::release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { mls::release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { mls::release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { mls::release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { mls::release(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { mls::release(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { mls::release(p); }
#endif
