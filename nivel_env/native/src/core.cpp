// Placeholder for the native core: a pybind11 module with the name and shape the build,
// the backend switch and their tests expect.  The real core replaces this file.
#include <pybind11/pybind11.h>

namespace py = pybind11;

PYBIND11_MODULE(_core, m) {
    m.doc() = "nivel_env's native core (placeholder)";
    m.attr("ABI") = 1;
    m.def("add", [](long a, long b) { return a + b; }, "a + b: proves the module was built");
}
