"""Here (no GPU): lowers Triton 3.6's pipelined sm80 TTGIR of the reference matmuls with Tessera's
backend (target switched to cuda:90, so that the cubin runs on Hopper) into dist/exp80/*.ptx with
their metadata, and copies the reference kernels beside them; run after tools/device/pack.sh,
then tools/device/probes/sm80_ttgir_matmul.py on the GPU machine (carry "dist")."""
import json
import os
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "python"))
from tessera.backends import nvidia  # noqa: E402

REF = os.environ.get("TESSERA_REFERENCE_DIR",
                     os.path.join(ROOT, "..", "shared", "reference", "triton-3.6-sm90"))
CASES = {"mm": ("matmul_fp16_4096_128x128x32_w4_s4", 4), "mm64": ("matmul_fp16_4096_128x128x64_w8_s3", 8)}


def main():
    out = os.path.join(ROOT, "dist", "exp80")
    os.makedirs(out, exist_ok=True)
    for name, (case, warps) in CASES.items():
        src = open(os.path.join(REF, case, "sm80.ttgir")).read()
        src = src.replace('ttg.target = "cuda:80"', 'ttg.target = "cuda:90"')
        opts = nvidia.NvidiaBackend().parse_options({"num_warps": warps})
        asm, meta = nvidia._native_compile(src, "ttgir", "matmul_kernel", 90, opts)
        with open(os.path.join(out, name + ".ptx"), "w") as f:
            f.write(asm["ptx"])
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(meta, f)
        print(name, meta)
    shutil.copy(os.path.join(REF, "kernels.py"), os.path.join(out, "ref_kernels.py"))


if __name__ == "__main__":
    main()
