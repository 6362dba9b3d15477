"""The tessera package imports without cycles: its import graph (every import statement, at module
level or inside functions) is acyclic, and every module imports alone in a fresh interpreter."""

import ast
import concurrent.futures
import os
import subprocess
import sys

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE = "tessera"


def _modules():
    """{module name: path} of every .py file of the package."""
    root = os.path.join(PYTHON_DIR, PACKAGE)
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for f in sorted(filenames):
            if not f.endswith(".py"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), PYTHON_DIR)[:-3].split(os.sep)
            if rel[-1] == "__init__":
                rel = rel[:-1]
            out[".".join(rel)] = os.path.join(dirpath, f)
    return out


def _resolve(module, is_package, level, name):
    """The absolute name of a (possibly relative) import in `module`."""
    if level == 0:
        return name
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[:len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _targets(imported, module, modules):
    """Modules of the package that importing `imported` from `module` runs: the module and the
    packages on its path that are not already `module`'s own ancestors."""
    parts = imported.split(".")
    own = {".".join(module.split(".")[:i]) for i in range(1, len(module.split(".")) + 1)}
    out = set()
    for i in range(1, len(parts) + 1):
        name = ".".join(parts[:i])
        if name in modules and name not in own:
            out.add(name)
    return out


def import_graph():
    """{module: {modules it imports}} over every import statement (module and function level)."""
    modules = _modules()
    graph = {}
    for mod, path in modules.items():
        is_package = path.endswith("__init__.py")
        with open(path) as f:
            tree = ast.parse(f.read(), path)
        edges = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    edges |= _targets(alias.name, mod, modules)
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(mod, is_package, node.level, node.module or "")
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    edges |= _targets(sub if sub in modules else base, mod, modules)
        edges.discard(mod)
        graph[mod] = {e for e in edges if e.split(".")[0] == PACKAGE}
    return graph


def find_cycle(graph):
    """One cycle as a list of modules (first == last), or None."""
    WHITE, GREY, BLACK = 0, 1, 2
    color = {m: WHITE for m in graph}
    stack = []

    def visit(m):
        color[m] = GREY
        stack.append(m)
        for n in sorted(graph[m]):
            if color[n] == GREY:
                return stack[stack.index(n):] + [n]
            if color[n] == WHITE:
                found = visit(n)
                if found:
                    return found
        stack.pop()
        color[m] = BLACK
        return None

    for m in sorted(graph):
        if color[m] == WHITE:
            found = visit(m)
            if found:
                return found
    return None


def test_graph_is_built_from_every_module():
    graph = import_graph()
    assert "tessera.backends.base" in graph and "tessera.language.core" in graph
    assert "tessera.backends" in graph["tessera.compiler.compiler"]
    assert "tessera.runtime.jit" in graph["tessera.compiler.code_generator"]  # a function-level import


def test_no_import_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_find_cycle_reports_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_layers():
    """The layers of tessera.backends' docstring: lower layers never import higher ones."""
    graph = import_graph()
    layer_of = [  # (prefix, layer); the longest matching prefix wins
        ("tessera._core", 0), ("tessera.errors", 0), ("tessera.language", 1), ("tessera.interpreter", 1), ("tessera.backends", 2),
        ("tessera.profiler", 2),
        ("tessera.runtime", 3), ("tessera.compiler", 4), ("tessera.runtime.launch", 5),
        ("tessera.runtime.autotuner", 5), ("tessera.testing", 5), ("tessera", 6),
    ]

    def layer(m):
        return max((p for p in layer_of if m == p[0] or m.startswith(p[0] + ".")), key=lambda p: len(p[0]))[1]
    wrong = sorted(f"{m} -> {n}" for m, ns in graph.items() for n in ns if layer(n) > layer(m))
    assert not wrong, "imports upward: " + ", ".join(wrong)
    # Nothing below the compiler imports it, so only the launch path compiles.
    assert not [m for m, ns in graph.items() if layer(m) < 4 and any(n.startswith("tessera.compiler") for n in ns)]


def _import_alone(mod):
    r = subprocess.run([sys.executable, "-c", f"import {mod}"], cwd=PYTHON_DIR, capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=PYTHON_DIR), timeout=120)
    return mod, r.returncode, r.stderr


def test_every_module_imports_first_in_a_fresh_interpreter():
    mods = sorted(_modules())
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        results = list(pool.map(_import_alone, mods))
    failed = [f"{m}:\n{err.strip().splitlines()[-1] if err.strip() else rc}" for m, rc, err in results if rc]
    assert not failed, "\n".join(failed)
