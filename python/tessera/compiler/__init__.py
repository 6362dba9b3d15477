"""The front end: Python AST -> TTIR (MLIR text), verified by the native core, then the target backend's stages.

It imports the language, the backend registry (tessera.backends), and the runtime's kernel
objects and disk cache (runtime.jit, runtime.cache); never runtime.launch or a vendor module.
"""
