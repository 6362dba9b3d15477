"""Tessera: a GPU kernel compiler with a triton.language-compatible kernel language."""

from ._core import CompilerUnavailableError, Diagnostic, MLIRError, ParseResult, llvm_version, parse_mlir, verify_mlir

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "CompilerUnavailableError",
    "Diagnostic",
    "MLIRError",
    "ParseResult",
    "llvm_version",
    "parse_mlir",
    "verify_mlir",
]
