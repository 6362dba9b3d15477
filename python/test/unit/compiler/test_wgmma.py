"""Hopper's tensor-core path (compile-only: the TTGIR and PTX are enough): on cuda:90, f16/bf16 dots
become ttng.warp_group_dot on #ttg.nvmma_shared operand buffers and wgmma.mma_async in sm_90a PTX;
in a pipelined K loop the operands arrive by cp.async and no shared-memory access is left in the
loop but the copies (no operand staging, no ldmatrix); attention keeps P in registers. Other
targets, shapes and warp counts keep mma.sync."""
import re

import pytest

import tessera
import tessera.language as tl


@tessera.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    npn = tl.cdiv(N, BN)
    offs_am = pid // npn * BM + tl.arange(0, BM)
    offs_bn = pid % npn * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_am[:, None] * sam + offs_k[None, :] * sak
    b_ptrs = b_ptr + offs_k[:, None] * sbk + offs_bn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK * sak
        b_ptrs += BK * sbk
    rows = pid // npn * BM + tl.arange(0, BM)
    cols = pid % npn * BN + tl.arange(0, BN)
    tl.store(c_ptr + rows[:, None] * scm + cols[None, :], acc.to(c_ptr.dtype.element_ty))


@tessera.jit
def attention(Q, K, V, O, qk_scale, N_CTX, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
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
        s = tl.dot(q, tl.trans(k)) * qk_scale
        m_new = tl.maximum(m_i, tl.max(s, 1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    tl.store(O + rows[:, None] * D + cols[None, :], (acc / l_i[:, None]).to(tl.float16))


def _sig(dtype="fp16", a_col_major=False, b_col_major=False):
    sig = {"a_ptr": f"*{dtype}:16", "b_ptr": f"*{dtype}:16", "c_ptr": f"*{dtype}:16", "M": "i32:16",
           "N": "i32:16", "K": "i32:16", "sam": "i32:16", "sak": "i32:16", "sbk": "i32:16", "sbn": "i32:16",
           "scm": "i32:16"}
    const = {}
    for name, unit in (("sam" if a_col_major else "sak", 1), ("sbk" if b_col_major else "sbn", 1)):
        sig.pop(name)
        const[name] = unit
    return sig, const


def _compile(tile=(128, 128, 32), warps=4, stages=3, target="cuda:90", **kw):
    sig, const = _sig(**kw)
    return tessera.compile(matmul, signature=sig, constexprs={"BM": tile[0], "BN": tile[1], "BK": tile[2], **const},
                           target=target, num_warps=warps, num_stages=stages)


def _loop(ptx):
    """The body of the K loop (the block that branches back to itself)."""
    for m in re.finditer(r"^(\$L__BB\d+_\d+):", ptx, re.M):
        label = m.group(1)
        end = re.search(r"bra(\.uni)?\s+" + re.escape(label) + ";", ptx[m.end():])
        if end:
            return ptx[m.end():m.end() + end.start()]
    return ""


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
def test_pipelined_matmul_runs_on_wgmma_with_cp_async_operands(dtype):
    k = _compile(dtype=dtype)
    ptx, ttgir = k.asm["ptx"], k.asm["ttgir"]
    assert ".target sm_90a" in ptx
    assert "versionMajor = 3" in ttgir and "#ttg.nvmma_shared" in ttgir and "ttng.warp_group_dot" in ttgir
    body = _loop(ptx)
    assert body, "no K loop found"
    ty = "f16" if dtype == "fp16" else "bf16"
    # 128x128 on one warpgroup: two m64n128 tiles x two k16 steps per iteration.
    assert body.count(f"wgmma.mma_async.sync.aligned.m64n128k16.f32.{ty}.{ty}") == 4
    assert "cp.async.cg.shared.global" in body and "wgmma.wait_group.sync.aligned 1;" in body
    # No operand staging through shared memory by the threads, no ldmatrix, no mma.sync.
    for banned in ("st.shared", "ld.shared", "ldmatrix", "mma.sync"):
        assert banned not in body, banned
    # The only proxy fence would be for stores by the threads; copies need none.
    assert "fence.proxy.async" not in body


def test_wgmma_shapes_follow_the_tile_and_warps():
    shapes = lambda k: sorted(set(re.findall(r"wgmma\.mma_async\.sync\.aligned\.(m64n\d+k16)", k.asm["ptx"])))
    assert shapes(_compile((128, 256, 64), warps=8)) == ["m64n256k16"]       # two warpgroups along M
    assert shapes(_compile((64, 256, 64), warps=8)) == ["m64n128k16"]        # two along N
    assert shapes(_compile((64, 64, 32), warps=4)) == ["m64n64k16"]
    ttgir = _compile((64, 256, 64), warps=8).asm["ttgir"]
    assert "warpsPerCTA = [4, 2], instrShape = [16, 128, 16]" in ttgir


@pytest.mark.parametrize("a_col,b_col,trans", [(False, False, "0, 1;"), (True, False, "1, 1;"),
                                                (False, True, "0, 0;"), (True, True, "1, 0;")])
def test_operand_orders_set_the_transpose_bits(a_col, b_col, trans):
    # Buffers keep the loads' order: a column-major A is MN-major (trans-a 1), a row-major B is
    # MN-major (trans-b 1), a column-major B K-major (trans-b 0).
    ptx = _compile(a_col_major=a_col, b_col_major=b_col).asm["ptx"]
    assert re.search(r"wgmma\.mma_async[^;]*p, 1, 1, " + re.escape(trans), ptx), trans


@pytest.mark.parametrize("case", ["sm80", "two_warps", "m32"])
def test_other_targets_and_shapes_keep_mma_sync(case):
    if case == "sm80":
        k = _compile(target="cuda:80")
    elif case == "two_warps":
        k = _compile((64, 64, 32), warps=2)
    else:
        k = _compile((32, 64, 32))
    ptx = k.asm["ptx"]
    assert "wgmma" not in ptx and "mma.sync.aligned.m16n8k16" in ptx
    if case == "sm80":
        assert ".target sm_80" in ptx and "ldmatrix" in ptx


def test_unpipelined_dot_stores_its_operands_with_a_proxy_fence():
    ptx = _compile(stages=1).asm["ptx"]
    body = _loop(ptx)
    assert "wgmma.mma_async" in body and "st.shared" in body
    # each buffer's stores, then a fence; after the last of them the barrier, then the wgmma
    i_mma = body.find("wgmma.mma_async")
    i_st, i_fence = body.rfind("st.shared", 0, i_mma), body.rfind("fence.proxy.async.shared::cta", 0, i_mma)
    i_bar = body.rfind("bar.sync", 0, i_mma)
    assert 0 <= i_st < i_fence < i_bar < i_mma
    assert body.count("fence.proxy.async.shared::cta") == 2  # one per operand buffer
    assert "wgmma.wait_group.sync.aligned 0;" in body


def test_attention_keeps_p_in_registers():
    k = tessera.compile(attention, signature={"Q": "*fp16:16", "K": "*fp16:16", "V": "*fp16:16", "O": "*fp16:16",
                                              "qk_scale": "fp32", "N_CTX": "i32:16"},
                        constexprs={"D": 64, "BM": 128, "BN": 64}, target="cuda:90", num_warps=8, num_stages=3)
    ttgir, ptx = k.asm["ttgir"], k.asm["ptx"]
    # P x V reads A from registers; K^T is a transposed view of K's ring.
    assert re.search(r"ttng\.warp_group_dot %\w+, %\w+, %\w+ \{[^}]*isAsync = true[^}]*\} : tensor<128x64xf16, "
                     r"#ttg\.dot_op<\{opIdx = 0", ttgir)
    assert "ttg.memdesc_trans" in ttgir
    body = _loop(ptx)
    assert body.count("wgmma.mma_async") == 8 and "cp.async.cg.shared.global" in body
    for banned in ("st.shared", "ld.shared", "fence.proxy.async"):
        assert banned not in body, banned
    # A's four registers in braces, no transpose immediate for A.
    assert re.search(r"wgmma\.mma_async[^;]*\{[^}]*\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}, %rd\d+, p, 1, 1, 1;", ptx)


@pytest.mark.parametrize("dtype,ptx_type", [("fp8e4nv", "e4m3"), ("fp8e5", "e5m2")])
@pytest.mark.parametrize("b_col", [False, True])
def test_fp8_runs_on_wgmma_with_k_major_buffers(dtype, ptx_type, b_col):
    sig, const = _sig(dtype, b_col_major=b_col)
    sig["c_ptr"] = "*fp16:16"
    k = tessera.compile(matmul, signature=sig, constexprs={"BM": 128, "BN": 128, "BK": 64, **const},
                        target="cuda:90", num_warps=8, num_stages=3)
    ptx, ttgir = k.asm["ptx"], k.asm["ttgir"]
    # 8-bit operands: k32 instructions, no transpose immediates (both buffers K-major: B's
    # nvmma_shared is transposed whatever the load order).
    assert re.search(rf"wgmma\.mma_async\.sync\.aligned\.m64n128k32\.f32\.{ptx_type}\.{ptx_type} "
                     r"\{[^}]*\}, %rd\d+, %rd\d+, p, 1, 1;", ptx)
    assert "instrShape = [16, 128, 32]" in ttgir
    assert re.search(r"nvmma_shared<\{swizzlingByteWidth = 64, transposed = true, elementBitWidth = 8\}>", ttgir)


@tessera.jit
def f32_dot(a_ptr, b_ptr, c_ptr, PREC: tl.constexpr):
    r = tl.arange(0, 64)
    k = tl.arange(0, 32)
    a = tl.load(a_ptr + r[:, None] * 32 + k[None, :])
    b = tl.load(b_ptr + k[:, None] * 64 + r[None, :])
    tl.store(c_ptr + r[:, None] * 64 + r[None, :], tl.dot(a, b, input_precision=PREC))


@pytest.mark.parametrize("prec", ["tf32", "ieee", "tf32x3"])
def test_f32_dots_run_as_tf32_on_wgmma_only_when_allowed(prec):
    k = tessera.compile(f32_dot, signature={"a_ptr": "*fp32:16", "b_ptr": "*fp32:16", "c_ptr": "*fp32:16"},
                        constexprs={"PREC": prec}, target="cuda:90", num_warps=4)
    ptx = k.asm["ptx"]
    if prec == "tf32":
        # k8 steps, both buffers K-major (B transposed into its buffer), no transpose immediates
        assert ptx.count("wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32") == 4
        assert re.search(r"wgmma\.mma_async[^;]*, p, 1, 1;", ptx)
    else:
        assert "wgmma" not in ptx and "fma.rn.f32" in ptx
