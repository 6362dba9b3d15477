"""Tessera's kernel effects against the known truth and against PyTorch's own analysis
(torch._higher_order_ops.triton_kernel_wrap.identify_mutated_tensors, which reads Triton's TTIR)
on the same kernels (benchmarks/effects_kernels.py, written against triton.language).
    python3 benchmarks/effects_compare.py [--out effects.json] [--device cuda]
Tessera's side runs anywhere (nothing is launched); PyTorch's side needs Triton."""
import argparse
import inspect
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import _loader  # noqa: E402

WRITES = ("written", "read-write")


def cases(torch, dev, descriptor_class):
    def f32(*shape):
        return torch.zeros(*shape, dtype=torch.float32, device=dev)

    def descs():
        a, b = f32(64, 64), f32(64, 64)
        return {"src_desc": descriptor_class(a, [64, 64], [64, 1], [16, 16]),
                "dst_desc": descriptor_class(b, [64, 64], [64, 1], [16, 16])}
    i32 = lambda: torch.zeros(1, dtype=torch.int32, device=dev)  # noqa: E731
    # name: (kernel, {arg: value} incl. constexprs, {pointer param: true effect})
    return {
        "copy": ("copy", dict(x=f32(64), y=f32(64), n=64, BLOCK=64), {"x": "read", "y": "written"}),
        "masked_copy": ("masked_copy", dict(x=f32(64), y=f32(64), n=50, BLOCK=64), {"x": "read", "y": "written"}),
        "pointer_arithmetic_2d": ("transpose_2d", dict(x=f32(16, 16), y=f32(16, 16), M=16, N=16, BM=16, BN=16),
                                  {"x": "read", "y": "written"}),
        "if_expression_select": ("select_store", dict(a=f32(8), b=f32(8), flag=5, BLOCK=8),
                                 {"a": "written", "b": "written"}),
        "where_select": ("where_store", dict(a=f32(8), b=f32(8), unused=f32(8), flag=0, BLOCK=8),
                         {"a": "written", "b": "written", "unused": "untouched"}),
        "atomics": ("atomics", dict(acc=f32(8), counter=i32(), swap=i32(), x=f32(8), BLOCK=8),
                    {"acc": "read-write", "counter": "read-write", "swap": "read-write", "x": "read"}),
        "in_place": ("in_place", dict(x=f32(8), BLOCK=8), {"x": "read-write"}),
        "block_pointers": ("block_pointers", dict(x=f32(32, 16), y=f32(32, 16), M=32, N=16, BM=16, BN=16),
                           {"x": "read", "y": "written"}),
        "host_descriptors": ("host_descriptors", dict(**descs(), BM=16, BN=16),
                             {"src_desc": "read", "dst_desc": "written"}),
        "device_descriptors": ("device_descriptors", dict(x=f32(64, 64), y=f32(64, 64), M=64, N=64, BM=16, BN=16),
                               {"x": "read", "y": "written"}),
        "noinline_callee": ("calls_noinline", dict(x=f32(8), y=f32(16), BLOCK=8), {"x": "read", "y": "written"}),
        "loop_carried_pointers": ("loop_pointer", dict(x=f32(64), y=f32(64), n=64, BLOCK=16),
                                  {"x": "read", "y": "written"}),
        "branches": ("branch_store", dict(x=f32(8), y=f32(8), z=f32(8), n=8, BLOCK=8),
                     {"x": "read", "y": "written", "z": "written"}),
        "while_loop": ("while_store", dict(x=f32(8), y=f32(8), n=8, BLOCK=8), {"x": "read", "y": "written"}),
        "pointer_from_memory": ("pointer_from_memory",
                                dict(table=torch.zeros(1, dtype=torch.int64, device=dev), x=f32(8), y=f32(8),
                                     BLOCK=8),
                                # the stored-to pointer comes from memory: it may be any argument
                                {"table": "read-write", "x": "written", "y": "written"}),
        "inline_asm": ("inline_asm_pointer", dict(x=f32(8), y=f32(8), BLOCK=8), {"x": "read-write", "y": "written"}),
        "never_used": ("never_used", dict(x=f32(8), y=f32(8), z=f32(8), BLOCK=8),
                       {"x": "read", "y": "written", "z": "untouched"}),
        "conditional_scalar_store": ("conditional_scalar_store", dict(out=f32(1), x=f32(8), BLOCK=8),
                                     {"out": "written", "x": "read"}),
        "dead_load": ("dead_load", dict(x=f32(8), y=f32(8), BLOCK=8), {"x": "untouched", "y": "written"}),
        "tuple_of_pointers": ("tuple_args", dict(ptrs=(f32(8), f32(8)), out=f32(8), BLOCK=8),
                              {"ptrs[0]": "read", "ptrs[1]": "read", "out": "written"}),
    }


def torch_mutated(torch_analysis, kernel, kwargs):
    params = inspect.signature(torch_analysis).parameters
    extra = []
    if "tma_descriptor_metadata" in params:
        extra.append({})
    return sorted(torch_analysis(kernel, dict(kwargs), *extra))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--device", default="cuda")
    args = ap.parse_args()
    import torch
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
    import tessera
    from tessera.tools.tensor_descriptor import TensorDescriptor as TesseraDesc
    tes = _loader.load("tessera", filename="effects_kernels.py")
    try:
        tri = _loader.load("triton", filename="effects_kernels.py")
        from triton.tools.tensor_descriptor import TensorDescriptor as TritonDesc
        from torch._higher_order_ops.triton_kernel_wrap import identify_mutated_tensors
    except Exception as e:  # noqa: BLE001
        tri = identify_mutated_tensors = TritonDesc = None
        print(f"PyTorch's side skipped: {type(e).__name__}: {e}")
    rows, misses = [], 0
    tes_cases = cases(torch, args.device, TesseraDesc)
    tri_cases = cases(torch, args.device, TritonDesc) if tri else {}
    for name, (kname, kwargs, truth) in tes_cases.items():
        report = tessera.effects(getattr(tes, kname), **kwargs)
        got = {p: v["effect"] for p, v in report.items()}
        torch_side, torch_error = None, None
        if tri:
            try:
                torch_side = torch_mutated(identify_mutated_tensors, getattr(tri, kname), tri_cases[name][1])
            except Exception as e:  # noqa: BLE001
                torch_error = f"{type(e).__name__}: {str(e)[:200]}"
        for param, true in truth.items():
            t = got.get(param, "absent")
            missed = true in WRITES and t not in WRITES
            misses += missed
            top = param.split("[")[0]
            row = {"case": name, "param": param, "truth": true, "tessera": t, "tessera_exact": t == true,
                   "tessera_missed_write": missed,
                   "torch_mutated": (top in torch_side) if torch_side is not None else None,
                   "torch_error": torch_error}
            rows.append(row)
    print(f"{'case':<26} {'param':<10} {'truth':<11} {'tessera':<11} {'torch says mutated'}")
    for r in rows:
        ts = r["torch_error"] and "error" or ("-" if r["torch_mutated"] is None else str(r["torch_mutated"]))
        flag = "" if r["tessera_exact"] else "  <- tessera differs"
        print(f"{r['case']:<26} {r['param']:<10} {r['truth']:<11} {r['tessera']:<11} {ts}{flag}")
    exact = sum(r["tessera_exact"] for r in rows)
    print(f"tessera: {exact}/{len(rows)} exact, {misses} missed writes")
    if tri:
        tw = [r for r in rows if r["torch_mutated"] is not None]
        agree = sum(r["torch_mutated"] == (r["truth"] in WRITES) for r in tw)
        miss = sum((not r["torch_mutated"]) and r["truth"] in WRITES for r in tw)
        over = sum(r["torch_mutated"] and r["truth"] not in WRITES for r in tw)
        print(f"torch: {agree}/{len(tw)} agree with the truth on 'written', {miss} missed writes, {over} "
              f"over-reported; {len(rows) - len(tw)} rows where its analysis raised")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"commit": _loader.build_commit(), "torch": torch.__version__, "rows": rows}, f, indent=1)
    sys.exit(1 if misses else 0)


if __name__ == "__main__":
    main()
