// The launch fast path of tessera._C (see launcher.cpp).
#ifndef TESSERA_PYTHON_LAUNCHER_H
#define TESSERA_PYTHON_LAUNCHER_H

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::python {
namespace py = pybind11;

/// What a backend specializes run-time arguments on (declared in Python by
/// tessera.backends.specialization; this is its native form).
struct SpecConfig {
  std::vector<int> divLog2Levels; // e.g. {4}: divisibility by 16 or nothing
  bool foldOne = true;            // integers equal to 1 become constants
  int pointerRangeBits = 0;       // 32: mark tensors spanning < 2 GiB
  bool nonNegative = false;       // mark integers >= 0 (tt.non_negative)
  std::vector<py::object> extra;  // Python properties: value -> 0..15
};

/// A compiled kernel loaded on one device, ready to launch.
struct LaunchEntry {
  struct Global {
    py::object dict, name, value;
  };
  uint64_t function = 0, context = 0;
  unsigned block = 0, shared = 0;
  size_t numParams = 0;
  uint64_t scratchSize = 0, scratchAlign = 1; // global scratch per program
  uint64_t profileSize = 0; // profile buffer bytes per program (tessera.profiler scopes)
  py::object kernel; // the CompiledKernel returned to the caller
  std::vector<Global> globals;
  /// A backend without a native launch (function == 0) launches through this
  /// callable: launch(grid (x, y, z), stream, args), args being the bound
  /// values of the non-constexpr parameters in order.
  py::object launch;
};

/// The bound arguments of one call (borrowed), one per parameter.
using BoundArgs = std::vector<PyObject *>;

/// Call arguments in vectorcall layout: positional first, then the values of
/// the keywords named in `kwnames` (null when none).
struct CallArgs {
  PyObject *const *args;
  Py_ssize_t npos;
  PyObject *kwnames;
};

/// CallArgs for an (args tuple, kwargs dict) pair; borrows their items.
struct CallFromTuple {
  CallFromTuple(py::handle argsTuple, py::handle kwargsDict);
  std::vector<PyObject *> storage;
  py::object names;
  CallArgs args{nullptr, 0, nullptr};
};

class Launcher {
public:
  struct Walk {
    struct Packed *packed = nullptr;
    bool checkDevice = false;
    int device = -1;
    std::string deviceArg;
    std::vector<py::object> keepAlive; // by-value parameters packed by address
  };

  py::object run(py::handle grid, const CallArgs &call, bool warmup);
  py::object specialize(py::handle args, py::handle kwargs, const SpecConfig &spec);
  static bool interpretMode();

  std::string kernelName;
  std::vector<std::string> paramNames;
  std::vector<py::object> paramKeys; // interned names
  std::vector<int> paramOption;      // the launch option a parameter also sets, or -1
  std::vector<bool> isConstexpr, noSpecialize, noAlign;
  std::vector<py::object> defaults; // null: required
  size_t keyLength = 0;
  SpecConfig launchSpec;
  py::object constexprType, describe, miss, checkGlobals, raiseCudaError, interpretHook;
  py::object constexprKey; // value -> canonical hashable form (non-trivial constexprs)
  py::object foreignArgument; // value -> our stand-in for another library's object, or None
  py::object allocateScratch; // (size, alignment, stream) -> (keep-alive, address)
  py::object tensorType, currentStream, currentDevice;
  py::dict dtypeCodes, cache;
  // The entry of the last launch: launching one kernel repeatedly skips
  // pybind's cast. The reference keeps the object (so its address) alive.
  py::object lastEntryObj;
  LaunchEntry *lastEntry = nullptr;

private:
  std::string argName(size_t param, const std::vector<int> &path) const;
  int64_t leaf(PyObject *v, size_t param, std::vector<int> &path, const SpecConfig &spec,
               Walk &w);
  PyObject *argKey(PyObject *v, size_t param, std::vector<int> &path, const SpecConfig &spec,
                   Walk &w);
  bool bind(const CallArgs &call, BoundArgs &bound, PyObject **options);
  PyObject *makeKey(const BoundArgs &bound, PyObject **options,
                    const SpecConfig &spec, Walk &w);
  bool readGrid(PyObject *grid, const BoundArgs &bound, unsigned dims[3]);
};

/// `kernel[grid]`: a new BoundLaunch of the launcher `self` and the grid.
PyObject *newBoundLaunch(PyObject *self, PyObject *grid);

void registerLauncher(py::module_ &m);

} // namespace tessera::python

#endif
