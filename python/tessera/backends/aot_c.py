"""What the backends' ahead-of-time C writers share (tessera.aot; nvidia_aot.py, amd_aot.py): C
types and identifiers of parameters, the launcher's prototype, byte arrays, and the dispatcher
over specializations."""

import re

from ..language import core

_C_SCALAR = {
    "i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t",
    "u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t", "u64": "uint64_t",
    "fp32": "float", "fp64": "double",
}


def c_type(name, ty, pointer_type):
    """The C type of parameter `name` of language type `ty`; pointers are `pointer_type`."""
    if ty.is_ptr():
        return pointer_type
    for k, v in _C_SCALAR.items():
        if core.str_to_ty(k) == ty:
            return v
    raise ValueError(f"parameter '{name}': type {ty} has no C form in tessera.aot (pointers, 8-64-bit integers, "
                     f"fp32 and fp64 scalars)")


def c_ident(name):
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ValueError(f"{name!r} is not a C identifier")
    return name


def prototype(cname, params, result_type, stream_type, pointer_type):
    """`<result> <cname>(<stream> stream, grid_x, grid_y, grid_z, <parameters>)`."""
    args = ", ".join(f"{c_type(p[0], p[1], pointer_type)} {c_ident(p[0])}" for p in params)
    return (f"{result_type} {cname}({stream_type} stream, unsigned int grid_x, unsigned int grid_y, "
            f"unsigned int grid_z" + (f", {args}" if args else "") + ")")


def bytes_literal(data, per_line=20):
    lines = []
    for i in range(0, len(data), per_line):
        lines.append("  " + ", ".join(f"0x{b:02x}" for b in data[i:i + per_line]) + ",")
    return "\n".join(lines)


def dispatch(specs, launch_lines, no_match, pointer="{}"):
    """The launcher's body after its declarations: for each specialization in order, its condition
    (Specialization.condition(pointer)) guarding `launch_lines(i)` (C statements that return); the
    first one without conditions ends the list (nothing after it could run); otherwise `return
    <no_match>;` when no condition holds."""
    lines = []
    for i, s in enumerate(specs):
        cond = s.condition(pointer)
        body = launch_lines(i)
        if cond == "1":
            return lines + ["  " + b for b in body]
        lines += [f"  if ({cond}) {{"] + ["    " + b for b in body] + ["  }"]
    return lines + [f"  return {no_match};"]
