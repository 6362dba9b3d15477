// tessera._C: Python bindings of libtessera's plain C++ API.
// Includes only tessera/API headers: never MLIR or LLVM.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>

#include "tessera/NVIDIA/Runtime/Cuda.h"
#include "tessera/API/Tessera.h"
#include "tessera/NVIDIA/Runtime/Cuda.h"
#include "launcher.h"

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
  py::class_<StageResult>(m, "StageResult")
      .def_readonly("ok", &StageResult::ok)
      .def_readonly("output", &StageResult::output)
      .def_readonly("diagnostics", &StageResult::diagnostics)
      .def("__bool__", [](const StageResult &r) { return r.ok; });
  m.def("translate_to_llvmir", &translateToLLVMIR, py::arg("text"),
        py::arg("buffer_name") = "<string>", py::call_guard<py::gil_scoped_release>(),
        "Translate a module in the LLVM dialect to LLVM IR text.");
  py::class_<CompileResult>(m, "CompileResult")
      .def_readonly("ok", &CompileResult::ok)
      .def_readonly("diagnostics", &CompileResult::diagnostics)
      .def_readonly("failed_stage", &CompileResult::failedStage)
      .def_property_readonly("artifacts",
                             [](const CompileResult &r) {
                               py::dict d;
                               for (auto &[k, v] : r.artifacts)
                                 d[py::str(k)] = py::str(v);
                               return d;
                             })
      .def_readonly("metadata", &CompileResult::metadata)
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
  m.def("registered_backends", &registeredBackends,
        "The C++ backends of this build (target prefixes).");
  m.def("backend_artifacts", &backendArtifacts, py::arg("name"),
        "The artifacts the C++ backend `name` produces after LLVM IR.");

  auto cu = m.def_submodule("cuda", "The CUDA driver, opened with dlopen");
  py::class_<cuda::Status>(cu, "Status")
      .def_readonly("code", &cuda::Status::code)
      .def_readonly("name", &cuda::Status::name)
      .def_readonly("message", &cuda::Status::message)
      .def("__bool__", &cuda::Status::ok);
  py::class_<cuda::KernelInfo>(cu, "KernelInfo")
      .def_readonly("module", &cuda::KernelInfo::module)
      .def_readonly("function", &cuda::KernelInfo::function)
      .def_readonly("context", &cuda::KernelInfo::context)
      .def_readonly("num_registers", &cuda::KernelInfo::numRegisters)
      .def_readonly("num_spills", &cuda::KernelInfo::numSpills)
      .def_readonly("max_threads_per_block", &cuda::KernelInfo::maxThreadsPerBlock)
      .def_readonly("static_shared_bytes", &cuda::KernelInfo::staticSharedBytes);
  cu.def("available", [] {
    cuda::Status s;
    bool ok = cuda::available(s);
    return py::make_tuple(ok, s);
  });
  cu.def("device_count", &cuda::deviceCount);
  cu.def("compute_capability", [](int device) {
    int cc = 0;
    cuda::Status s = cuda::computeCapability(device, cc);
    return py::make_tuple(s, cc);
  });
  cu.def("device_attribute", [](int device, int attribute) {
    int value = 0;
    cuda::Status s = cuda::deviceAttribute(device, attribute, value);
    return py::make_tuple(s, value);
  });
  cu.def("load_kernel", [](py::bytes image, const std::string &name, int device, int shared) {
    cuda::KernelInfo info;
    std::string img = image;
    cuda::Status s;
    {
      py::gil_scoped_release release;
      s = cuda::loadKernel(img, name, device, shared, info);
    }
    return py::make_tuple(s, info);
  });
  cu.def("unload_module", &cuda::unloadModule);
  cu.def("launch", [](uint64_t fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                      unsigned bz, unsigned shared, uint64_t stream, py::bytes args,
                      const std::vector<uint32_t> &offsets) {
    std::string a = args;
    return cuda::launch(fn, gx, gy, gz, bx, by, bz, shared, stream, a, offsets);
  });
  cu.def("synchronize", &cuda::synchronize, py::call_guard<py::gil_scoped_release>());

  cu.def(
      "bench_launch",
      [](uint64_t fn, uint64_t context, uint64_t stream, unsigned block, int nparams,
         int iterations) {
        // The driver's floor: `iterations` launches of `fn` (grid 1) with every
        // argument zero, timed in C++. Returns microseconds per launch.
        std::vector<uint64_t> zeros(static_cast<size_t>(nparams), 0);
        std::vector<void *> params(static_cast<size_t>(nparams));
        for (int i = 0; i < nparams; ++i)
          params[size_t(i)] = &zeros[size_t(i)];
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < iterations; ++i) {
          cuda::Status s = cuda::launchKernel(fn, context, 1, 1, 1, block, 0, stream,
                                              nparams ? params.data() : nullptr);
          if (!s.ok())
            throw std::runtime_error(s.name + ": " + s.message);
        }
        auto t1 = std::chrono::steady_clock::now();
        return std::chrono::duration<double, std::micro>(t1 - t0).count() / iterations;
      },
      py::call_guard<py::gil_scoped_release>());
  cu.def("pointer_device", &cuda::pointerDevice,
         "The device ordinal owning a device pointer, or -1.");
  tessera::python::registerLauncher(m);

  m.def("run_passes", &runPasses, py::arg("text"), py::arg("pipeline"),
        py::arg("buffer_name") = "<string>",
        py::call_guard<py::gil_scoped_release>(),
        "Parse, verify and run a textual pass pipeline; returns a ParseResult "
        "whose module is the transformed IR.");
}
