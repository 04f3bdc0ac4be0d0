// binding.hpp — what the extension's translation units share (issue #35): diagnostics as plain
// data, raised as the Python exception mls.Error (python/mls/_errors.py picks the subclass), and
// every call into mls made with the GIL released while Ctrl-C is watched.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "diag_data.hpp"
#include "interpreter/semantics/selection.hpp"

namespace mls {

namespace binding {

namespace py = pybind11;

[[nodiscard]] py::dict to_dict(const DiagData& d);
[[nodiscard]] py::list to_list(const std::vector<DiagData>& ds);

// Raises the mls.Error subclass for `f` (run.interrupted: KeyboardInterrupt). Needs the GIL.
[[noreturn]] void raise_failure(const Failure& f);
// A Python exception of the module (mls._errors): UsageError for a wrong argument value.
[[noreturn]] void raise_usage(const std::string& message);

// Runs `work` with the GIL released. On the main thread it runs on a worker while the main thread
// checks for signals every 50 ms: a Ctrl-C (KeyboardInterrupt, or whatever Python's SIGINT
// handler raises) stops every mls evaluation in the process (Core::interrupt is process-wide, as
// Ctrl-C is for the command line), and the exception is raised here once `work` has returned.
// On another thread `work` runs in place: Python delivers signals to the main thread only.
void call_released(const std::function<void()>& work);

// A Python mapping or sequence of pairs as NAME=VALUE pairs in order (`use`, `set`); values that
// are not strings are written as Python's str() of them (numbers: `512`, `0.9`).
[[nodiscard]] std::vector<std::pair<std::string, std::string>> pairs_of(const py::object& o);
[[nodiscard]] Selection selection_of(const std::optional<std::string>& preset, const py::object& use,
                                     const py::object& set);

// The second translation unit's part of the module (answers.cpp): diff, validate, list, the
// REPL session.
void bind_answers(py::module_& m);

}  // namespace binding
}  // namespace mls
