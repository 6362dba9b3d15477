// The launch fast path of `kernel[grid](*args)`: argument binding, the
// specialization key, the in-memory cache lookup, argument packing and the
// driver call, all in C++. Python runs only on a cache miss (to compile) and
// for arguments that are neither scalars nor torch tensors (DLPack,
// __cuda_array_interface__, ...), which a Python hook describes.
//
// The key is the specialization itself: Python decodes it into the kernel's
// argument types, constants and `tt.*` attributes, so what is compiled and
// what is looked up cannot disagree. Every run-time leaf is one integer:
//
//   bits 0-3   kind (LeafKind)          bits 12-15  log2 of the divisibility
//   bits 4-11  element type code        bit 16      pointer within 2 GiB
//   bits 20+   4 bits per Python-computed property of the backend

#include "launcher.h"

#include "tessera/NVIDIA/Runtime/Cuda.h"

#include <structmember.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace py = pybind11;
using namespace tessera::api;

namespace tessera::python {
namespace {

enum LeafKind : int64_t {
  kNone = 0, kI1 = 1, kI32 = 2, kI64 = 3, kU64 = 4, kF32 = 5, kPtr = 6,
  kOne = 7, // an integer equal to 1, folded into the kernel as a constant
  // A tensor map (128 bytes, a TMA descriptor the host encoded): passed by
  // value, its bytes copied into the kernel's parameter.
  kTensorMap = 8,
};
constexpr int kDtypeShift = 4, kDivShift = 12, kRangeBit = 16, kNonNegBit = 17, kExtraShift = 20;
constexpr int kMaxExtra = 10;

/// Launch options a call may pass besides the kernel's own parameters. All
/// but `stream` are compile options and so part of the key.
const char *const kOptionNames[] = {"num_warps", "num_stages", "num_ctas", "maxnreg",
                                    "enable_fp_fusion", "debug",
                                    "launch_cooperative_grid", "extern_libs", "stream"};
constexpr int kNumOptions = 9, kStreamOption = 8;

struct Interned {
  PyObject *dtype, *data_ptr, *get_device, *value, *cuda_stream;
  Interned() {
    dtype = PyUnicode_InternFromString("dtype");
    data_ptr = PyUnicode_InternFromString("data_ptr");
    get_device = PyUnicode_InternFromString("get_device");
    value = PyUnicode_InternFromString("value");
    cuda_stream = PyUnicode_InternFromString("cuda_stream");
  }
};
Interned &names() {
  static Interned *n = new Interned();
  return *n;
}

int ctz64(uint64_t v) { return v ? __builtin_ctzll(v) : 64; }

/// Whether `v`'s type is named like a host tensor descriptor of another
/// library ("TensorDescriptor", possibly module-qualified); ours are tuples
/// and never get here.
bool isForeignCandidate(PyObject *v) {
  std::string_view name = Py_TYPE(v)->tp_name;
  std::string_view want = "TensorDescriptor";
  return name.size() >= want.size() && name.substr(name.size() - want.size()) == want;
}

} // namespace

/// One argument slot for cuLaunchKernel: every value gets 8 bytes of its own.
struct Packed {
  static constexpr size_t kInline = 32;
  uint64_t inlineSlots[kInline];
  std::vector<uint64_t> heap;
  size_t count = 0;
  /// Slots holding the address of a by-value parameter larger than 8 bytes
  /// (a tensor map) rather than the value.
  std::vector<size_t> indirect;
  uint64_t *slot() {
    if (count < kInline)
      return &inlineSlots[count++];
    if (heap.empty())
      heap.reserve(256); // pointers into it must stay valid
    if (heap.size() == heap.capacity())
      return nullptr;
    heap.push_back(0);
    ++count;
    return &heap.back();
  }
  /// cuLaunchKernel's argument array: `small` when it holds them all (it has
  /// kInline entries), else `large`. Null without arguments.
  void **params(void **small, std::vector<void *> &large) {
    if (!count)
      return nullptr;
    void **out = small;
    if (count > kInline) {
      large.resize(count);
      out = large.data();
    }
    for (size_t i = 0; i < count; ++i)
      out[i] = i < kInline ? static_cast<void *>(&inlineSlots[i])
                           : static_cast<void *>(&heap[i - kInline]);
    for (size_t i : indirect)
      out[i] = reinterpret_cast<void *>(*static_cast<uint64_t *>(out[i]));
    return out;
  }
};

/// The bound arguments as a Python list (for the slow path and specialize).
static py::list boundList(const BoundArgs &bound) {
  py::list out(bound.size());
  for (size_t i = 0; i < bound.size(); ++i)
    out[i] = py::reinterpret_borrow<py::object>(bound[i]);
  return out;
}

/// Where the error is: "argument 'x'" or "argument 'pair[1]'".
std::string Launcher::argName(size_t param, const std::vector<int> &path) const {
  std::string s = "argument '" + paramNames[param];
  for (int i : path)
    s += "[" + std::to_string(i) + "]";
  return s + "' of " + kernelName;
}

/// The specialization code of one run-time leaf; packs its value when `packed`
/// is given. Returns -1 with a Python exception set on bad input.
int64_t Launcher::leaf(PyObject *v, size_t param, std::vector<int> &path,
                       const SpecConfig &spec, Walk &w) {
  const bool nospec = noSpecialize[param], noalign = nospec || noAlign[param];
  auto divCode = [&](uint64_t value) -> int64_t {
    if (noalign)
      return 0;
    int tz = ctz64(value);
    int best = 0;
    for (int level : spec.divLog2Levels)
      if (level <= tz && level > best)
        best = level;
    return int64_t(best) << kDivShift;
  };
  auto extra = [&](PyObject *obj, int64_t &code) -> bool {
    for (size_t i = 0; i < spec.extra.size(); ++i) {
      PyObject *r = PyObject_CallOneArg(spec.extra[i].ptr(), obj);
      if (!r)
        return false;
      long bits = PyLong_AsLong(r);
      Py_DECREF(r);
      if (bits < 0 || bits > 15) {
        if (!PyErr_Occurred())
          PyErr_Format(PyExc_ValueError,
                       "specialization property %zu returned %ld, not a value in 0..15", i,
                       bits);
        return false;
      }
      code |= int64_t(bits) << (kExtraShift + 4 * i);
    }
    return true;
  };
  auto put = [&](const void *src, size_t n) -> bool {
    if (!w.packed)
      return true;
    uint64_t *s = w.packed->slot();
    if (!s) {
      PyErr_Format(PyExc_ValueError, "%s has more than 288 arguments", kernelName.c_str());
      return false;
    }
    *s = 0;
    std::memcpy(s, src, n);
    return true;
  };

  if (v == Py_None)
    return kNone;
  if (PyBool_Check(v)) {
    uint8_t b = v == Py_True;
    return put(&b, 1) ? int(kI1) : -1;
  }
  if (PyLong_Check(v)) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred())
      return -1;
    int64_t code;
    if (overflow > 0) {
      unsigned long long u = PyLong_AsUnsignedLongLong(v);
      if (PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s: integer %R does not fit in 64 bits",
                     argName(param, path).c_str(), v);
        return -1;
      }
      code = kU64 | divCode(u);
      if (!put(&u, 8))
        return -1;
    } else if (overflow < 0) {
      PyErr_Format(PyExc_ValueError, "%s: integer %R does not fit in 64 bits",
                   argName(param, path).c_str(), v);
      return -1;
    } else if (spec.foldOne && !nospec && x == 1 && path.empty()) {
      code = kOne;
    } else if (x >= INT32_MIN && x <= INT32_MAX) {
      int32_t i = int32_t(x);
      code = kI32 | divCode(uint64_t(x));
      if (!put(&i, 4))
        return -1;
    } else {
      code = kI64 | divCode(uint64_t(x));
      if (!put(&x, 8))
        return -1;
    }
    // A signed integer known to be >= 0 (not u64: read as i64 it is negative).
    if (spec.nonNegative && !nospec && x >= 0 && overflow == 0 && (code & 15) != kOne)
      code |= int64_t(1) << kNonNegBit;
    if ((code & 15) != kOne && !spec.extra.empty() && !nospec && !extra(v, code))
      return -1;
    return code;
  }
  if (PyFloat_Check(v)) {
    float f = float(PyFloat_AS_DOUBLE(v));
    return put(&f, 4) ? int(kF32) : -1;
  }
  // A tensor map: the kernel's by-value parameter gets its 128 bytes; the
  // walk keeps the bytes object alive until the launch.
  if (PyBytes_CheckExact(v) && PyBytes_GET_SIZE(v) == 128) {
    if (w.packed) {
      uint64_t address = reinterpret_cast<uintptr_t>(PyBytes_AS_STRING(v));
      size_t index = w.packed->count;
      if (!put(&address, 8))
        return -1;
      w.packed->indirect.push_back(index);
      w.keepAlive.push_back(py::reinterpret_borrow<py::object>(v));
    }
    return kTensorMap;
  }

  // A tensor: its element type, address, device and (where a property needs
  // it) the bytes it spans.
  long long dtypeCode = 0, device = -1;
  unsigned long long ptr = 0;
  long long nbytes = -1;
  auto &n = names();
  if (tensorType && PyObject_TypeCheck(v, reinterpret_cast<PyTypeObject *>(tensorType.ptr()))) {
    PyObject *dt = PyObject_GetAttr(v, n.dtype);
    if (!dt)
      return -1;
    PyObject *c = PyDict_GetItemWithError(dtypeCodes.ptr(), dt);
    if (!c) {
      if (!PyErr_Occurred())
        PyErr_Format(PyExc_TypeError, "%s: unsupported tensor element type %R",
                     argName(param, path).c_str(), dt);
      Py_DECREF(dt);
      return -1;
    }
    Py_DECREF(dt);
    dtypeCode = PyLong_AsLongLong(c);
    PyObject *p = PyObject_CallMethodNoArgs(v, n.data_ptr);
    if (!p)
      return -1;
    ptr = PyLong_AsUnsignedLongLongMask(p);
    Py_DECREF(p);
    PyObject *d = PyObject_CallMethodNoArgs(v, n.get_device);
    if (!d)
      return -1;
    device = PyLong_AsLongLong(d);
    Py_DECREF(d);
    if (spec.pointerRangeBits) {
      // The bytes of the tensor's storage: torch's API for it differs between
      // versions, so Python answers.
      PyObject *r = PyObject_CallFunction(describe.ptr(), "Os", v, argName(param, path).c_str());
      if (!r)
        return -1;
      unsigned long long p2;
      long long c2, d2;
      bool ok = PyArg_ParseTuple(r, "KLLL", &p2, &c2, &d2, &nbytes);
      Py_DECREF(r);
      if (!ok)
        return -1;
    }
  } else {
    // Anything else goes to Python: DLPack, __cuda_array_interface__, numpy,
    // numbers that are not int/float (numpy scalars come back as int/float).
    PyObject *r = PyObject_CallFunction(describe.ptr(), "Os", v, argName(param, path).c_str());
    if (!r)
      return -1;
    if (PyLong_Check(r) || PyFloat_Check(r) || PyBool_Check(r)) {
      int64_t code = leaf(r, param, path, spec, w);
      Py_DECREF(r);
      return code;
    }
    if (!PyArg_ParseTuple(r, "KLLL", &ptr, &dtypeCode, &device, &nbytes)) {
      Py_DECREF(r);
      return -1;
    }
    Py_DECREF(r);
  }
  if (w.checkDevice) {
    if (device < 0) {
      PyErr_Format(PyExc_ValueError,
                   "%s is in host memory, but the kernel runs on a CUDA device; move it "
                   "with .cuda() (or run everything on the CPU with TESSERA_INTERPRET=1)",
                   argName(param, path).c_str());
      return -1;
    }
    if (w.device < 0) {
      w.device = int(device);
      w.deviceArg = argName(param, path);
    } else if (w.device != device) {
      PyErr_Format(PyExc_ValueError, "%s is on cuda:%lld but %s is on cuda:%d",
                   argName(param, path).c_str(), device, w.deviceArg.c_str(), w.device);
      return -1;
    }
  }
  int64_t code = kPtr | (int64_t(dtypeCode) << kDtypeShift) | divCode(ptr);
  if (spec.pointerRangeBits && nbytes >= 0 && !nospec &&
      nbytes < (int64_t(1) << (spec.pointerRangeBits - 1)))
    code |= int64_t(1) << kRangeBit;
  if (!spec.extra.empty() && !nospec && !extra(v, code))
    return -1;
  if (!put(&ptr, 8))
    return -1;
  return code;
}

/// The key entry of a run-time argument: a leaf code, or for a tuple a tuple
/// of the entries of its elements (nested). New reference; null on error.
PyObject *Launcher::argKey(PyObject *v, size_t param, std::vector<int> &path,
                           const SpecConfig &spec, Walk &w) {
  if (!PyTuple_Check(v) && !PyList_Check(v)) {
    // Another library's object that stands for one of ours (Triton's host
    // TensorDescriptor): Python converts it, the walk goes on with ours. Only
    // objects of a type of that name ask (a string compare, no Python call).
    if (foreignArgument && isForeignCandidate(v)) {
      PyObject *r = PyObject_CallOneArg(foreignArgument.ptr(), v);
      if (!r)
        return nullptr;
      if (r != Py_None) {
        w.keepAlive.push_back(py::reinterpret_steal<py::object>(r));
        return argKey(r, param, path, spec, w);
      }
      Py_DECREF(r);
    }
    int64_t c = leaf(v, param, path, spec, w);
    return c < 0 ? nullptr : PyLong_FromLongLong(c);
  }
  PyObject *seq = PySequence_Fast(v, "");
  if (!seq)
    return nullptr;
  Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
  PyObject *out = PyTuple_New(len);
  for (Py_ssize_t i = 0; out && i < len; ++i) {
    path.push_back(int(i));
    PyObject *k = argKey(PySequence_Fast_GET_ITEM(seq, i), param, path, spec, w);
    path.pop_back();
    if (!k) {
      Py_CLEAR(out);
      break;
    }
    PyTuple_SET_ITEM(out, i, k);
  }
  Py_DECREF(seq);
  return out;
}

/// Binds (args, kwargs) to the parameters: `bound[i]` borrowed, options aside.
bool Launcher::bind(const CallArgs &call, BoundArgs &bound, PyObject **options) {
  const size_t nparams = paramNames.size();
  Py_ssize_t nargs = call.npos;
  if (size_t(nargs) > nparams) {
    PyErr_Format(PyExc_TypeError, "%s() takes %zu arguments but %zd were given",
                 kernelName.c_str(), nparams, nargs);
    return false;
  }
  bound.assign(nparams, nullptr);
  for (Py_ssize_t i = 0; i < nargs; ++i)
    bound[i] = call.args[i];
  for (int i = 0; i < kNumOptions; ++i)
    options[i] = nullptr;
  Py_ssize_t nkw = call.kwnames ? PyTuple_GET_SIZE(call.kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject *key = PyTuple_GET_ITEM(call.kwnames, k), *value = call.args[nargs + k];
    {
      bool found = false;
      for (size_t i = 0; i < nparams && !found; ++i) {
        if (key == paramKeys[i].ptr() ||
            PyUnicode_Compare(key, paramKeys[i].ptr()) == 0) {
          if (bound[i]) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'",
                         kernelName.c_str(), paramNames[i].c_str());
            return false;
          }
          bound[i] = value;
          found = true;
          if (paramOption[i] >= 0)
            options[paramOption[i]] = value;
        }
      }
      for (int o = 0; o < kNumOptions && !found; ++o)
        if (PyUnicode_CompareWithASCIIString(key, kOptionNames[o]) == 0) {
          options[o] = value;
          found = true;
        }
      if (!found) {
        PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument %R",
                     kernelName.c_str(), key);
        return false;
      }
    }
  }
  for (size_t i = 0; i < nparams; ++i)
    if (!bound[i]) {
      if (!defaults[i]) {
        PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'",
                     kernelName.c_str(), paramNames[i].c_str());
        return false;
      }
      bound[i] = defaults[i].ptr();
    }
  return true;
}

/// The specialization key of bound arguments (new reference), packing the
/// run-time arguments into `w.packed` when given.
PyObject *Launcher::makeKey(const BoundArgs &bound, PyObject **options,
                            const SpecConfig &spec, Walk &w) {
  const size_t nparams = bound.size();
  PyObject *key = PyTuple_New(Py_ssize_t(keyLength));
  if (!key)
    return nullptr;
  Py_ssize_t k = 0;
  std::vector<int> path;
  auto fail = [&]() -> PyObject * {
    Py_DECREF(key);
    return nullptr;
  };
  for (size_t i = 0; i < nparams; ++i) {
    PyObject *v = bound[i];
    if (isConstexpr[i]) {
      if (constexprType && Py_TYPE(v) == reinterpret_cast<PyTypeObject *>(constexprType.ptr())) {
        v = PyObject_GetAttr(v, names().value);
        if (!v)
          return fail();
      } else {
        Py_INCREF(v);
      }
      // The type keeps 1 and True apart. Values other than ints, bools,
      // strings and None key by a canonical, type-tagged form from Python
      // (floats by their exact bits, tuples element by element, unhashable
      // values by type and repr).
      PyObject *t = reinterpret_cast<PyObject *>(Py_TYPE(v));
      Py_INCREF(t); // before v may go away
      if (constexprKey && !PyLong_CheckExact(v) && !PyBool_Check(v) && !PyUnicode_CheckExact(v) &&
          v != Py_None) {
        PyObject *canon = PyObject_CallOneArg(constexprKey.ptr(), v);
        Py_DECREF(v);
        if (!canon) {
          Py_DECREF(t);
          return fail();
        }
        v = canon;
      }
      PyTuple_SET_ITEM(key, k++, t);
      PyTuple_SET_ITEM(key, k++, v);
      continue;
    }
    PyObject *entry = argKey(v, i, path, spec, w);
    if (!entry)
      return fail();
    PyTuple_SET_ITEM(key, k++, entry);
  }
  for (int o = 0; o < kStreamOption; ++o) {
    PyObject *v = options[o] ? options[o] : Py_None;
    if (PyDict_Check(v)) {
      // A dict option (extern_libs={name: path}) keys as its sorted (name, value) pairs, the
      // form Options keeps it in.
      PyObject *items = PyDict_Items(v);
      if (!items || PyList_Sort(items) < 0) {
        Py_XDECREF(items);
        return fail();
      }
      v = PyList_AsTuple(items);
      Py_DECREF(items);
      if (!v)
        return fail();
    } else {
      Py_INCREF(v);
    }
    PyTuple_SET_ITEM(key, k++, v);
  }
  // The last entry, the device, is the caller's to set.
  return key;
}

bool Launcher::readGrid(PyObject *grid, const BoundArgs &bound,
                        unsigned dims[3]) {
  PyObject *g = grid;
  PyObject *owned = nullptr;
  if (PyCallable_Check(grid)) {
    PyObject *meta = PyDict_New();
    if (!meta)
      return false;
    for (size_t i = 0; i < bound.size(); ++i)
      if (PyDict_SetItem(meta, paramKeys[i].ptr(), bound[i]) < 0) {
        Py_DECREF(meta);
        return false;
      }
    owned = g = PyObject_CallOneArg(grid, meta);
    Py_DECREF(meta);
    if (!g)
      return false;
  }
  dims[0] = dims[1] = dims[2] = 1;
  bool ok = true;
  auto one = [&](PyObject *x, int i) {
    long long val = PyLong_AsLongLong(x);
    if (val == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      PyErr_Format(PyExc_TypeError, "grid of %s: dimension %d must be an int, got %R",
                   kernelName.c_str(), i, x);
      return false;
    }
    long long limit = i == 0 ? 0x7fffffffLL : 65535;
    if (val < 0 || val > limit) {
      PyErr_Format(PyExc_ValueError, "grid of %s: dimension %d is %lld, outside 0..%lld",
                   kernelName.c_str(), i, val, limit);
      return false;
    }
    dims[i] = unsigned(val);
    return true;
  };
  if (PyLong_Check(g)) {
    ok = one(g, 0);
  } else if (PyTuple_Check(g) || PyList_Check(g)) {
    PyObject *seq = PySequence_Fast(g, "");
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n < 1 || n > 3) {
      PyErr_Format(PyExc_ValueError, "grid of %s must have 1 to 3 dimensions, got %R",
                   kernelName.c_str(), g);
      ok = false;
    }
    for (Py_ssize_t i = 0; ok && i < n; ++i)
      ok = one(PySequence_Fast_GET_ITEM(seq, i), int(i));
    Py_DECREF(seq);
  } else {
    PyErr_Format(PyExc_TypeError,
                 "grid of %s must be an int, a tuple of 1 to 3 ints, or a callable of the "
                 "arguments returning one; got %R",
                 kernelName.c_str(), g);
    ok = false;
  }
  Py_XDECREF(owned);
  return ok;
}

namespace {
/// The profiler session's launch observer (tessera.profiler), or null. Never
/// destroyed: it may outlive the interpreter's teardown of other objects.
py::object &observerSlot() {
  static auto *slot = new py::object();
  return *slot;
}
py::object launchObserver() { return observerSlot(); }
} // namespace

py::object Launcher::run(py::handle grid, const CallArgs &call, bool warmup) {
  if (interpretHook && interpretMode()) {
    py::tuple args(call.npos);
    for (Py_ssize_t i = 0; i < call.npos; ++i)
      args[i] = py::reinterpret_borrow<py::object>(call.args[i]);
    py::dict kwargs;
    Py_ssize_t nkw = call.kwnames ? PyTuple_GET_SIZE(call.kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; ++k)
      kwargs[PyTuple_GET_ITEM(call.kwnames, k)] =
          py::reinterpret_borrow<py::object>(call.args[call.npos + k]);
    return interpretHook(grid, args, kwargs, warmup);
  }
  BoundArgs bound;
  PyObject *options[kNumOptions];
  if (!bind(call, bound, options))
    throw py::error_already_set();
  Packed packed;
  Walk w;
  w.packed = &packed;
  w.checkDevice = true;
  py::object key = py::reinterpret_steal<py::object>(makeKey(bound, options, launchSpec, w));
  if (!key)
    throw py::error_already_set();
  if (w.device < 0) // no tensor argument: the current device
    w.device = currentDevice ? currentDevice().cast<int>() : 0;
  PyObject *dev = PyLong_FromLong(w.device);
  if (!dev)
    throw py::error_already_set();
  PyTuple_SET_ITEM(key.ptr(), keyLength - 1, dev);
  // Every argument, the grid included, is checked before anything is
  // compiled or launched.
  unsigned dims[3] = {1, 1, 1};
  if (!warmup && !readGrid(grid.ptr(), bound, dims))
    throw py::error_already_set();
  PyObject *hit = PyDict_GetItemWithError(cache.ptr(), key.ptr());
  if (!hit && PyErr_Occurred())
    throw py::error_already_set();
  py::object entryObj;
  if (hit) {
    entryObj = py::reinterpret_borrow<py::object>(hit);
  } else {
    py::dict opts;
    for (int o = 0; o < kNumOptions; ++o)
      if (options[o])
        opts[kOptionNames[o]] = py::reinterpret_borrow<py::object>(options[o]);
    entryObj = miss(key, boundList(bound), opts, w.device);
    if (PyDict_SetItem(cache.ptr(), key.ptr(), entryObj.ptr()) < 0)
      throw py::error_already_set();
  }
  if (!lastEntryObj || entryObj.ptr() != lastEntryObj.ptr()) {
    lastEntry = &entryObj.cast<LaunchEntry &>();
    lastEntryObj = entryObj;
  }
  LaunchEntry &entry = *lastEntry;
  for (auto &g : entry.globals) {
    PyObject *cur = PyDict_GetItemWithError(g.dict.ptr(), g.name.ptr());
    if (cur != g.value.ptr()) {
      if (PyErr_Occurred())
        throw py::error_already_set();
      checkGlobals(entry.kernel); // raises when the value really changed
      break;
    }
  }
  if (warmup)
    return entry.kernel;
  if (packed.count != entry.numParams)
    throw std::runtime_error("internal error: " + std::to_string(packed.count) +
                             " arguments packed for " + kernelName + ", whose binary takes " +
                             std::to_string(entry.numParams) + " (a Tessera bug)");
  if (!dims[0] || !dims[1] || !dims[2])
    return entry.kernel;
  uint64_t stream = 0;
  PyObject *s = options[kStreamOption];
  if (s && s != Py_None) {
    PyObject *raw = PyLong_Check(s) ? (Py_INCREF(s), s) : PyObject_GetAttr(s, names().cuda_stream);
    if (!raw)
      throw py::error_already_set();
    stream = PyLong_AsUnsignedLongLongMask(raw);
    Py_DECREF(raw);
    if (PyErr_Occurred())
      throw py::error_already_set();
  } else if (currentStream) {
    PyObject *r = PyObject_CallOneArg(currentStream.ptr(), PyTuple_GET_ITEM(key.ptr(), keyLength - 1));
    if (!r)
      throw py::error_already_set();
    stream = PyLong_AsUnsignedLongLongMask(r);
    Py_DECREF(r);
  }
  // While a profiler session watches launches (tessera.profiler), it times
  // each one and gives the profile buffer of a kernel with scopes:
  // begin(kernel, grid, stream, device, profile bytes) -> (state, address)
  // before the launch, end(state) after it.
  py::object observer = launchObserver();
  py::object observerState;
  uint64_t programs = uint64_t(dims[0]) * dims[1] * dims[2];
  uint64_t profileTotal = entry.launch ? 0 : programs * entry.profileSize;
  uint64_t profileBase = 0;
  py::object profileKeepAlive;
  if (observer) {
    py::tuple r = observer.attr("begin")(entry.kernel, py::make_tuple(dims[0], dims[1], dims[2]), stream,
                                         w.device, profileTotal);
    if (r.size() != 2)
      throw py::type_error("the launch observer's begin() must return (state, address)");
    observerState = r[0];
    profileBase = r[1].cast<uint64_t>();
    if (profileTotal && !profileBase)
      throw std::runtime_error("the launch observer gave no profile buffer for " + kernelName);
  }
  if (entry.launch) {
    py::tuple args(std::count(isConstexpr.begin(), isConstexpr.end(), false));
    size_t n = 0;
    for (size_t i = 0; i < bound.size(); ++i)
      if (!isConstexpr[i])
        args[n++] = py::reinterpret_borrow<py::object>(bound[i]);
    entry.launch(py::make_tuple(dims[0], dims[1], dims[2]), stream, args);
    if (observer)
      observer.attr("end")(observerState);
    return entry.kernel;
  }
  // A kernel with profiling scopes takes its profile buffer after its own
  // arguments: the observer's, or (no session) throwaway memory from the
  // scratch allocator.
  if (profileTotal) {
    if (!profileBase) {
      if (!allocateScratch)
        throw std::runtime_error(kernelName + " has profiling scopes but the launcher has no allocator");
      py::tuple r = allocateScratch(profileTotal, 16, stream, w.device);
      profileKeepAlive = r[0];
      profileBase = r[1].cast<uint64_t>();
    }
    uint64_t *slot = packed.slot();
    if (!slot)
      throw std::runtime_error("too many kernel arguments");
    *slot = profileBase;
  }
  // A kernel with global scratch takes its base last: grid size × bytes per
  // program from the user's allocator, kept alive until the launch is queued.
  py::object scratchKeepAlive;
  if (entry.scratchSize) {
    if (!allocateScratch)
      throw std::runtime_error(kernelName + " needs global scratch but the launcher has no allocator");
    uint64_t total = uint64_t(dims[0]) * dims[1] * dims[2] * entry.scratchSize;
    py::tuple r = allocateScratch(total, entry.scratchAlign, stream, w.device);
    scratchKeepAlive = r[0];
    uint64_t base = r[1].cast<uint64_t>();
    uint64_t *slot = packed.slot();
    if (!slot)
      throw std::runtime_error("too many kernel arguments");
    *slot = base;
  }
  void *inlineParams[Packed::kInline];
  std::vector<void *> heapParams;
  cuda::Status st = cuda::launchKernel(entry.function, entry.context, dims[0], dims[1], dims[2],
                                       entry.block, entry.shared, stream,
                                       packed.params(inlineParams, heapParams));
  if (!st.ok()) {
    raiseCudaError(st.code, st.name, st.message, kernelName);
    throw std::runtime_error("launch of " + kernelName + " failed: " + st.name);
  }
  if (observer)
    observer.attr("end")(observerState);
  return entry.kernel;
}

py::object Launcher::specialize(py::handle args, py::handle kwargs, const SpecConfig &spec) {
  BoundArgs bound;
  PyObject *options[kNumOptions];
  CallFromTuple call(args, kwargs);
  if (!bind(call.args, bound, options))
    throw py::error_already_set();
  Walk w;
  w.device = 0;
  py::object key = py::reinterpret_steal<py::object>(makeKey(bound, options, spec, w));
  if (!key)
    throw py::error_already_set();
  PyTuple_SET_ITEM(key.ptr(), keyLength - 1, PyLong_FromLong(0));
  return py::make_tuple(key, boundList(bound));
}

bool Launcher::interpretMode() {
  const char *e = std::getenv("TESSERA_INTERPRET");
  if (!e)
    return false;
  std::string s(e);
  for (auto &c : s)
    c = char(std::tolower(static_cast<unsigned char>(c)));
  return s == "1" || s == "true" || s == "yes" || s == "on";
}

namespace {
// The DLPack ABI (dlpack.h, v0.8 and later: unversioned capsules named
// "dltensor"), declared here from the public specification.
struct DLDevice {
  int32_t deviceType, deviceId;
};
struct DLDataType {
  uint8_t code, bits;
  uint16_t lanes;
};
struct DLTensor {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape, *strides;
  uint64_t byteOffset;
};
struct DLManagedTensor {
  DLTensor tensor;
  void *managerCtx;
  void (*deleter)(DLManagedTensor *);
};

/// (address, type code, bits, lanes, bytes spanned) of a DLPack capsule. The
/// capsule is only read: the producer keeps ownership (its destructor runs the
/// deleter), and the argument object keeps the memory alive for the launch.
py::tuple dlpackInfo(py::capsule capsule) {
  if (std::strcmp(capsule.name() ? capsule.name() : "", "dltensor") != 0)
    throw py::type_error("expected an unconsumed DLPack capsule named 'dltensor'");
  auto *m = static_cast<DLManagedTensor *>(capsule.get_pointer());
  if (!m)
    throw py::value_error("empty DLPack capsule");
  const DLTensor &t = m->tensor;
  uint64_t itemBytes = (uint64_t(t.dtype.bits) * t.dtype.lanes + 7) / 8;
  uint64_t extent = itemBytes;
  for (int32_t i = 0; i < t.ndim; ++i) {
    if (t.shape[i] == 0) {
      extent = 0;
      break;
    }
  }
  if (extent) {
    int64_t contiguous = 1;
    for (int32_t i = t.ndim - 1; i >= 0; --i) {
      int64_t stride = t.strides ? t.strides[i] : contiguous;
      extent += uint64_t(t.shape[i] - 1) * uint64_t(stride < 0 ? -stride : stride) * itemBytes;
      contiguous *= t.shape[i];
    }
  }
  uint64_t ptr = reinterpret_cast<uint64_t>(t.data) + t.byteOffset;
  return py::make_tuple(ptr, int(t.dtype.code), int(t.dtype.bits), int(t.dtype.lanes), extent);
}
} // namespace

namespace {
// `kernel[grid]` and its call are the hot path: a plain CPython type with
// vectorcall (no tuple or dict is built for the arguments), and a subscript
// slot installed on the JITFunction class (see install_fast_subscript).
struct BoundLaunchObject {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  PyObject *self; // the JITFunction (a Launcher)
  PyObject *grid;
};

PyTypeObject *boundLaunchType = nullptr;

PyObject *boundLaunchCall(PyObject *callable, PyObject *const *args, size_t nargsf,
                          PyObject *kwnames) {
  auto *b = reinterpret_cast<BoundLaunchObject *>(callable);
  try {
    Launcher &l = py::handle(b->self).cast<Launcher &>();
    CallArgs call{args, PyVectorcall_NARGS(nargsf), kwnames};
    return l.run(b->grid, call, false).release().ptr();
  } catch (py::error_already_set &e) {
    e.restore();
  } catch (const py::builtin_exception &e) {
    e.set_error();
  } catch (const std::exception &e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

void boundLaunchDealloc(PyObject *o) {
  auto *b = reinterpret_cast<BoundLaunchObject *>(o);
  Py_XDECREF(b->self);
  Py_XDECREF(b->grid);
  PyTypeObject *tp = Py_TYPE(o);
  tp->tp_free(o);
  Py_DECREF(tp);
}

PyMemberDef boundLaunchMembers[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(BoundLaunchObject, vectorcall), READONLY,
     nullptr},
    {"grid", T_OBJECT, offsetof(BoundLaunchObject, grid), READONLY, "the launch grid"},
    {nullptr, 0, 0, 0, nullptr}};

PyType_Slot boundLaunchSlots[] = {
    {Py_tp_dealloc, reinterpret_cast<void *>(boundLaunchDealloc)},
    {Py_tp_call, reinterpret_cast<void *>(PyVectorcall_Call)},
    {Py_tp_members, boundLaunchMembers},
    {Py_tp_doc, const_cast<char *>("kernel[grid]: call it with the kernel's arguments to launch")},
    {0, nullptr}};

PyType_Spec boundLaunchSpec = {"tessera._C.BoundLaunch", sizeof(BoundLaunchObject), 0,
                               Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
                               boundLaunchSlots};

PyObject *fastSubscript(PyObject *self, PyObject *grid) { return newBoundLaunch(self, grid); }
} // namespace

PyObject *newBoundLaunch(PyObject *self, PyObject *grid) {
  auto *b = PyObject_New(BoundLaunchObject, boundLaunchType);
  if (!b)
    return nullptr;
  b->vectorcall = boundLaunchCall;
  Py_INCREF(self);
  Py_INCREF(grid);
  b->self = self;
  b->grid = grid;
  return reinterpret_cast<PyObject *>(b);
}

CallFromTuple::CallFromTuple(py::handle argsTuple, py::handle kwargsDict) {
  if (!PyTuple_Check(argsTuple.ptr()))
    throw py::type_error("arguments must be a tuple");
  Py_ssize_t n = PyTuple_GET_SIZE(argsTuple.ptr());
  for (Py_ssize_t i = 0; i < n; ++i)
    storage.push_back(PyTuple_GET_ITEM(argsTuple.ptr(), i));
  PyObject *kw = kwargsDict.ptr();
  if (kw && kw != Py_None) {
    if (!PyDict_Check(kw))
      throw py::type_error("keyword arguments must be a dict");
    names = py::reinterpret_steal<py::object>(PyTuple_New(PyDict_GET_SIZE(kw)));
    PyObject *key, *value;
    Py_ssize_t pos = 0, i = 0;
    while (PyDict_Next(kw, &pos, &key, &value)) {
      Py_INCREF(key);
      PyTuple_SET_ITEM(names.ptr(), i++, key);
      storage.push_back(value);
    }
  }
  args = {storage.data(), n, names ? names.ptr() : nullptr};
}

void registerLauncher(py::module_ &m) {
  boundLaunchType = reinterpret_cast<PyTypeObject *>(PyType_FromSpec(&boundLaunchSpec));
  if (!boundLaunchType)
    throw py::error_already_set();
  m.attr("BoundLaunch") = py::handle(reinterpret_cast<PyObject *>(boundLaunchType));
  m.def(
      "install_fast_subscript",
      [](py::type cls) {
        auto *tp = reinterpret_cast<PyTypeObject *>(cls.ptr());
        if (!PyType_IsSubtype(tp, reinterpret_cast<PyTypeObject *>(
                                      py::type::of<Launcher>().ptr())) ||
            !tp->tp_as_mapping)
          throw py::type_error("install_fast_subscript expects a subclass of Launcher");
        tp->tp_as_mapping->mp_subscript = fastSubscript;
        PyType_Modified(tp);
      },
      "Makes `cls[...]` instances' subscript go straight to the launcher (no Python frame).");
  m.def("dlpack_info", &dlpackInfo, py::arg("capsule"),
        "(address, DLPack type code, bits, lanes, bytes spanned) of a 'dltensor' capsule");
  py::class_<SpecConfig>(m, "SpecConfig")
      .def(py::init([](std::vector<int> divLog2Levels, bool foldOne, int pointerRangeBits,
                       std::vector<py::object> extra, bool nonNegative) {
             if (extra.size() > kMaxExtra)
               throw py::value_error("at most 10 Python-computed specialization properties");
             for (int l : divLog2Levels)
               if (l < 1 || l > 15)
                 throw py::value_error("divisibility levels are log2 values in 1..15");
             if (pointerRangeBits < 0 || pointerRangeBits > 63)
               throw py::value_error("pointer range bits must be in 0..63");
             SpecConfig c;
             c.divLog2Levels = std::move(divLog2Levels);
             c.foldOne = foldOne;
             c.pointerRangeBits = pointerRangeBits;
             c.nonNegative = nonNegative;
             c.extra = std::move(extra);
             return c;
           }),
           py::arg("div_log2_levels"), py::arg("fold_one"), py::arg("pointer_range_bits"),
           py::arg("extra"), py::arg("non_negative") = false);

  m.def(
      "set_launch_observer",
      [](py::object observer) {
        if (!observer.is_none() &&
            (!py::hasattr(observer, "begin") || !py::hasattr(observer, "end")))
          throw py::type_error("a launch observer needs begin(kernel, grid, stream, device, "
                               "profile_bytes) -> (state, address) and end(state)");
        observerSlot() = observer.is_none() ? py::object() : observer;
      },
      py::arg("observer"),
      "Set (None: clear) the object told of every kernel launch (tessera.profiler's session).");
  py::class_<LaunchEntry>(m, "LaunchEntry")
      .def(py::init([](uint64_t function, uint64_t context, unsigned block, unsigned shared,
                       size_t numParams, py::object kernel, py::list globals,
                       uint64_t scratchSize, uint64_t scratchAlign, py::object launch,
                       uint64_t profileSize) {
             if (!launch.is_none() && function != 0)
               throw py::value_error("a LaunchEntry launches either a native function or "
                                     "through launch=, not both");
             if (scratchAlign == 0 || (scratchAlign & (scratchAlign - 1)))
               throw py::value_error("scratch alignment must be a power of two");
             LaunchEntry e;
             e.scratchSize = scratchSize;
             e.scratchAlign = scratchAlign;
             e.profileSize = profileSize;
             e.function = function;
             e.context = context;
             e.block = block;
             e.shared = shared;
             e.numParams = numParams;
             e.kernel = std::move(kernel);
             if (!launch.is_none())
               e.launch = std::move(launch);
             for (auto g : globals) {
               auto t = g.cast<py::tuple>();
               e.globals.push_back({t[0], t[1], t[2]});
             }
             return e;
           }),
           py::arg("function"), py::arg("context"), py::arg("block"), py::arg("shared"),
           py::arg("num_params"), py::arg("kernel"), py::arg("globals"),
           py::arg("scratch_size") = 0, py::arg("scratch_align") = 1,
           py::arg("launch") = py::none(), py::arg("profile_size") = 0)
      .def_readonly("kernel", &LaunchEntry::kernel)
      .def_readonly("num_params", &LaunchEntry::numParams);

  py::class_<Launcher>(m, "Launcher", py::dynamic_attr())
      .def(py::init<>())
      .def("_configure_launcher",
           [](Launcher &l, std::string kernelName, std::vector<std::string> params,
              std::vector<bool> isConstexpr, py::list defaults, py::object noDefault,
              std::vector<bool> noSpecialize, std::vector<bool> noAlign, SpecConfig spec,
              py::object constexprType, py::object describe, py::object miss,
              py::object checkGlobals, py::object raiseCudaError, py::object interpretHook) {
             size_t n = params.size();
             if (isConstexpr.size() != n || defaults.size() != n || noSpecialize.size() != n ||
                 noAlign.size() != n)
               throw py::value_error("launcher configuration lists differ in length");
             l.kernelName = std::move(kernelName);
             l.paramNames = params;
             l.paramKeys.clear();
             l.paramOption.clear();
             for (auto &p : params) {
               PyObject *s = PyUnicode_FromString(p.c_str());
               if (!s)
                 throw py::error_already_set();
               PyUnicode_InternInPlace(&s);
               l.paramKeys.push_back(py::reinterpret_steal<py::object>(s));
               // A parameter named like a compile option (num_stages, num_warps …)
               // is also that option, as in Triton; `stream` stays a parameter.
               int option = -1;
               for (int o = 0; o < kNumOptions; ++o)
                 if (o != kStreamOption && p == kOptionNames[o])
                   option = o;
               l.paramOption.push_back(option);
             }
             l.isConstexpr = isConstexpr;
             l.defaults.clear();
             for (auto d : defaults)
               l.defaults.push_back(d.is(noDefault) ? py::object() : py::reinterpret_borrow<py::object>(d));
             l.noSpecialize = noSpecialize;
             l.noAlign = noAlign;
             l.launchSpec = std::move(spec);
             l.keyLength = 0;
             for (bool c : isConstexpr)
               l.keyLength += c ? 2 : 1;
             l.keyLength += kStreamOption + 1;
             l.constexprType = constexprType;
             l.describe = describe;
             l.miss = miss;
             l.checkGlobals = checkGlobals;
             l.raiseCudaError = raiseCudaError;
             l.interpretHook = interpretHook;
             l.cache = py::dict();
             l.lastEntryObj = py::object();
             l.lastEntry = nullptr;
           })
      .def("_set_scratch_allocator",
           [](Launcher &l, py::object allocate) { l.allocateScratch = allocate; })
      .def("_set_constexpr_key", [](Launcher &l, py::object fn) { l.constexprKey = fn; })
      .def("_set_foreign_argument", [](Launcher &l, py::object fn) { l.foreignArgument = fn; })
      .def("_set_torch",
           [](Launcher &l, py::object tensorType, py::dict dtypeCodes, py::object currentStream,
              py::object currentDevice) {
             l.tensorType = tensorType;
             l.dtypeCodes = dtypeCodes;
             l.currentStream = currentStream;
             l.currentDevice = currentDevice;
           })
      .def("__getitem__",
           [](py::object self, py::object grid) {
             return py::reinterpret_steal<py::object>(newBoundLaunch(self.ptr(), grid.ptr()));
           })
      .def(
          "_launch",
          [](Launcher &l, py::handle grid, py::handle args, py::handle kwargs, bool warmup) {
            CallFromTuple call(args, kwargs);
            return l.run(grid, call.args, warmup);
          },
          py::arg("grid"), py::arg("args"), py::arg("kwargs"), py::arg("warmup") = false)
      .def("_specialize", &Launcher::specialize)
      .def_property_readonly("_launch_cache", [](Launcher &l) { return l.cache; })
      .def("_clear_launch_cache", [](Launcher &l) {
        l.cache = py::dict();
        l.lastEntryObj = py::object();
        l.lastEntry = nullptr;
      });

  m.attr("LEAF_LAYOUT") = py::dict(
      py::arg("none") = int(kNone), py::arg("i1") = int(kI1), py::arg("i32") = int(kI32),
      py::arg("i64") = int(kI64), py::arg("u64") = int(kU64), py::arg("f32") = int(kF32),
      py::arg("ptr") = int(kPtr), py::arg("one") = int(kOne),
      py::arg("tensor_map") = int(kTensorMap), py::arg("dtype_shift") = kDtypeShift,
      py::arg("div_shift") = kDivShift, py::arg("range_bit") = kRangeBit,
      py::arg("nonneg_bit") = kNonNegBit,
      py::arg("extra_shift") = kExtraShift, py::arg("key_options") = kStreamOption);
}

} // namespace tessera::python
