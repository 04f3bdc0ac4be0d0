// splitmix.hpp — the seeded random source of the simulation natives (kv_alloc_sim, serve_sim).
// splitmix64 (Steele et al. 2014): tiny, well mixed and identical on every platform, unlike the
// std:: distributions, whose algorithms the standard leaves to the library. Both simulators draw
// from this one generator so a seed means the same stream everywhere.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>

namespace mls {

struct SplitMix64 {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double exponential() { return -std::log(1.0 - uniform()); }                 // mean 1
  // Standard normal by Box-Muller; 1 - u keeps the logarithm's argument in (0, 1].
  double normal() {
    const double u1 = 1.0 - uniform();
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }
};

}  // namespace mls
