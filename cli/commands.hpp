// commands.hpp — parsed command-line arguments and the subcommands beside `run` and `check`.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "interpreter/tooling/driver.hpp"

namespace mls {

struct Args {
  bool help = false, version = false;
  std::string format = "text";
  std::vector<std::pair<std::string, std::string>> uses, sets;
  std::vector<std::string> presets;
  std::string out;
  std::string where;                                           // list --where EXPR
  std::size_t max_output = static_cast<std::size_t>(1) << 32;  // --max-output BYTES (4 GiB)
  RunOptions run;
  std::vector<std::string> positional;  // command first
};

int emit(const Args& a, const std::string& text);
int io_error(const std::string& message);
int report(Session& s);
Selection selection_of(const Args& a);

int cmd_diff(const Args& a);         // diff.cpp
int cmd_explain(const Args& a);      // explain.cpp
int cmd_conventions(const Args& a);  // listing.cpp
int cmd_presets(const Args& a);      // listing.cpp
int cmd_repl(const Args& a);         // repl.cpp
int cmd_validate(const Args& a);     // validate.cpp
int cmd_list(const Args& a);         // list.cpp

}  // namespace mls
