"""Compile-only tests of the hip backend (no AMD GPU anywhere): every conformance kernel compiles
for gfx942, gfx90a and gfx1100 to a code object that llvm-readobj reads (the kernel, its kernarg
size, its LDS); matmuls on MFMA (CDNA), vector loads and stores, the device libraries, printf through hostcall, atomics
and clear errors for what is missing (an architecture, the device libraries, ld.lld)."""

import os
import re
import shutil
import subprocess

import pytest

import tessera
import tessera.language as tl
from tessera.backends import amd
from tessera.compiler import compiler

from .test_conformance_ttir import _conformance_ttir

LLVM_BIN = "/usr/lib/llvm-22/bin"
READOBJ = shutil.which("llvm-readobj-22") or os.path.join(LLVM_BIN, "llvm-readobj")
OBJDUMP = shutil.which("llvm-objdump-22") or os.path.join(LLVM_BIN, "llvm-objdump")
TARGETS = ["hip:gfx942", "hip:gfx90a", "hip:gfx1100"]

needs_tools = pytest.mark.skipif(not (os.path.exists(READOBJ) and os.path.exists(OBJDUMP)),
                                 reason="llvm-readobj / llvm-objdump (llvm-22) not installed")


@pytest.fixture(scope="module")
def conformance_hsaco(tmp_path_factory):
    ttirs = _conformance_ttir(tmp_path_factory)
    out = {}
    for target in TARGETS:
        for name, ttir in ttirs.items():
            out[target, name] = compiler.compile_ttir(ttir, name, target, {"num_warps": 4})
    return out


def notes(hsaco, tmp_path):
    path = tmp_path / "k.hsaco"
    path.write_bytes(hsaco)
    return subprocess.run([READOBJ, "--notes", str(path)], capture_output=True, text=True, check=True).stdout


def disassemble(hsaco, arch, tmp_path):
    path = tmp_path / "k.hsaco"
    path.write_bytes(hsaco)
    return subprocess.run([OBJDUMP, "-d", f"--mcpu={arch}", str(path)], capture_output=True, text=True,
                          check=True).stdout


@needs_tools
def test_every_conformance_kernel_compiles_to_a_code_object(conformance_hsaco, tmp_path):
    assert len(conformance_hsaco) == 15 * len(TARGETS)
    for (target, name), (asm, meta) in conformance_hsaco.items():
        for stage in ("ttgir", "llir", "amdgcn", "hsaco"):
            assert asm.get(stage), (target, name, stage)
        hsaco = asm["hsaco"]
        assert isinstance(hsaco, bytes) and hsaco[:4] == b"\x7fELF", (target, name)
        text = notes(hsaco, tmp_path)
        assert re.search(rf"\.name:\s+{name}\b", text), (target, name)
        kernarg = int(re.search(r"\.kernarg_segment_size:\s+(\d+)", text).group(1))
        lds = int(re.search(r"\.group_segment_fixed_size:\s+(\d+)", text).group(1))
        assert kernarg == meta["amdgpu_kernarg_size"] > 0, (target, name)
        # the shared memory the module allocated is the kernel's LDS (static, in the code object)
        assert lds == meta["amdgpu_lds"] and lds >= meta["shared"], (target, name, lds, meta["shared"])
        wave = int(re.search(r"\.wavefront_size:\s+(\d+)", text).group(1))
        assert wave == amd.wave_size(target.split(":")[1]) == meta["threads_per_warp"], (target, name)
        assert meta["amdgpu_vgprs"] > 0 and meta["amdgpu_instructions"] > 0


@needs_tools
def test_add_uses_dwordx4_accesses(conformance_hsaco, tmp_path):
    asm, _ = conformance_hsaco["hip:gfx942", "add_kernel"]
    text = disassemble(asm["hsaco"], "gfx942", tmp_path)
    assert "global_load_dwordx4" in text and "global_store_dwordx4" in text


@needs_tools
@pytest.mark.parametrize("target,mfma", [("hip:gfx942", True), ("hip:gfx90a", True), ("hip:gfx1100", False)])
def test_matmul_runs_on_mfma_or_wmma(conformance_hsaco, tmp_path, target, mfma):
    # CDNA: MFMA; RDNA3: WMMA
    asm, _ = conformance_hsaco[target, "matmul_kernel"]
    assert ("amd_mfma" in asm["ttgir"]) == mfma and ("amd_wmma" in asm["ttgir"]) == (not mfma)
    text = disassemble(asm["hsaco"], target.split(":")[1], tmp_path)
    assert ("v_mfma_f32_16x16x16" in text) == mfma, target
    assert ("v_wmma_f32_16x16x16_f16" in text) == (not mfma), target


@tessera.jit
def attention(Q, K, V, O, scale, N_CTX, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, D)
    q = tl.load(Q + rows[:, None] * D + cols[None, :])
    m_i = tl.zeros((BM,), tl.float32) - float("inf")
    l_i = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, D), tl.float32)
    for n0 in range(0, N_CTX, BN):
        keys = n0 + tl.arange(0, BN)
        k = tl.load(K + keys[:, None] * D + cols[None, :])
        v = tl.load(V + keys[:, None] * D + cols[None, :])
        s = tl.dot(q, tl.trans(k)) * scale
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp2(s - m_new[:, None])
        alpha = tl.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    tl.store(O + rows[:, None] * D + cols[None, :], (acc / l_i[:, None]).to(tl.float16))


@needs_tools
def test_attention_runs_both_dots_on_mfma(tmp_path):
    sig = {"Q": "*fp16:16", "K": "*fp16:16", "V": "*fp16:16", "O": "*fp16:16", "scale": "fp32", "N_CTX": "i32:16"}
    k = tessera.compile(attention, signature=sig, constexprs={"D": 64, "BM": 64, "BN": 64}, target="hip:gfx942")
    text = disassemble(k.asm["hsaco"], "gfx942", tmp_path)
    # each 64x64x64 dot over 2 x 2 warps: 2 x 2 tiles of 16 x 16 per warp, 4 steps of 16 along K
    assert text.count("v_mfma_f32_16x16x16") == 32


def test_reductions_use_lds_and_ds_bpermute(conformance_hsaco):
    asm, meta = conformance_hsaco["hip:gfx942", "softmax_kernel"]
    assert "ds_bpermute_b32" in asm["amdgcn"] and meta["amdgpu_lds"] > 0


def test_math_links_the_device_library(conformance_hsaco):
    asm, _ = conformance_hsaco["hip:gfx942", "math_kernel"]
    assert "__ocml_" in asm["llir"]  # called in the module Tessera made ...
    assert "__ocml_" not in asm["amdgcn"].split(".section")[0]  # ... and defined (inlined) in the code object


@tessera.jit
def print_atomic(x, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x + offs, mask=offs < n)
    tl.device_print("v", v)
    tl.device_assert(v >= 0, "negative")
    tl.atomic_add(x + offs, v, mask=offs < n)


def test_printf_asserts_and_atomics():
    k = tessera.compile(print_atomic, signature={"x": "*fp32:16", "n": "i32"}, constexprs={"BLOCK": 256},
                        target="hip:gfx942", debug=True)
    llir, amdgcn = k.asm["llir"], k.asm["amdgcn"]
    assert "__ockl_printf_begin" in llir and "__ockl_printf_append_args" in llir
    assert "s_trap" in amdgcn
    # atomics under a branch on their mask (the target has no predicated atomics)
    assert re.search(r"atomicrmw fadd ptr addrspace\(1\) .* syncscope\(\"agent\"\)", llir)
    assert "global_atomic_add_f32" in amdgcn or "global_atomic_cmpswap" in amdgcn


def test_wave32_on_rdna():
    k = tessera.compile(print_atomic, signature={"x": "*fp32:16", "n": "i32"}, constexprs={"BLOCK": 256},
                        target="hip:gfx1100")
    assert '"ttg.threads-per-warp" = 32' in k.asm["ttgir"] and k.metadata["threads_per_warp"] == 32


@pytest.mark.parametrize("arch", ["gfx800", "sm_90", "gfx9", "gfx94z"])
def test_unknown_architectures_are_errors(arch):
    with pytest.raises(ValueError, match="unsupported AMD architecture"):
        tessera.compile(print_atomic, signature={"x": "*fp32:16", "n": "i32"}, constexprs={"BLOCK": 256},
                        target=f"hip:{arch}")


@tessera.jit
def exp_kernel(x, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x + offs, tl.exp(tl.load(x + offs)) + tl.math.erf(tl.load(x + offs)))


def test_missing_device_libraries_are_named(monkeypatch, tmp_path):
    monkeypatch.setenv("TESSERA_ROCM_DEVICE_LIBS", str(tmp_path))
    with pytest.raises(Exception, match="ROCm device libraries .* not found.*TESSERA_ROCM_DEVICE_LIBS"):
        tessera.compile(exp_kernel, signature={"x": "*fp32:16"}, constexprs={"BLOCK": 64}, target="hip:gfx942")


def test_missing_lld_is_named(monkeypatch, tmp_path):
    monkeypatch.setenv("TESSERA_LLD", str(tmp_path / "no-such-ld.lld"))
    with pytest.raises(Exception, match="ld.lld was not found"):
        tessera.compile(exp_kernel, signature={"x": "*fp32:16"}, constexprs={"BLOCK": 64}, target="hip:gfx90a")


def test_kernel_resources_parse_the_directives():
    text = ("\t.amdhsa_kernarg_size 28\n\t.amdhsa_group_segment_fixed_size 4096\n"
            "\t.amdhsa_private_segment_fixed_size 0\n\t.amdhsa_next_free_vgpr 12\n\t.amdhsa_next_free_sgpr 10\n"
            "k:\n\ts_load_dwordx4 s[0:3], s[0:1], 0x0\n\t; a comment\n\ts_endpgm\n")
    assert amd.kernel_resources(text) == {"kernarg_size": 28, "lds": 4096, "scratch": 0, "vgprs": 12, "sgprs": 10,
                                          "instructions": 2}


# ------------------------------------------------------------------ the HIP launcher (no AMD GPU here)

@tessera.jit
def many_args(x, y, n, s, h, b, big, d, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    v = tl.load(x + o) * s + h + b.to(tl.float32) + (big + n).to(tl.float32) + d.to(tl.float32)
    tl.store(y + o, v, mask=o < n)


def explicit_args(notes_text):
    """(offset, size) of each explicit argument in the code object's metadata (hidden ones left
    out)."""
    out = []
    for block in notes_text.split(".args:")[1].split(".group_segment_fixed_size")[0].split("- ")[1:]:
        kind = re.search(r"\.value_kind:\s+(\S+)", block).group(1)
        if kind.startswith("hidden_"):
            continue
        out.append((int(re.search(r"\.offset:\s+(\d+)", block).group(1)),
                    int(re.search(r"\.size:\s+(\d+)", block).group(1))))
    return out


@needs_tools
@pytest.mark.parametrize("sig", [
    {"x": "*fp32:16", "y": "*fp32:16", "n": "i32", "s": "fp32", "h": "fp16", "b": "i1", "big": "i64", "d": "fp64"},
    {"x": "*fp32:16", "y": "*fp32", "n": "i32:16", "s": "fp32", "h": "bf16", "b": "i8", "big": "i32", "d": "i16"},
    {"x": "*fp32", "y": "*fp32", "n": "i64", "s": "fp64", "h": "fp32", "b": "i1", "big": "i8", "d": "fp16"},
], ids=["mixed", "narrow", "wide-first"])
def test_kernarg_packing_matches_the_code_object(sig, tmp_path):
    k = tessera.compile(many_args, signature=sig, constexprs={"BLOCK": 64}, target="hip:gfx942")
    types = k.metadata["kernarg_types"]
    expected = explicit_args(notes(k.asm["hsaco"], tmp_path))
    assert len(types) == len(expected), (types, expected)
    values = [0x1000, 0x2000] + [1] * (len(types) - 2)
    packed, offsets = amd.pack_kernargs(types, values)
    assert [(off, amd._KERNARG[t][0]) for off, t in zip(offsets, types)] == expected
    assert len(packed) <= k.metadata["amdgpu_kernarg_size"]
    assert packed[:8] == (0x1000).to_bytes(8, "little") and packed[8:16] == (0x2000).to_bytes(8, "little")


def test_pack_kernargs_rejects_a_wrong_count():
    with pytest.raises(TypeError, match="takes 2 arguments, got 1"):
        amd.pack_kernargs(["ptr", "i32"], [0])


def test_without_an_amd_gpu_launching_is_a_clear_error():
    # Importing and compiling work; loading names what is missing (no ROCm runtime:
    # HIP_RUNTIME_NOT_FOUND; a runtime without a device: HIP's own error name).
    from tessera import _core
    ok, status = _core._native().hip.available()
    if ok and _core._native().hip.device_count() > 0:
        pytest.skip("an AMD GPU is present")
    backend = amd.AmdBackend()
    assert not backend.is_available() and status.name in backend.unavailable_reason()
    k = tessera.compile(exp_kernel, signature={"x": "*fp32:16"}, constexprs={"BLOCK": 64}, target="hip:gfx942")
    with pytest.raises(tessera.HipError, match=re.escape(status.name)) as e:
        backend.load(k, 0)
    assert e.value.name == status.name and "loading exp_kernel" in str(e.value)


# ------------------------------------------------------------------ pointer range -> buffer accesses

@tessera.jit
def masked_add(x, y, z, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(z + offs, tl.load(x + offs, mask=m, other=1.0) + tl.load(y + offs, mask=m), mask=m)


@tessera.jit
def shifted(x, y, n, shift, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK) - shift  # may be negative: no buffer access
    tl.store(y + tl.arange(0, BLOCK), tl.load(x + offs, mask=(offs >= 0) & (offs < n)))


@needs_tools
def test_pointer_range_gives_buffer_instructions(tmp_path):
    sig = {"x": "*fp32:16:range32", "y": "*fp32:16:range32", "z": "*fp32:16:range32", "n": "i32:16"}
    k = tessera.compile(masked_add, signature=sig, constexprs={"BLOCK": 1024}, target="hip:gfx942")
    assert "tt.pointer_range = 32" in k.asm["ttir"]
    text = disassemble(k.asm["hsaco"], "gfx942", tmp_path)
    # the masks became out-of-range offsets: buffer accesses, no branch around them
    assert text.count("buffer_load_dwordx4") == 2 and text.count("buffer_store_dwordx4") == 1
    assert "global_load" not in text and "global_store" not in text
    # `other=1.0` where the mask is off: selected after the load (buffer loads read zero there)
    assert "rocdl.raw.ptr.buffer.load" in k.asm["llir"] or "llvm.amdgcn.raw.ptr.buffer.load" in k.asm["llir"]
    # without the pointer range (or where offsets may be negative): global accesses
    plain = tessera.compile(masked_add, signature={n: s.replace(":range32", "") for n, s in sig.items()},
                            constexprs={"BLOCK": 1024}, target="hip:gfx942")
    assert "buffer_load" not in disassemble(plain.asm["hsaco"], "gfx942", tmp_path)
    neg = tessera.compile(shifted, signature={"x": "*fp32:16:range32", "y": "*fp32:16:range32", "n": "i32",
                                              "shift": "i32"}, constexprs={"BLOCK": 64}, target="hip:gfx942")
    text = disassemble(neg.asm["hsaco"], "gfx942", tmp_path)
    assert "global_load" in text and "buffer_store" in text  # the store's offsets are non-negative


def test_range32_applies_to_pointers_only():
    with pytest.raises(ValueError, match="'range32' applies to pointers"):
        tessera.compile(masked_add, signature={"x": "*fp32", "y": "*fp32", "z": "*fp32", "n": "i32:range32"},
                        constexprs={"BLOCK": 64}, target="hip:gfx942")


def test_waves_per_eu_option():
    # attention needs ~190 VGPRs; asking for 4 waves per EU caps it at 128 (512 / 4)
    sig = {"Q": "*fp16:16", "K": "*fp16:16", "V": "*fp16:16", "O": "*fp16:16", "scale": "fp32", "N_CTX": "i32:16"}
    consts = {"D": 64, "BM": 64, "BN": 64}
    free = tessera.compile(attention, signature=sig, constexprs=consts, target="hip:gfx942")
    capped = tessera.compile(attention, signature=sig, constexprs=consts, target="hip:gfx942", waves_per_eu=4)
    assert free.metadata["amdgpu_vgprs"] > 128 >= capped.metadata["amdgpu_vgprs"]
    with pytest.raises(ValueError, match="waves_per_eu=11 is not valid: it must be in 0..10"):
        tessera.compile(exp_kernel, signature={"x": "*fp32:16"}, constexprs={"BLOCK": 64}, target="hip:gfx942",
                        waves_per_eu=11)
    with pytest.raises(TypeError, match="unknown option"):
        tessera.compile(exp_kernel, signature={"x": "*fp32:16"}, constexprs={"BLOCK": 64}, target="cuda:90",
                        waves_per_eu=2)


def test_pack_kernargs_takes_unsigned_values_and_names_bad_ones():
    # 2^32 - 1 for an i32 (a u32 argument) and -1 both store as all ones; out of range is a
    # TypeError naming the argument
    packed, _ = amd.pack_kernargs(["i32", "i32", "i64"], [2**32 - 1, -1, 2**64 - 1])
    assert packed[:8] == b"\xff" * 8 and packed[8:16] == b"\xff" * 8
    with pytest.raises(TypeError, match=r"kernel argument 1 \(i32\).*does not fit in 32 bits"):
        amd.pack_kernargs(["i32", "i32"], [0, 2**32])
    with pytest.raises(TypeError, match=r"kernel argument 0 \(float\)"):
        amd.pack_kernargs(["float"], ["x"])


# ------------------------------------------------------------------ owner stores read back

@tessera.jit
def mean_then_read(x, mean, out, N, BLOCK: tl.constexpr):
    # A scalar stored then read back (a layer norm's mean): the owner's store, then a barrier with
    # workgroup-scope fences (the default barrierForGlobalMemory) before every thread's read.
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    v = tl.load(x + row * N + offs, mask=offs < N, other=0.0)
    tl.store(mean + row, tl.sum(v, axis=0) / N)
    m = tl.load(mean + row)
    tl.store(out + row * N + offs, v - m, mask=offs < N)


def test_store_read_back_is_fenced_around_the_barrier():
    sig = {"x": "*fp32:16", "mean": "*fp32:16", "out": "*fp32:16", "N": "i32"}
    k = tessera.compile(mean_then_read, signature=sig, constexprs={"BLOCK": 256}, target="hip:gfx942")
    body = [l.strip() for l in k.asm["llir"].splitlines()
            if re.search(r"fence|s\.barrier|masked\.store|load float, ptr addrspace\(1\)", l) and "declare" not in l]
    # The mean's store (masked: by its owner), then the release fence, the barrier and the acquire
    # fence, then the global load that reads it back, then the output's store.
    first = next(j for j, l in enumerate(body) if "masked.store" in l and "addrspace(1)" in l)
    want = ["masked.store", 'fence syncscope("workgroup") release', "@llvm.amdgcn.s.barrier",
            'fence syncscope("workgroup") acquire', "load float, ptr addrspace(1)", "masked.store"]
    assert len(body) == first + len(want), body
    for line, w in zip(body[first:], want):
        assert w in line, (w, body[first:])
