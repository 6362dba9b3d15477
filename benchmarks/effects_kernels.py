"""Kernels with a known effect on each pointer argument, written against triton.language: the one
source of python/test/unit/compiler/test_effects.py (which loads them under Tessera and checks
the known truth) and of benchmarks/effects_compare.py (Tessera's analysis and PyTorch's
torch._higher_order_ops.triton_kernel_wrap on the same kernels)."""
import triton
import triton.language as tl


@triton.jit
def copy(x, y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y + offs, tl.load(x + offs))


@triton.jit
def masked_copy(x, y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y + offs, tl.load(x + offs, mask=m, other=0.0), mask=m)


@triton.jit
def transpose_2d(x, y, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)[:, None]
    rn = tl.arange(0, BN)[None, :]
    tile = tl.load(x + rm * N + rn)
    tl.store(y + rn * M + rm, tile)


@triton.jit
def select_store(a, b, flag, BLOCK: tl.constexpr):
    p = a if flag > 0 else b
    tl.store(p + tl.arange(0, BLOCK), tl.zeros([BLOCK], tl.float32))


@triton.jit
def where_store(a, b, unused, flag, BLOCK: tl.constexpr):
    p = tl.where(flag > 0, a, b)
    tl.store(p + tl.arange(0, BLOCK), tl.full([BLOCK], 1.0, tl.float32))


@triton.jit
def atomics(acc, counter, swap, x, BLOCK: tl.constexpr):
    v = tl.load(x + tl.arange(0, BLOCK))
    tl.atomic_add(acc + tl.arange(0, BLOCK), v)
    tl.atomic_cas(counter, 0, 1)
    tl.atomic_xchg(swap, 3)


@triton.jit
def in_place(x, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x + offs, tl.load(x + offs) + 1.0)


@triton.jit
def block_pointers(x, y, M, N, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_block_ptr(x, (M, N), (N, 1), (0, 0), (BM, BN), (1, 0))
    dst = tl.make_block_ptr(y, (M, N), (N, 1), (0, 0), (BM, BN), (1, 0))
    for _ in range(2):
        tl.store(dst, tl.load(src, boundary_check=(0, 1)), boundary_check=(0, 1))
        src = tl.advance(src, (BM, 0))
        dst = tl.advance(dst, (BM, 0))


@triton.jit
def host_descriptors(src_desc, dst_desc, BM: tl.constexpr, BN: tl.constexpr):
    dst_desc.store([0, 0], src_desc.load([0, 0]))


@triton.jit
def device_descriptors(x, y, M, N, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_tensor_descriptor(x, [M, N], [N, 1], [BM, BN])
    dst = tl.make_tensor_descriptor(y, [M, N], [N, 1], [BM, BN])
    dst.store([0, 0], src.load([0, 0]))


@triton.jit(noinline=True)
def _fill(p, BLOCK: tl.constexpr):
    tl.store(p + tl.arange(0, BLOCK), tl.full([BLOCK], 2.0, tl.float32))


@triton.jit
def calls_noinline(x, y, BLOCK: tl.constexpr):
    _fill(y, BLOCK)
    tl.store(y + BLOCK, tl.load(x))


@triton.jit
def loop_pointer(x, y, n, BLOCK: tl.constexpr):
    xp = x + tl.arange(0, BLOCK)
    yp = y + tl.arange(0, BLOCK)
    for _ in range(0, n, BLOCK):
        tl.store(yp, tl.load(xp))
        xp += BLOCK
        yp += BLOCK


@triton.jit
def branch_store(x, y, z, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    if tl.program_id(0) == 0:
        tl.store(y + offs, tl.load(x + offs))
    else:
        tl.store(z + offs, tl.load(x + offs))


@triton.jit
def while_store(x, y, n, BLOCK: tl.constexpr):
    i = 0
    while i < n:
        tl.store(y + i, tl.load(x + i))
        i += 1


@triton.jit
def tuple_args(ptrs, out, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out + offs, tl.load(ptrs[0] + offs) + tl.load(ptrs[1] + offs))


@triton.jit
def pointer_from_memory(table, x, y, BLOCK: tl.constexpr):
    # A pointer loaded from memory: the analysis cannot know where it points.
    p = tl.load(table).to(tl.pointer_type(tl.float32))
    tl.store(p + tl.arange(0, BLOCK), tl.full([BLOCK], 0.0, tl.float32))


@triton.jit
def inline_asm_pointer(x, y, BLOCK: tl.constexpr):
    addr = tl.inline_asm_elementwise("mov.b64 $0, $1;", "=l,l", [x], dtype=tl.int64, is_pure=True, pack=1)
    tl.store(y, addr.to(tl.float32))


@triton.jit
def never_used(x, y, z, BLOCK: tl.constexpr):
    tl.store(y + tl.arange(0, BLOCK), tl.load(x + tl.arange(0, BLOCK)))


@triton.jit
def conditional_scalar_store(out, x, BLOCK: tl.constexpr):
    s = tl.sum(tl.load(x + tl.arange(0, BLOCK)), axis=0)
    if tl.program_id(0) == 0:
        tl.store(out, s)


@triton.jit
def dead_load(x, y, BLOCK: tl.constexpr):
    tl.load(x + tl.arange(0, BLOCK))
    tl.store(y + tl.arange(0, BLOCK), tl.full([BLOCK], 1.0, tl.float32))
