// tessera._C: Python bindings of libtessera's plain C++ API.
// Includes only tessera/API headers: never MLIR or LLVM.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>


#include "tessera/API/Tessera.h"
#include "launcher.h"

namespace tessera::python {
/// tessera._C.cuda: the NVIDIA backend's driver binding
/// (third_party/nvidia/python/CudaModule.cpp).
void registerCudaModule(pybind11::module_ &m);
void registerHipModule(pybind11::module_ &m);
} // namespace tessera::python

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
  py::class_<CompileResult>(m, "CompileResult")
      .def_readonly("ok", &CompileResult::ok)
      .def_readonly("diagnostics", &CompileResult::diagnostics)
      .def_readonly("failed_stage", &CompileResult::failedStage)
      .def_property_readonly("artifacts",
                             [](const CompileResult &r) {
                               py::dict d;
                               // Binary artifacts (a code object) hold NUL bytes: bytes.
                               for (auto &[k, v] : r.artifacts) {
                                 if (v.find('\0') != std::string::npos)
                                   d[py::str(k)] = py::bytes(v);
                                 else
                                   d[py::str(k)] = py::str(v);
                               }
                               return d;
                             })
      .def_readonly("metadata", &CompileResult::metadata)
      .def_readonly("text_metadata", &CompileResult::textMetadata)
      .def("__bool__", [](const CompileResult &r) { return r.ok; });
  m.def(
      "compile",
      [](const std::string &text, const std::string &target,
         const std::vector<std::pair<std::string, std::string>> &stages,
         const std::vector<std::string> &keep, const std::map<std::string, std::string> &options,
         const std::string &bufferName) {
        CompileRequest request;
        request.text = text;
        request.target = target;
        for (auto &[name, pipeline] : stages)
          request.stages.push_back({name, pipeline});
        request.keep = keep;
        request.options = options;
        request.bufferName = bufferName;
        py::gil_scoped_release release;
        return compile(request);
      },
      py::arg("text"), py::arg("target"), py::arg("stages"), py::arg("keep"),
      py::arg("options") = std::map<std::string, std::string>{},
      py::arg("buffer_name") = "<string>",
      "Compile MLIR text for target '<backend>:<arch>': run the (name, pass pipeline) stages in "
      "one MLIRContext and return the artifacts named in keep (stage names, 'llir', the "
      "backend's artifacts) and the module's integer attributes as metadata.");
  m.def(
      "kernel_stages",
      [](const std::string &target, int numWarps, int numStages, int numCtas, bool coalesce, bool pipeline,
         bool vectorize, bool tmaAllCopies, bool profileScopes, const std::string &profileMetric,
         int64_t profileBufferBytes) {
        KernelOptions o;
        o.numWarps = numWarps;
        o.numStages = numStages;
        o.numCtas = numCtas;
        o.coalesce = coalesce;
        o.pipeline = pipeline;
        o.vectorize = vectorize;
        o.tmaAllCopies = tmaAllCopies;
        o.profileScopes = profileScopes;
        o.profileMetric = profileMetric;
        o.profileBufferBytes = profileBufferBytes;
        std::string error;
        std::vector<Stage> stages = kernelStages(target, o, error);
        if (stages.empty())
          throw py::value_error(error);
        std::vector<std::pair<std::string, std::string>> out;
        for (auto &s : stages)
          out.push_back({s.name, s.pipeline});
        return out;
      },
      py::arg("target"), py::arg("num_warps") = 4, py::arg("num_stages") = 3, py::arg("num_ctas") = 1,
      py::arg("coalesce") = true, py::arg("pipeline") = true, py::arg("vectorize") = true,
      py::arg("tma_all_copies") = false, py::arg("profile_scopes") = false, py::arg("profile_metric") = "cycle",
      py::arg("profile_buffer_bytes") = 0,
      "The (name, pass pipeline) stages, TTIR to the LLVM dialect, a kernel compiles with for target "
      "'<backend>:<arch>' (tessera::api::kernelStages).");
  m.def("registered_backends", &registeredBackends,
        "The C++ backends of this build (target prefixes).");
  m.def("backend_artifacts", &backendArtifacts, py::arg("name"),
        "The artifacts the C++ backend `name` produces after LLVM IR.");

  tessera::python::registerCudaModule(m);
  tessera::python::registerHipModule(m);
  tessera::python::registerLauncher(m);

  m.def("kernel_effects", &kernelEffects, py::arg("text"), py::arg("buffer_name") = "<string>",
        py::call_guard<py::gil_scoped_release>(),
        "Parse and verify TTIR/TTGIR; the ParseResult's module is the kernel effects analysis as "
        "JSON (per kernel, each pointer argument's effect and its causes).");
  m.def("run_passes", &runPasses, py::arg("text"), py::arg("pipeline"),
        py::arg("buffer_name") = "<string>",
        py::call_guard<py::gil_scoped_release>(),
        "Parse, verify and run a textual pass pipeline; returns a ParseResult "
        "whose module is the transformed IR.");
}
