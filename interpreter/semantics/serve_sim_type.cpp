// serve_sim_type.cpp — the type rule of `serve_sim`: a configuration record with exactly the
// simulation's inputs, each of the right kind; the result is a record of dimensionless fields.
#include "serve_sim_type.hpp"

namespace mls::servesim {

TypeP type_rule(NativeCheck& c) {
  return config_record_rule(c, "serve_sim", kInputs, kOutputs,
                            "serving_sim() in stdlib/serving_sim.mls builds a complete configuration");
}

}  // namespace mls::servesim
