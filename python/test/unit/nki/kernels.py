"""NKI tutorial kernels (tensor add, matmul, softmax, RMSNorm, layer norm) written in tessera.nki,
in the style of AWS's NKI tutorials: tiles of 128 partitions, SPMD programs over row blocks."""
import tessera.nki as nki
import tessera.nki.language as nl

P = 128  # partitions per tile


@nki.jit
def tensor_add(a_input, b_input):
    """c = a + b for [M, N] inputs, M a multiple of 128: program (i, j) adds the 128 x 512 block."""
    c_output = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
    offset_x = nl.program_id(0) * 128
    offset_y = nl.program_id(1) * 512
    ix = offset_x + nl.arange(128)[:, None]
    iy = offset_y + nl.arange(512)[None, :]
    a_tile = nl.load(a_input[ix, iy])
    b_tile = nl.load(b_input[ix, iy])
    c_tile = a_tile + b_tile
    nl.store(c_output[ix, iy], value=c_tile)
    return c_output


@nki.jit
def matmul(lhsT, rhs):
    """lhsT [K, M] (the left operand transposed, NKI's stationary layout) times rhs [K, N]: tiles of
    128 x 128 x 128 accumulated over K in fp32, stored as the inputs' dtype."""
    K, M = lhsT.shape
    K2, N = rhs.shape
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    TK, TM, TN = 128, 128, 128
    i_k = nl.arange(TK)[:, None]
    i_m = nl.arange(TM)[None, :]
    i_n = nl.arange(TN)[None, :]
    i_p = nl.arange(TM)[:, None]
    for m in nl.affine_range(M // TM):
        for n in nl.affine_range(N // TN):
            acc = nl.zeros((TM, TN), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // TK):
                a_tile = nl.load(lhsT[k * TK + i_k, m * TM + i_m])
                b_tile = nl.load(rhs[k * TK + i_k, n * TN + i_n])
                acc += nl.matmul(a_tile, b_tile, transpose_x=True)
            nl.store(result[m * TM + i_p, n * TN + i_n], value=nl.copy(acc, dtype=result.dtype))
    return result


@nki.jit
def softmax(x):
    """Row softmax of x [R, C], C at most 512 (one tile per row block); rows past R masked."""
    R, C = x.shape
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    i_p = nl.program_id(0) * P + nl.arange(P)[:, None]
    i_f = nl.arange(C)[None, :]
    rows = i_p < R
    t = nl.load(x[i_p, i_f], mask=rows, dtype=nl.float32)
    m = nl.max(t, axis=1, keepdims=True)
    e = nl.exp(nl.subtract(t, m))
    s = nl.sum(e, axis=1, keepdims=True)
    nl.store(out[i_p, i_f], value=nl.divide(e, s), mask=rows)
    return out


@nki.jit
def rmsnorm(a, g, eps):
    """a [R, C] * rsqrt(mean(a^2, row) + eps) * g[C], 128 rows per loop iteration (one program)."""
    R, C = a.shape
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(P)[:, None]
    i_f = nl.arange(C)[None, :]
    g_tile = nl.load(g[i_f], dtype=nl.float32)
    for r in nl.affine_range((R + P - 1) // P):
        rows = r * P + i_p < R
        t = nl.load(a[r * P + i_p, i_f], mask=rows, dtype=nl.float32)
        ms = nl.mean(nl.square(t), axis=[1], keepdims=True)
        y = nl.multiply(nl.multiply(t, nl.rsqrt(ms + eps)), g_tile)
        nl.store(out[r * P + i_p, i_f], value=y, mask=rows)
    return out


@nki.jit
def layernorm(a, gamma, beta, eps):
    """(a - mean) / sqrt(var + eps) * gamma + beta over the rows of a [R, C]: program i handles
    rows 128 i .. 128 i + 127."""
    R, C = a.shape
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    i = nl.mgrid[0:P, 0:C]
    rows = nl.program_id(0) * P + i.p
    ok = rows < R
    t = nl.load(a[rows, i.x], mask=ok, dtype=nl.float32)
    mu = nl.mean(t, axis=1, keepdims=True)
    d = t - mu
    var = nl.mean(d * d, axis=1, keepdims=True)
    y = d * nl.rsqrt(var + eps) * nl.load(gamma[i.x], dtype=nl.float32) + nl.load(beta[i.x], dtype=nl.float32)
    nl.store(out[rows, i.x], value=y, mask=ok)
    return out
