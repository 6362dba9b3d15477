"""The on-disk kernel cache.

Entries are content-addressed: the key hashes Tessera's build (the build ids of libtessera and
tessera._C, and the sources of the Python compiler), the kernel's source and the sources of the
@jit functions it calls, the constexpr globals they read, the specialization (argument types,
constants, `tt.*` attributes), the compile options, the target, and the backend's part
(Backend.cache_key: its class, its toolchain's versions, e.g. the assembler's, and the code of
its stage functions).

Each entry is one file, written to a temporary name in the same directory and renamed into
place, so readers see either nothing or a whole entry; several processes compiling the same
kernel at once each write a complete file and the last rename wins. The file carries a SHA-256
of its contents; an entry that is truncated or corrupted is reported, removed and recompiled,
never loaded.

TESSERA_CACHE_DIR chooses the directory (default: $XDG_CACHE_HOME/tessera or ~/.cache/tessera);
TESSERA_CACHE_DISABLE=1 turns the disk cache off.
"""

import ast
import functools
import hashlib
import json
import logging
import os
import stat
import struct
import tempfile
import time
import types

from .. import _core, backends
from ..language import core
from .jit import JITFunction

log = logging.getLogger("tessera.cache")

MAGIC = b"TSRKC001"
_HEADER = struct.Struct("<8s32sQ")  # magic, sha256 of the rest, header length


def cache_dir():
    """The cache directory, or None when the disk cache is disabled."""
    if os.environ.get("TESSERA_CACHE_DISABLE", "0").lower() in ("1", "true", "yes", "on"):
        return None
    d = os.environ.get("TESSERA_CACHE_DIR")
    if d is not None:
        return d or None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tessera")


# ------------------------------------------------------------------ keys

def _elf_build_id(path):
    """The GNU build id of an ELF file (hex), or a hash of its contents when it has none."""
    try:
        with open(path, "rb") as f:
            data = f.read(64)
            if data[:4] != b"\x7fELF" or data[4] != 2:
                raise ValueError
            e_phoff, = struct.unpack_from("<Q", data, 0x20)
            e_phentsize, e_phnum = struct.unpack_from("<HH", data, 0x36)
            f.seek(e_phoff)
            phdrs = f.read(e_phentsize * e_phnum)
            for i in range(e_phnum):
                p_type, _, p_offset, _, _, p_filesz = struct.unpack_from("<IIQQQQ", phdrs, i * e_phentsize)
                if p_type != 4:  # PT_NOTE
                    continue
                f.seek(p_offset)
                notes = f.read(p_filesz)
                pos = 0
                while pos + 12 <= len(notes):
                    namesz, descsz, ntype = struct.unpack_from("<III", notes, pos)
                    name_end = pos + 12 + ((namesz + 3) & ~3)
                    if ntype == 3 and notes[pos + 12:pos + 12 + namesz].rstrip(b"\0") == b"GNU":
                        return notes[name_end:name_end + descsz].hex()
                    pos = name_end + ((descsz + 3) & ~3)
    except (OSError, ValueError, struct.error):
        pass
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


@functools.lru_cache(maxsize=None)
def build_key():
    """What identifies this build of Tessera: native build ids and the Python compiler's sources."""
    h = hashlib.sha256()
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    native = _core._native()
    for lib in (native.__file__, os.path.join(pkg, "libtessera.so")):
        if os.path.exists(lib):
            h.update(_elf_build_id(os.path.realpath(lib)).encode())
    h.update(native.version().encode())
    for root, dirs, files in os.walk(pkg):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(root, name)
                h.update(os.path.relpath(path, pkg).encode())
                with open(path, "rb") as f:
                    h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def _resolve(fn, node):
    """The object an ast Name / Attribute chain refers to in fn's scope, or a sentinel."""
    if isinstance(node, ast.Name):
        code = fn.__code__
        if fn.__closure__ and node.id in code.co_freevars:
            try:
                return fn.__closure__[code.co_freevars.index(node.id)].cell_contents
            except ValueError:
                return _UNRESOLVED
        return fn.__globals__.get(node.id, _UNRESOLVED)
    if isinstance(node, ast.Attribute):
        base = _resolve(fn, node.value)
        if isinstance(base, (types.ModuleType, type)):
            return getattr(base, node.attr, _UNRESOLVED)
    return _UNRESOLVED


_UNRESOLVED = object()


def dependencies(jit_fn):
    """(hash, scopes) of a kernel's sources and what they read: the source of every @jit function
    reachable from it, and the values of the constexpr globals they name. `scopes` maps
    (module, function name) to that function's globals."""
    h = hashlib.sha256()
    scopes = {}
    seen = set()

    def visit(f):
        if id(f) in seen:
            return
        seen.add(id(f))
        scopes[(f.fn.__module__, f.__name__)] = f.fn.__globals__
        # The file and first line too: compiled code carries source locations.
        h.update(f"{f.fn.__module__}.{f.__qualname__} noinline={f.noinline} "
                 f"at {f.filename}:{f.starting_line}\n".encode())
        h.update(f.src.encode())
        for node in ast.walk(f.parse()):
            if not isinstance(node, (ast.Name, ast.Attribute)) or not isinstance(node.ctx, ast.Load):
                continue
            v = _resolve(f.fn, node)
            if isinstance(v, JITFunction):
                h.update(f"call {ast.unparse(node)}\n".encode())
                visit(v)
            elif isinstance(v, core.constexpr):
                h.update(f"const {ast.unparse(node)}={v.value!r}\n".encode())
            elif isinstance(v, core.dtype):
                h.update(f"dtype {ast.unparse(node)}={v!r}\n".encode())
            elif isinstance(v, (bool, int, float, str)):
                h.update(f"global {ast.unparse(node)}={v!r}\n".encode())
    visit(jit_fn)
    return h.hexdigest(), scopes


def tool_versions(backend):
    """The versions of outside tools (assembler, linker) the binaries of the backend registered as
    `backend` depend on."""
    return backends.get(backend).toolchain_key()


def kernel_key(jit_fn, arg_types, constexprs, attrs, target, options, stages=True):
    """The disk cache key (hex) of one compilation, and the scopes of the functions it reads.
    `options` are the backend's Options (or a dict of them); `stages` False: TTIR only."""
    deps, scopes = dependencies(jit_fn)
    for v in constexprs.values():  # a @jit function passed as a constexpr is compiled in
        if isinstance(v, JITFunction):
            d, s = dependencies(v)
            deps = hashlib.sha256((deps + d).encode()).hexdigest()
            scopes.update(s)
    backend, arch = backends.for_target(target)
    options = backend.parse_options(options)
    parts = {
        "build": build_key(),
        "kernel": deps,
        "types": sorted((k, repr(v)) for k, v in arg_types.items()),
        "constexprs": sorted((k, type(v).__name__, repr(v)) for k, v in constexprs.items()),
        "attrs": sorted((k, repr(v)) for k, v in attrs.items()),
        "options": sorted((k, repr(v)) for k, v in options.as_dict().items()),
        "target": target,
        "backend": backend.cache_key(options) if stages else "ttir",
        "device_tensor_maps": bool(stages and backend.device_tensor_maps(arch)),
    }
    text = json.dumps(parts, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest(), scopes


# ------------------------------------------------------------------ entries

def _json_safe(v):
    if isinstance(v, dict):
        return {str(k): _json_safe(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_json_safe(x) for x in v]
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return repr(v)


class DiskCache:
    """One cache directory of compiled kernels."""

    def __init__(self, directory):
        self.directory = directory

    def path(self, key):
        return os.path.join(self.directory, key[:2], key + ".tsk")

    def get(self, key):
        """(asm, meta) of an entry, or None when absent or invalid (an invalid entry is removed)."""
        path = self.path(key)
        try:
            # O_NONBLOCK: a FIFO (or a device) where an entry should be must not block the
            # compiling process; only a regular file is read.
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        except FileNotFoundError:
            return None
        except OSError as e:
            log.warning("tessera cache: cannot read %s (%s); recompiling", path, e)
            return None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                os.close(fd)
                log.warning("tessera cache: %s is not a regular file; removing it and recompiling", path)
                self._remove(path)
                return None
            with os.fdopen(fd, "rb") as f:
                data = f.read()
        except OSError as e:
            log.warning("tessera cache: cannot read %s (%s); recompiling", path, e)
            return None
        try:
            return self._decode(data, key)
        except (ValueError, KeyError, TypeError, struct.error, UnicodeDecodeError) as e:
            log.warning("tessera cache: discarding invalid entry %s (%s); recompiling", path, e)
            self._remove(path)
            return None

    @staticmethod
    def _remove(path):
        try:
            os.unlink(path)
        except OSError:
            pass

    # A temporary file older than this was left by a writer that died before its rename.
    STALE_TMP_SECONDS = 3600

    @classmethod
    def _remove_stale_tmp(cls, directory):
        now = time.time()
        try:
            names = os.listdir(directory)
        except OSError:
            return
        for name in names:
            if name.startswith(".") and name.endswith(".tmp"):
                path = os.path.join(directory, name)
                try:
                    if now - os.lstat(path).st_mtime > cls.STALE_TMP_SECONDS:
                        os.unlink(path)
                except OSError:
                    pass

    @staticmethod
    def _decode(data, key):
        if len(data) < _HEADER.size:
            raise ValueError(f"truncated: {len(data)} bytes")
        magic, digest, hlen = _HEADER.unpack_from(data)
        if magic != MAGIC:
            raise ValueError("not a Tessera cache entry of this version")
        body = data[_HEADER.size - 8:]
        if hashlib.sha256(body).digest() != digest:
            raise ValueError("checksum mismatch (truncated or corrupted)")
        pos = _HEADER.size
        header = json.loads(data[pos:pos + hlen].decode())
        pos += hlen
        if header["key"] != key:
            raise ValueError("entry is for another key")
        asm = {}
        for stage, kind, size in header["asm"]:
            blob = data[pos:pos + size]
            if len(blob) != size:
                raise ValueError("truncated stage " + stage)
            asm[stage] = blob if kind == "bytes" else blob.decode()
            pos += size
        if pos != len(data):
            raise ValueError("trailing bytes")
        return asm, header["meta"]

    def put(self, key, asm, meta):
        """Store an entry atomically. Failures to write are reported, never raised."""
        stages, blobs = [], []
        for stage, v in asm.items():
            if isinstance(v, (bytes, bytearray)):
                stages.append([stage, "bytes", len(v)])
                blobs.append(bytes(v))
            else:
                b = v.encode()
                stages.append([stage, "text", len(b)])
                blobs.append(b)
        header = json.dumps({"key": key, "asm": stages, "meta": _json_safe(meta)}, sort_keys=True).encode()
        body = struct.pack("<Q", len(header)) + header + b"".join(blobs)
        data = struct.pack("<8s32s", MAGIC, hashlib.sha256(body).digest()) + body
        path = self.path(key)
        tmp = None
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{key[:16]}.", suffix=".tmp", dir=os.path.dirname(path))
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
            tmp = None
            self._remove_stale_tmp(os.path.dirname(path))
        except OSError as e:
            log.warning("tessera cache: cannot write %s (%s)", path, e)
        finally:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass


def default():
    """The DiskCache of TESSERA_CACHE_DIR (read at each call), or None when disabled."""
    d = cache_dir()
    return DiskCache(d) if d else None


__all__ = ["DiskCache", "build_key", "cache_dir", "default", "dependencies", "kernel_key"]
