// tessera._C.hip: the HIP runtime (third_party/amd/lib/Runtime), bound for the
// AMD backend's Python glue (python/tessera/backends/amd.py). Part of the
// extension; includes only the backend's plain C++ API.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "tessera/AMD/Runtime/Hip.h"

namespace py = pybind11;
using namespace tessera::api;

namespace tessera::python {

void registerHipModule(py::module_ &m) {
  auto h = m.def_submodule("hip", "The HIP runtime, opened with dlopen");
  py::class_<hip::Status>(h, "Status")
      .def_readonly("code", &hip::Status::code)
      .def_readonly("name", &hip::Status::name)
      .def_readonly("message", &hip::Status::message)
      .def("__bool__", &hip::Status::ok);
  py::class_<hip::KernelInfo>(h, "KernelInfo")
      .def_readonly("module", &hip::KernelInfo::module)
      .def_readonly("function", &hip::KernelInfo::function);
  h.def("available", [] {
    hip::Status s;
    bool ok = hip::available(s);
    return py::make_tuple(ok, s);
  });
  h.def("device_count", &hip::deviceCount);
  h.def("load_kernel", [](py::bytes image, const std::string &name, int device) {
    hip::KernelInfo info;
    std::string img = image;
    hip::Status s;
    {
      py::gil_scoped_release release;
      s = hip::loadKernel(img, name, device, info);
    }
    return py::make_tuple(s, info);
  });
  h.def("unload_module", &hip::unloadModule);
  h.def(
      "pack_arguments",
      [](const std::vector<std::pair<py::bytes, uint32_t>> &args) {
        std::vector<hip::Argument> in;
        for (auto &[bytes, align] : args)
          in.push_back({std::string(bytes), align});
        std::vector<uint32_t> offsets;
        std::string out = hip::packArguments(in, offsets);
        return py::make_tuple(py::bytes(out), offsets);
      },
      "The kernarg bytes of [(argument bytes, alignment), ...] and each argument's offset.");
  h.def("launch",
        [](uint64_t fn, int device, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
           unsigned shared, uint64_t stream, py::bytes kernargs) {
          std::string a = kernargs;
          py::gil_scoped_release release;
          return hip::launch(fn, device, gx, gy, gz, bx, shared, stream, a);
        });
  h.def("synchronize", &hip::synchronize, py::call_guard<py::gil_scoped_release>());
}

} // namespace tessera::python
