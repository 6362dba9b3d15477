"""Tessera's Python package: setuptools drives the project's CMake/Ninja build.

    pip install --no-build-isolation .               # build and install (no network needed)
    python3 -m build --wheel --no-isolation          # a wheel under dist/

The wheel holds the `tessera` package, the native core `tessera/libtessera.so` (LLVM and MLIR
linked in statically), the extension `tessera/_C` (found next to it through an $ORIGIN rpath) and
`tessera/_bin/tessera-opt`, which the `tessera-opt` console command runs.

Two native parts, built separately:
  * the core (libtessera, tessera-opt) needs LLVM/MLIR 22: it is built in TESSERA_BUILD_DIR
    (default: ./build, the tree `make build` uses; configured by `make configure` when new);
    TESSERA_PREBUILT_LIB and TESSERA_PREBUILT_OPT name already-built files instead (the GPU
    machine, which has no LLVM, packs them from this machine);
  * the extension needs only pybind11 and the Python it is built for: it is built for the
    Python running this script, in its own folder under the core's build directory
    (TESSERA_CMAKE_ARGS: extra CMake arguments for it, e.g. -DTESSERA_WARNINGS_AS_ERRORS=ON).
Metadata lives in pyproject.toml; the version in python/tessera/_version.py.
"""
import glob
import os
import shutil
import subprocess
import sys
import sysconfig

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = os.path.dirname(os.path.abspath(__file__))


def _run(cmd, **kw):
    print("tessera build:", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, **kw)


def _core():
    """(libtessera.so, tessera-opt): prebuilt when TESSERA_PREBUILT_LIB is set, else built."""
    lib = os.environ.get("TESSERA_PREBUILT_LIB")
    if lib:
        opt = os.environ.get("TESSERA_PREBUILT_OPT")
        for what, path in (("TESSERA_PREBUILT_LIB", lib), ("TESSERA_PREBUILT_OPT", opt)):
            if not path or not os.path.isfile(path):
                sys.exit(f"tessera build: {what}={path!r} is not a file (TESSERA_PREBUILT_LIB needs "
                         f"TESSERA_PREBUILT_OPT beside it)")
        return os.path.abspath(lib), os.path.abspath(opt)
    build = os.path.abspath(os.environ.get("TESSERA_BUILD_DIR", os.path.join(ROOT, "build")))
    if not os.path.isfile(os.path.join(build, "build.ninja")):
        # The Makefile holds the one configure command (compilers, lit, warnings policy).
        _run(["make", "-C", ROOT, "configure", f"BUILD={build}"])
    _run(["ninja", "-C", build, "tessera", "tessera-opt"])
    return os.path.join(build, "lib", "libtessera.so"), os.path.join(build, "bin", "tessera-opt")


def _extension(lib):
    """Builds tessera._C for this Python against `lib`; returns the folder holding it."""
    tag = sysconfig.get_config_var("SOABI") or f"py{sys.version_info[0]}{sys.version_info[1]}"
    core_build = os.environ.get("TESSERA_BUILD_DIR", os.path.join(ROOT, "build"))
    build = os.path.abspath(os.environ.get("TESSERA_PYTHON_BUILD_DIR") or os.path.join(core_build, f"python-{tag}"))
    out = os.path.join(build, "package")
    args = ["cmake", "-G", "Ninja", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
            "-DTESSERA_BUILD_CORE=OFF", f"-DTESSERA_PREBUILT_LIB={lib}",
            f"-DPython3_EXECUTABLE={sys.executable}", f"-DTESSERA_PYTHON_OUTPUT_DIR={out}"]
    # Extra configure arguments for the extension (CI: -DTESSERA_WARNINGS_AS_ERRORS=ON).
    args += os.environ.get("TESSERA_CMAKE_ARGS", "").split()
    try:  # pybind11 from pip carries its CMake package; Debian's is found by CMake itself
        import pybind11
        args.append(f"-Dpybind11_DIR={pybind11.get_cmake_dir()}")
    except ImportError:
        pass
    _run(args, stdout=subprocess.DEVNULL)
    _run(["ninja", "-C", build])
    return out


def _copy(src, dst, strip):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    if os.path.exists(dst):
        os.remove(dst)
    shutil.copy2(os.path.realpath(src), dst)  # the file, never a link into the build tree
    if strip and shutil.which("strip"):
        subprocess.run(["strip", "--strip-unneeded", dst], check=True)


class BuildPyWithNative(build_py):
    """build_py, then the native parts copied into the package: _C, libtessera.so, _bin/tessera-opt.
    An editable install (pip install -e) uses the checkout's python/tessera, where `make build`
    puts the extension, so it builds nothing native here."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        lib, opt = _core()
        ext_dir = _extension(lib)
        pkg = os.path.join(self.build_lib, "tessera")
        strip = os.environ.get("TESSERA_WHEEL_STRIP", "1") != "0"
        exts = glob.glob(os.path.join(ext_dir, "_C*.so"))
        if len(exts) != 1:
            sys.exit(f"tessera build: expected one tessera._C in {ext_dir}, found {exts}")
        _copy(exts[0], os.path.join(pkg, os.path.basename(exts[0])), strip)
        _copy(lib, os.path.join(pkg, "libtessera.so"), strip)
        _copy(opt, os.path.join(pkg, "_bin", "tessera-opt"), strip)


class BinaryDistribution(Distribution):
    """The wheel carries native code: tag it for this Python and platform."""

    def has_ext_modules(self):
        return True


def _version():
    scope = {}
    with open(os.path.join(ROOT, "python", "tessera", "_version.py")) as f:
        exec(f.read(), scope)
    return scope["__version__"]


os.makedirs(os.path.join(ROOT, "build", "setuptools"), exist_ok=True)
setup(
    version=_version(),
    package_dir={"": "python"},
    packages=find_packages("python", include=["tessera", "tessera.*"]),
    # The native files are copied by build_py from the build tree, never picked up from the
    # checkout (python/tessera holds development links into build/).
    include_package_data=False,
    cmdclass={"build_py": BuildPyWithNative},
    distclass=BinaryDistribution,
    # setuptools' scratch space under build/, apart from the CMake tree's build/lib.
    options={"build": {"build_base": os.path.join(ROOT, "build", "setuptools")},
             "egg_info": {"egg_base": os.path.join(ROOT, "build", "setuptools")}},
)
