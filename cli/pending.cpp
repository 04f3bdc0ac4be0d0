// pending.cpp — TEMPORARY during bring-up; replaced by diff.cpp, explain.cpp.
#include <cstdio>
#include "commands.hpp"
namespace mls {
int cmd_diff(const Args&) { std::fputs("diff: not built yet\n", stderr); return 70; }
int cmd_explain(const Args&) { std::fputs("explain: not built yet\n", stderr); return 70; }
}
