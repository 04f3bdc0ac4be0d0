// pending.cpp — TEMPORARY during bring-up; replaced by repl.cpp.
#include <cstdio>
#include "commands.hpp"
namespace mls {
int cmd_repl(const Args&) { std::fputs("repl: not built yet\n", stderr); return 70; }
}
