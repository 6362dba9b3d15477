// tessera._C: Python bindings of libtessera's plain C++ API.
// Includes only tessera/API headers: never MLIR or LLVM.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "tessera/API/Tessera.h"

namespace py = pybind11;
using namespace tessera::api;

PYBIND11_MODULE(_C, m) {
  m.doc() = "Tessera's compiler core (libtessera) bindings";

  py::class_<Diagnostic>(m, "Diagnostic")
      .def_readonly("severity", &Diagnostic::severity)
      .def_readonly("file", &Diagnostic::file)
      .def_readonly("line", &Diagnostic::line)
      .def_readonly("column", &Diagnostic::column)
      .def_readonly("message", &Diagnostic::message)
      .def_readonly("notes", &Diagnostic::notes)
      .def("__str__", &Diagnostic::str)
      .def("__repr__", [](const Diagnostic &d) {
        return "<Diagnostic " + d.str() + ">";
      });

  py::class_<ParseResult>(m, "ParseResult")
      .def_readonly("ok", &ParseResult::ok)
      .def_readonly("module", &ParseResult::module)
      .def_readonly("diagnostics", &ParseResult::diagnostics)
      .def("__bool__", [](const ParseResult &r) { return r.ok; });

  m.def("version", &version, "Tessera's version");
  m.def("llvm_version", &llvmVersion, "The LLVM/MLIR version of the core");
  m.def("parse_mlir", &parseAndVerify, py::arg("text"),
        py::arg("buffer_name") = "<string>", py::arg("print_module") = true,
        py::call_guard<py::gil_scoped_release>(),
        "Parse and verify MLIR text; returns a ParseResult with the "
        "diagnostics (file, line, column, message) and the printed module.");
  m.def("run_passes", &runPasses, py::arg("text"), py::arg("pipeline"),
        py::arg("buffer_name") = "<string>",
        py::call_guard<py::gil_scoped_release>(),
        "Parse, verify and run a textual pass pipeline; returns a ParseResult "
        "whose module is the transformed IR.");
}
