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

A shared cache beside it: TESSERA_CACHE_REDIS=redis://[:password@]host[:port][/db] (or
unix:///path/to/socket[?db=N]) names a Redis server that machines share. Entries there are the
same bytes as the disk's (checksummed, one SET each: readers see a whole entry or none; an
invalid one is deleted and recompiled, never loaded). Lookups go to the disk first, then to
Redis (a Redis hit is also written to the disk); new entries go to both. When the server cannot
be reached or stops answering, Tessera logs it once, compiles locally and leaves Redis alone for
TESSERA_CACHE_REDIS_RETRY seconds (default 30); nothing fails because of it.
TESSERA_CACHE_REDIS_TIMEOUT (seconds, default 2) bounds each exchange with it.
"""

import ast
import functools
import hashlib
import json
import logging
import os
import socket
import stat
import struct
import tempfile
import threading
import time
import types
import urllib.parse

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
            return decode_entry(data, key)
        except _DECODE_ERRORS as e:
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

    def put(self, key, asm, meta):
        """Store an entry atomically. Failures to write are reported, never raised."""
        data = encode_entry(key, asm, meta)
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


def decode_entry(data, key):
    """(asm, meta) of an entry's bytes; ValueError (or KeyError, TypeError, struct.error,
    UnicodeDecodeError) when they are not a whole, valid entry for `key`."""
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


def encode_entry(key, asm, meta):
    """The bytes of an entry: magic, SHA-256 of the rest, a JSON header (key, stages, metadata)
    and the stages' contents."""
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
    return struct.pack("<8s32s", MAGIC, hashlib.sha256(body).digest()) + body


_DECODE_ERRORS = (ValueError, KeyError, TypeError, struct.error, UnicodeDecodeError)


# ------------------------------------------------------------------ the shared cache (Redis)

def redact(url):
    """`url` without the password (or user) it may carry."""
    u = urllib.parse.urlsplit(url)
    if u.username is None and u.password is None:
        return url
    host = u.hostname or ""
    if u.port:
        host += f":{u.port}"
    return urllib.parse.urlunsplit((u.scheme, "***@" + host, u.path, u.query, u.fragment))


class RedisError(Exception):
    """An error reply from the Redis server, or a reply Tessera cannot read."""


class RedisConnection:
    """A minimal Redis client (RESP2 over TCP or a unix socket): what the shared cache needs, with
    no client library. Every exchange is bounded by `timeout` seconds; OSError when the server is
    unreachable or goes away, RedisError for an error reply."""

    def __init__(self, url, timeout=2.0):
        u = urllib.parse.urlparse(url)
        self.url = redact(url)  # (what messages show: never the password)
        self.timeout = timeout
        self.db = 0
        self.username = urllib.parse.unquote(u.username) if u.username else None
        self.password = urllib.parse.unquote(u.password) if u.password else None
        try:
            if u.scheme in ("redis", ""):
                self.address = (u.hostname or "127.0.0.1", u.port or 6379)
                if u.path and u.path.strip("/"):
                    self.db = int(u.path.strip("/"))
            elif u.scheme == "unix":
                self.address = u.path
                q = urllib.parse.parse_qs(u.query)
                if "db" in q:
                    self.db = int(q["db"][0])
            else:
                raise ValueError("not a redis:// or unix:// URL")
        except ValueError as e:
            raise ValueError(f"TESSERA_CACHE_REDIS: {self.url!r}: {e}") from None
        self.sock = None
        self.buf = bytearray()
        self.lock = threading.Lock()  # one exchange at a time: threads share the connection
        self.pid = os.getpid()  # a forked child must not share the socket

    def _connect(self):
        if isinstance(self.address, str):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(self.timeout)
            try:
                sock.connect(self.address)
            except OSError:
                sock.close()
                raise
        else:  # (IPv4 or IPv6, whichever the name resolves to)
            sock = socket.create_connection(self.address, timeout=self.timeout)
        self.sock, self.buf = sock, bytearray()
        try:
            if self.password is not None:
                auth = [self.username.encode()] if self.username else []
                self._call(b"AUTH", *auth, self.password.encode())
            if self.db:
                self._call(b"SELECT", str(self.db).encode())
        except BaseException:
            self.close()  # a late reply to AUTH/SELECT must never be read as another's
            raise

    def close(self):
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass
        self.sock, self.buf = None, bytearray()

    def command(self, *args):
        """Sends one command and returns its reply (bytes, int, None or a list)."""
        with self.lock:
            try:
                if self.sock is None:
                    self._connect()
                return self._call(*args)
            except (OSError, RedisError, ValueError):
                self.close()  # a half-read reply must not be taken for the next one's
                raise

    def _call(self, *args):
        parts = [b"*%d\r\n" % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            parts.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.sock.sendall(b"".join(parts))
        return self._reply()

    def _line(self):
        while True:
            i = self.buf.find(b"\r\n")
            if i >= 0:
                break
            more = self.sock.recv(1 << 16)
            if not more:
                raise ConnectionError("the Redis server closed the connection")
            self.buf += more
        line = bytes(self.buf[:i])
        del self.buf[:i + 2]
        return line

    def _exact(self, n):
        while len(self.buf) < n + 2:
            more = self.sock.recv(max(1 << 16, n + 2 - len(self.buf)))
            if not more:
                raise ConnectionError("the Redis server closed the connection")
            self.buf += more
        data = bytes(self.buf[:n])
        del self.buf[:n + 2]
        return data

    def _reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest
        if kind == b"-":
            raise RedisError(rest.decode(errors="replace"))
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            return None if n < 0 else self._exact(n)
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self._reply() for _ in range(n)]
        raise RedisError(f"unreadable reply {line[:40]!r}")


class RedisCache:
    """Kernel cache entries in a Redis server (TESSERA_CACHE_REDIS), under "tessera:<key>"."""

    PREFIX = b"tessera:"

    def __init__(self, url, timeout=None, retry=None):
        self.url = redact(url)
        timeout = _env_float("TESSERA_CACHE_REDIS_TIMEOUT", 2.0) if timeout is None else timeout
        self.retry = _env_float("TESSERA_CACHE_REDIS_RETRY", 30.0) if retry is None else retry
        self.conn = RedisConnection(url, timeout)
        self.down_until = 0.0

    def _name(self, key):
        return self.PREFIX + key.encode()

    def _run(self, *args):
        """The reply, or None after reporting an unreachable or failing server (then left alone
        for `retry` seconds)."""
        if time.monotonic() < self.down_until:
            return None
        try:
            return self.conn.command(*args)
        except (OSError, RedisError, ValueError) as e:
            log.warning("tessera cache: the shared cache %s is not usable (%s); compiling locally and "
                        "not asking it again for %g s", self.url, e, self.retry)
            self.down_until = time.monotonic() + self.retry
            return None

    def get(self, key):
        data = self._run(b"GET", self._name(key))
        if not isinstance(data, bytes):
            return None
        try:
            return decode_entry(data, key)
        except _DECODE_ERRORS as e:
            log.warning("tessera cache: discarding invalid entry %s in %s (%s); recompiling", key, self.url, e)
            self._run(b"DEL", self._name(key))
            return None

    def put(self, key, asm, meta):
        self._run(b"SET", self._name(key), encode_entry(key, asm, meta))


class LayeredCache:
    """The disk cache, then the shared one: a shared hit is copied to the disk; entries are stored
    in both. `last_source` says where the last hit came from ("disk" or "shared")."""

    def __init__(self, local, shared):
        self.local, self.shared = local, shared
        self.last_source = None

    def get(self, key):
        hit = self.local.get(key) if self.local is not None else None
        if hit is not None:
            self.last_source = "disk"
            return hit
        hit = self.shared.get(key)
        if hit is not None:
            self.last_source = "shared"
            if self.local is not None:
                self.local.put(key, *hit)
        return hit

    def put(self, key, asm, meta):
        if self.local is not None:
            self.local.put(key, asm, meta)
        self.shared.put(key, asm, meta)


def _env_float(name, default):
    raw = os.environ.get(name, "")
    if not raw:
        return default
    try:
        v = float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number of seconds, got {raw!r}") from None
    if v < 0:
        raise ValueError(f"{name} must not be negative, got {raw!r}")
    return v


_SHARED = {}  # url -> RedisCache (one connection per process and server)


def shared():
    """The RedisCache of TESSERA_CACHE_REDIS (read at each call), or None when unset."""
    url = os.environ.get("TESSERA_CACHE_REDIS", "")
    if not url:
        return None
    c = _SHARED.get(url)
    if c is None or c.conn.pid != os.getpid():  # (a forked child opens its own connection)
        c = _SHARED[url] = RedisCache(url)
    return c


def default():
    """The cache to use (read from the environment at each call): the DiskCache of
    TESSERA_CACHE_DIR, layered over the shared RedisCache when TESSERA_CACHE_REDIS is set; None
    when both are off."""
    d = cache_dir()
    disk = DiskCache(d) if d else None
    remote = shared()
    if remote is None:
        return disk
    return LayeredCache(disk, remote)


__all__ = ["DiskCache", "LayeredCache", "RedisCache", "RedisConnection", "RedisError", "build_key", "cache_dir",
           "decode_entry", "default", "dependencies", "encode_entry", "kernel_key", "shared"]
