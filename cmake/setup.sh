#!/usr/bin/env bash
# setup.sh — install what is missing (Debian 12, as root), then configure and build mls.
#   cmake/setup.sh              release build in build/ (warnings are errors)
#   cmake/setup.sh --sanitize   AddressSanitizer + UBSan build in build-asan/
#   cmake/setup.sh --fuzz       libFuzzer target (clang) in build-fuzz/ (docs/fuzzing.md)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake g++ make python3 tao-pegtl-dev libfmt-dev libboost-dev doctest-dev libedit-dev
          libbenchmark-dev tmux clang clang-format libclang-rt-14-dev nlohmann-json3-dev
          pkg-config librsvg2-dev  # librsvg: `mls plot --out X.png` rasterises the chart's SVG
          chromium  # chromium: the report/browser test opens `mls report` pages headless
          # The Python module (python/, issue #35) and its tests, for Debian's python3.
          python3-dev pybind11-dev python3-pandas python3-pytest python3-nbclient python3-nbformat
          python3-ipykernel python3-pip python3-setuptools python3-wheel python3-venv)  # pip install .
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm (with node): the editor grammar test (tests/check_grammar.py) tokenizes with vscode-textmate.
# Debian's package only if no npm is there already (a NodeSource node ships its own).
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

jobs=$(nproc 2>/dev/null || echo 2)
if [ "${1:-}" = "--fuzz" ]; then
  cxx=$(command -v clang++-14 || command -v clang++)
  CXX="$cxx" cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMLS_FUZZ=ON -DMLS_BENCH=OFF >/dev/null
  cmake --build build-fuzz -j"$jobs"
elif [ "${1:-}" = "--sanitize" ]; then
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMLS_SANITIZE=ON -DMLS_WERROR=ON -DMLS_BENCH=OFF >/dev/null
  cmake --build build-asan -j"$jobs"
else
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DMLS_WERROR=ON >/dev/null
  cmake --build build -j"$jobs"
  # The grammar test's npm packages, pinned, in the build directory (never in the repository).
  if [ ! -d build/npm/node_modules/vscode-textmate ] || [ ! -d build/npm/node_modules/vscode-oniguruma ]; then
    npm install --silent --no-audit --no-fund --prefix build/npm vscode-textmate@9.3.2 vscode-oniguruma@2.0.1 >/dev/null ||
      echo "setup: npm install failed; the editors/grammar test will skip (MLS_REQUIRE_NPM=1 fails it)" >&2
  fi
fi
