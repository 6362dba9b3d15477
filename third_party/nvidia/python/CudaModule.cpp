// tessera._C.cuda: the CUDA driver (third_party/nvidia/lib/Runtime), bound for
// the NVIDIA backend's Python glue (python/tessera/backends/nvidia.py) and the
// benchmarks. Part of the extension; includes only the backend's plain C++ API.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <stdexcept>

#include "tessera/NVIDIA/Runtime/Cuda.h"

namespace py = pybind11;
using namespace tessera::api;

namespace tessera::python {

void registerCudaModule(py::module_ &m) {
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
  cu.def("encode_tensor_map",
         [](int dataType, uint64_t address, const std::vector<uint64_t> &dims,
            const std::vector<uint64_t> &strideBytes, const std::vector<unsigned> &box,
            int swizzle) {
           std::array<uint8_t, 128> map{};
           cuda::Status s =
               cuda::encodeTensorMap(dataType, address, dims, strideBytes, box, swizzle, map);
           return py::make_tuple(s, py::bytes(reinterpret_cast<const char *>(map.data()), 128));
         });

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
}

} // namespace tessera::python
