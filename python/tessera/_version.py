"""Tessera's version: the one place it is written. CMake reads it (TESSERA_VERSION, the C++
API's version(), the CMake package version); the Python package and its metadata import it."""
__version__ = "0.1.0"
