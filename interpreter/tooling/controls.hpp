// controls.hpp — what a front end holds around the work it asks of the facade: Ctrl-C as an
// error (`InterruptScope`, runtime/interrupt) and the large stack every phase runs on
// (`run_on_pipeline_stack`, semantics/stack). Front ends include this header, not those layers:
// the facade decides which controls of the layers below are theirs to use. The limits a front end
// checks on its command line before a run come with RunOptions (kMaxUncertaintySamples, core.hpp).
#pragma once

#include "interpreter/runtime/interrupt.hpp"
#include "interpreter/semantics/stack.hpp"
