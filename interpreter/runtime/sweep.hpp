// sweep.hpp — sweeps and searches (used by run.cpp): points are evaluated on a thread pool,
// compiled to binary64 register code when the sweep is large (fastpath.hpp), and streamed as
// rows in enumeration order with their regime notes; a search keeps its best rows.
#pragma once

#include <vector>

#include "run.hpp"

namespace mls {

// Throws unless `v` can be printed in `d`: a finite number in that unit, of a known dimension.
void check_displayable(const Program& p, const Value& v, const TypeP& type, const Display& d, Span at);

// Runs the sweep or search statement `s`, streaming its table to `sink`. Asserts that fail
// inside it are appended to `asserts` (reported after everything else).
void run_sweep(Program& p, Checker& ck, const Config& cfg, const RunOptions& opt, const Stmt& s, RunSink& sink,
               std::vector<AssertOutcome>& asserts);

}  // namespace mls
