"""The front end: Python AST -> TTIR (MLIR text), verified by the native core."""
