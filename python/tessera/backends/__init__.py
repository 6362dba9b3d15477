"""Vendor backends: how a kernel goes from TTIR to a loadable binary and how it is launched."""
