"""Access to the native compiler core (tessera._C, which wraps libtessera)."""

import os

try:
    from . import _C
except ImportError as exc:  # the extension is not built or libtessera is missing
    _C = None
    _IMPORT_ERROR = exc
else:
    _IMPORT_ERROR = None


class CompilerUnavailableError(ImportError):
    """The native core (tessera._C / libtessera.so) could not be loaded."""


class MLIRError(ValueError):
    """MLIR text that failed to parse or verify; `diagnostics` holds the located errors."""

    def __init__(self, diagnostics):
        self.diagnostics = list(diagnostics)
        lines = [str(d) for d in self.diagnostics] or ["MLIR text failed to parse"]
        for d in self.diagnostics:
            lines.extend("  " + n for n in d.notes)
        super().__init__("\n".join(lines))


def _native():
    if _C is None:
        here = os.path.dirname(os.path.abspath(__file__))
        raise CompilerUnavailableError(
            f"tessera's native core is not available ({_IMPORT_ERROR}); build it with "
            f"`make build` (it is looked for in {here})"
        )
    return _C


if _C is not None:
    Diagnostic = _C.Diagnostic
    ParseResult = _C.ParseResult
else:  # keep the names importable so that the error is raised on use
    Diagnostic = ParseResult = None


def llvm_version():
    """The LLVM/MLIR version libtessera was built with."""
    return _native().llvm_version()


def parse_mlir(text, buffer_name="<string>", print_module=True):
    """Parse and verify MLIR text; returns a ParseResult (ok, module, diagnostics).

    Never raises on bad input: errors come back as diagnostics with file, line
    and column (of the innermost `loc("file":line:col)` when the IR has one).
    """
    if not isinstance(text, str):
        raise TypeError(f"parse_mlir expects MLIR text as str, got {type(text).__name__}")
    return _native().parse_mlir(text, buffer_name, print_module)


def verify_mlir(text, buffer_name="<string>"):
    """Parse and verify MLIR text; returns the printed module or raises MLIRError."""
    result = parse_mlir(text, buffer_name)
    if not result.ok:
        raise MLIRError(result.diagnostics)
    return result.module
