"""Compile-only tests of TMA (no GPU): a descriptor parameter with a tensor map ('tensordesc<...,
tma>', what a launch on sm_90 passes) compiles its 2-D loads and stores to cp.async.bulk.tensor
copies with an mbarrier; the map is a 128-byte __grid_constant__ parameter after the base, sizes
and strides; 64-bit offsets and other ranks stay pointer accesses; a tensor map before sm_90 is an
error. Descriptors made in the kernel (tl.make_tensor_descriptor) get a tensor map written on the
device (tensormap.replace) from sm_90, their copies guarded by what TMA needs of the tensor at run
time."""
import re

import pytest

import tessera
import tessera.language as tl
from tessera.backends import nvidia


@tessera.jit
def desc_add_one(src, dst, BM: tl.constexpr, BN: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    v = src.load([pm * BM, pn * BN])
    dst.store([pm * BM, pn * BN], v + 1)


@tessera.jit
def desc_wide_offsets(src, dst, off, BM: tl.constexpr, BN: tl.constexpr):
    v = src.load([off, 0])
    dst.store([off, 0], v)


@pytest.fixture
def all_copies(monkeypatch):
    """Tests of the TMA path itself: every guarded copy takes TMA, not only those serving tensor
    cores (the default policy: test_default_policy_copies_by_pointers)."""
    monkeypatch.setenv("TESSERA_TMA_ALL_COPIES", "1")


def compile_copy(block="64, 128", dtype="fp16", target="cuda:90", kernel=desc_add_one, extra=None):
    sig = {"src": f"tensordesc<{dtype}[{block}], tma>", "dst": f"tensordesc<{dtype}[{block}], tma>"}
    sig.update(extra or {})
    bm, bn = (int(b) for b in block.split(","))
    return tessera.compile(kernel, signature=sig, constexprs={"BM": bm, "BN": bn}, target=target)


def test_loads_and_stores_become_tma_copies(all_copies):
    k = compile_copy()
    ttir, ttgir, ptx = k.asm["ttir"], k.asm["ttgir"], k.asm["ptx"]
    assert "tt.descriptor_load" in ttir and "tt.descriptor_store" in ttir
    assert "ttng.async_tma_copy_global_to_local" in ttgir and "ttng.async_tma_copy_local_to_global" in ttgir
    # 128 halves = 256 bytes per row: two 128-byte-swizzled boxes each way
    assert ptx.count("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes") == 2
    assert ptx.count("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group") == 2
    assert re.search(r"mbarrier\.arrive\.expect_tx\.shared::cta\.b64 _, \[%r\d+\], 16384;", ptx)
    for needle in ("mbarrier.init.shared::cta.b64",
                   "mbarrier.try_wait.parity", "cp.async.bulk.commit_group", "cp.async.bulk.wait_group.read 0"):
        assert needle in ptx, needle
    # the maps: 128-byte parameters, the 5th and 10th (base, 2 sizes, 1 stride, map per descriptor)
    assert ptx.count(".param .align 64 .b8") == 2 and "desc_add_one_param_4[128]" in ptx
    assert isinstance(k.asm.get("cubin"), bytes)


@pytest.mark.parametrize("dtype,block,boxes", [("fp32", "32, 32", 1), ("int8", "32, 64", 1), ("bf16", "64, 256", 4),
                                               ("fp32", "16, 8", 1)])
def test_element_sizes_and_swizzles(dtype, block, boxes, all_copies):
    ptx = compile_copy(block, dtype).asm["ptx"]
    assert ptx.count("cp.async.bulk.tensor.2d.shared::cluster.global") == boxes


def test_swizzle_rule_is_shared_with_the_host():
    assert [nvidia.tma_swizzle(b) for b in (256, 128, 192, 64, 96, 32, 48, 16)] == [128, 128, 64, 64, 32, 32, 0, 0]


def test_64_bit_offsets_stay_pointer_accesses():
    k = compile_copy(kernel=desc_wide_offsets, extra={"off": "i64"})
    assert "tt.descriptor_load" not in k.asm["ttir"] and "cp.async.bulk.tensor" not in k.asm["ptx"]
    k32 = compile_copy(kernel=desc_wide_offsets, extra={"off": "i32"})
    assert "cp.async.bulk.tensor" in k32.asm["ptx"]


def test_without_a_tensor_map_descriptors_are_pointer_accesses():
    k = tessera.compile(desc_add_one, signature={"src": "tensordesc<fp16[64, 128]>", "dst": "tensordesc<fp16[64, 128]>"},
                        constexprs={"BM": 64, "BN": 128}, target="cuda:90")
    assert "tt.descriptor_load" not in k.asm["ttir"] and "cp.async.bulk" not in k.asm["ptx"]


def test_a_tensor_map_needs_sm90():
    with pytest.raises(Exception, match="tensor descriptor .* which this target passes to kernels only as the "
                                        "pointers, sizes and strides"):
        compile_copy(target="cuda:80")


def test_effects_see_stores_through_the_tensor_map():
    k = compile_copy()
    eff = k.metadata["effects"]
    assert eff["dst"]["effect"] == "written" and eff["src"]["effect"] == "read", eff


@tessera.jit
def desc_tile_at(src, out, om, on, BM: tl.constexpr, BN: tl.constexpr):
    v = src.load([om, on])
    rm, rn = tl.arange(0, BM), tl.arange(0, BN)
    tl.store(out + rm[:, None] * BN + rn[None, :], v)


def test_unaligned_inner_offsets_fall_back_at_run_time(all_copies):
    # TMA needs 16-byte aligned inner offsets: an i32 offset of unknown alignment gets a run-time
    # guard (TMA when aligned, pointer accesses otherwise); one the launcher specialized as
    # divisible by 16 is proven aligned and keeps only the copy; a constant decides while tracing.
    def ptx(on, sig_on):
        return tessera.compile(desc_tile_at, signature={"src": "tensordesc<fp32[32, 64], tma>", "out": "*fp32:16",
                                                        "om": "i32", "on": sig_on} if on is None else
                               {"src": "tensordesc<fp32[32, 64], tma>", "out": "*fp32:16", "om": "i32"},
                               constexprs={"BM": 32, "BN": 64, **({} if on is None else {"on": on})},
                               target="cuda:90").asm["ptx"]
    guarded = ptx(None, "i32")
    assert "cp.async.bulk.tensor" in guarded and "ld.global" in guarded
    proven = ptx(None, "i32:16")
    assert "cp.async.bulk.tensor" in proven and "ld.global" not in proven
    assert "ld.global" not in ptx(8, None) and "cp.async.bulk.tensor" in ptx(8, None)
    assert "cp.async.bulk.tensor" not in ptx(6, None)


@tessera.jit
def carried_matmul(a_desc, b_desc, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    off_k = 0
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(a_desc.load([pm * BM, off_k]), b_desc.load([off_k, pn * BN]), acc)
        off_k += BK
    rm, rn = pm * BM + tl.arange(0, BM), pn * BN + tl.arange(0, BN)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


def test_loops_with_carried_coordinates_are_pipelined():
    # offset += BK carried by the loop (as attention's K/V offsets): the loads are still started
    # S - 1 iterations ahead (3 mbarriers, no synchronous wait in the loop) and the guards fold.
    k = tessera.compile(carried_matmul, signature={"a_desc": "tensordesc<fp16[128, 64], tma>",
                                                   "b_desc": "tensordesc<fp16[64, 128], tma>",
                                                   "c_ptr": "*fp16:16", "M": "i32", "N": "i32", "K": "i32"},
                        constexprs={"BM": 128, "BN": 128, "BK": 64}, target="cuda:90", num_warps=8, num_stages=3)
    ttgir, ptx = k.asm["ttgir"], k.asm["ptx"]
    assert ttgir.count("ttng.init_barrier") == 3 and "scf.if" not in ttgir
    assert ptx.count("mbarrier.init.shared::cta.b64") == 3 and "ld.global" not in ptx
    # wgmma reads the ring slots (no register round trip for the operands)
    assert "ttg.local_load" not in ttgir.split("scf.for")[1].split("scf.yield")[0]


@tessera.jit
def device_matmul(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a, [M, K], [K, 1], [BM, BK])
    b_desc = tl.make_tensor_descriptor(b, [K, N], [N, 1], [BK, BN])
    c_desc = tl.make_tensor_descriptor(c, [M, N], [N, 1], [BM, BN])
    pm, pn = tl.program_id(0), tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(a_desc.load([pm * BM, k * BK]), b_desc.load([k * BK, pn * BN]), acc)
    c_desc.store([pm * BM, pn * BN], acc.to(tl.float16))


@tessera.jit
def device_copy(x, y, M, N, BM: tl.constexpr, BN: tl.constexpr):
    xd = tl.make_tensor_descriptor(x, [M, N], [N, 1], [BM, BN])
    yd = tl.make_tensor_descriptor(y, [M, N], [N, 1], [BM, BN])
    pm, pn = tl.program_id(0), tl.program_id(1)
    yd.store([pm * BM, pn * BN], xd.load([pm * BM, pn * BN]))


MM_SIG = {"a": "*fp16:16", "b": "*fp16:16", "c": "*fp16:16", "M": "i32:16", "N": "i32:16", "K": "i32:16"}


def compile_device_matmul(target="cuda:90", sig=None):
    return tessera.compile(device_matmul, signature=sig or MM_SIG, constexprs={"BM": 128, "BN": 128, "BK": 64},
                           target=target, num_warps=8, num_stages=3)


def test_device_descriptors_make_tensor_maps():
    k = compile_device_matmul()
    ttir, ttgir, ptx = k.asm["ttir"], k.asm["ttgir"], k.asm["ptx"]
    assert ttir.count("tt.make_tensor_descriptor") == 3
    assert ttgir.count("ttng.tensormap_create") == 3 and ttgir.count("ttg.global_scratch_alloc") == 3
    # each map: zeroed, its fields set (11 for a 2-D map, 1 stride), copied out and acquired
    assert ptx.count("tensormap.replace.tile.") == 3 * 13
    assert ptx.count("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu") == 3
    assert ptx.count("fence.proxy.tensormap::generic.acquire.gpu") == 3
    assert "cp.async.bulk.tensor.2d.shared::cluster.global" in ptx
    assert "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group" in ptx
    # 3 maps x 128 bytes of global scratch per program
    assert k.metadata.get("global_scratch_size", 3 * 128) == 3 * 128


def test_device_descriptor_loops_are_unswitched_and_pipelined():
    # The address and the row strides are proven aligned (specialized arguments): what is left
    # (sizes positive) is tested once, before the K loop, whose TMA copy is pipelined (3 ring
    # barriers initialized before it); the other loop keeps guarded copies and pointer loads.
    ttgir = compile_device_matmul().asm["ttgir"]
    tma_loop = ttgir.split("scf.for")[1].split("} else {")[0]
    assert "ttng.wait_barrier" in tma_loop and "ttng.warp_group_dot" in tma_loop and "scf.if" not in tma_loop
    assert ttgir.split("scf.for")[0].count("ttng.init_barrier") == 3


def test_unproven_alignment_is_checked_at_run_time():
    # K of unknown divisibility: the row stride of A may not be 16-byte aligned; copies through
    # A's map are guarded in the loop (TMA where it holds, pointer loads otherwise).
    sig = dict(MM_SIG, K="i32")
    ptx = compile_device_matmul(sig=sig).asm["ptx"]
    assert "cp.async.bulk.tensor" in ptx and "ld.global" in ptx


@pytest.mark.parametrize("target", ["cuda:80", "cuda:75"])
def test_device_descriptors_before_sm90_are_pointer_accesses(target):
    k = compile_device_matmul(target=target)
    assert "tt.make_tensor_descriptor" not in k.asm["ttir"]
    assert "tensormap" not in k.asm["ptx"] and "cp.async.bulk.tensor" not in k.asm["ptx"]


def test_disable_tma_keeps_device_descriptors_on_pointers(monkeypatch):
    monkeypatch.setenv("TESSERA_DISABLE_TMA", "1")
    k = tessera.compile(device_copy, signature={"x": "*fp16:16", "y": "*fp16:16", "M": "i32", "N": "i32"},
                        constexprs={"BM": 64, "BN": 128}, target="cuda:90")
    assert "tensormap" not in k.asm["ptx"] and "ld.global" in k.asm["ptx"]


def test_maps_only_where_tma_copies_the_block():
    # 3-D blocks, NaN padding and a static inner size that is not a multiple of 16 bytes: no map
    @tessera.jit
    def odd(x, y, BM: tl.constexpr, BN: tl.constexpr, PAD: tl.constexpr):
        xd = tl.make_tensor_descriptor(x, [100, 70], [70, 1], [BM, BN], padding_option=PAD)
        yd = tl.make_tensor_descriptor(y, [100, 72], [72, 1], [BM, BN])
        yd.store([0, 0], xd.load([0, 0]))
    k = tessera.compile(odd, signature={"x": "*fp32:16", "y": "*fp32:16"}, constexprs={"BM": 16, "BN": 32, "PAD": "zero"},
                        target="cuda:90")
    # x: 70 * 4 = 280 bytes per row: pointers; y: 288 bytes: a map
    assert k.asm["ttir"].count("tt.make_tensor_descriptor") == 1
    k = tessera.compile(odd, signature={"x": "*fp32:16", "y": "*fp32:16"}, constexprs={"BM": 16, "BN": 32, "PAD": "nan"},
                        target="cuda:90")
    assert k.asm["ttir"].count("tt.make_tensor_descriptor") == 1


def test_effects_see_stores_through_device_maps():
    eff = compile_device_matmul().metadata["effects"]
    assert eff["c"]["effect"] == "written" and eff["a"]["effect"] == "read" and eff["b"]["effect"] == "read", eff


def test_default_policy_copies_by_pointers():
    # A copy does not serve tensor cores: by default its guarded copies take their pointer branch
    # (faster: no TMA round trip per program); a matmul's operands and epilogue keep TMA.
    ptx = compile_copy().asm["ptx"]
    assert "cp.async.bulk.tensor" not in ptx and "ld.global" in ptx and "st.global" in ptx
    mm = compile_device_matmul().asm["ptx"]
    assert "cp.async.bulk.tensor.2d.shared::cluster.global" in mm and "cp.async.bulk.tensor.2d.global.shared::cta" in mm


@tessera.jit
def user_if_copy(src, dst, flag, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    if flag > 0:
        v = src.load([pm * BM, 0])
    else:
        v = tl.zeros((BM, BN), dtype=tl.float16)
    dst.store([pm * BM, 0], v)


def test_a_users_if_around_a_copy_is_not_a_tma_guard():
    # Only the guards the front end puts around its copies may be resolved to one branch by
    # ttng-tma-lowering; the user's if (its else-branch: zeros) stays, under either policy.
    for env in ({}, {"TESSERA_TMA_ALL_COPIES": "1"}):
        with pytest.MonkeyPatch.context() as mp:
            for k, v in env.items():
                mp.setenv(k, v)
            k = compile_copy(kernel=user_if_copy, extra={"flag": "i32"})
        ttir, ttgir = k.asm["ttir"], k.asm["ttgir"]
        # the load is the user's (not marked); the store the front end guards (negative offsets)
        assert not re.search(r"tt.descriptor_load [^\n]*tt.tma_guarded", ttir)
        assert "scf.if" in ttgir and "arith.cmpi sgt" in ttgir, env
        assert "cp.async.bulk.tensor.2d.shared::cluster.global" in k.asm["ptx"], env


@tessera.jit(noinline=True)
def copy_tile_in_helper(x, y, M, N, BM: tl.constexpr, BN: tl.constexpr):
    xd = tl.make_tensor_descriptor(x, [M, N], [N, 1], [BM, BN])
    yd = tl.make_tensor_descriptor(y, [M, N], [N, 1], [BM, BN])
    pm = tl.program_id(0)
    yd.store([pm * BM, 0], xd.load([pm * BM, 0]))


@tessera.jit
def calls_copy_helper(x, y, M, N, BM: tl.constexpr, BN: tl.constexpr):
    copy_tile_in_helper(x, y, M, N, BM, BN)


def test_device_descriptors_in_noinline_functions_use_pointers():
    # A tensor map lives in the kernel's global scratch: a noinline function's descriptors are
    # pointer accesses (and compile), the kernel's own would be maps.
    k = tessera.compile(calls_copy_helper, signature={"x": "*fp16:16", "y": "*fp16:16", "M": "i32", "N": "i32:16"},
                        constexprs={"BM": 64, "BN": 64}, target="cuda:90")
    assert "tt.make_tensor_descriptor" not in k.asm["ttir"] and "tensormap" not in k.asm["ptx"]
    assert "ld.global" in k.asm["ptx"] and "st.global" in k.asm["ptx"]
    assert k.asm["ttir"].count("tt.call") == 1
