// core_options.cpp — the options every command-line front end (and the LSP server) gives the
// session core. Its own file so that targets linking one front end alone (the LSP fuzz target
// links cli/lsp.cpp without main.cpp) get it too.
#include "commands.hpp"

namespace mls {

Core::Options core_options() {
  Core::Options o;
  o.conventions_command = "`mls conventions`";
  return o;
}

}  // namespace mls
