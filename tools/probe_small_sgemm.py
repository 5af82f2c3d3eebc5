"""Probe (issue 19): can a plain shared-memory tiled SIMT sgemm, register-blocked, with a
deterministic split-K, beat cuBLAS's float32 kernels on the MLP step's two large products
when both are timed inside a CUDA graph (as irc runs steps)? Answer: no — not by the 0.7×
that would justify building one in irc (figures below). Kept as the record of that answer.

The kernel is CUDA C through cupy.RawModule (a probe only: nothing here ships in irc). Each
block computes a BM×BN tile of C over one K-chunk; a thread holds a TM×TN register tile in
float4 groups (conflict-free shared reads); the next K-step's tile is loaded into registers
(float4, coalesced) while the current one is multiplied out of shared memory (two buffers,
one barrier a step); KG > 1 splits each K-step between KG thread groups inside the block,
summed in group order through shared memory. Split-K partials are never added with float
atomics: either a second kernel sums the workspace's S partials in order 0..S−1 ("2k"), or
the last block of a tile to arrive (an integer counter) sums them in that same order
("fix"); either way the result is the same bits on every run (checked: two runs compared
bit for bit, error against float64 below 1e-5, workspace poisoned with NaN first). The
epilogue is C = alpha·acc + beta·C (beta = 0 never reads C). Sizes must be multiples of 4.

Shapes, row-major, as irc passes them (irc/runtime/blas_layout.py: cuBLAS gets Cᵀ = Bᵀ·Aᵀ):
  X·W1        C(256×512)  = X(256×784)·W1(784×512)                      A row-major ("nn")
  W1 update   W1(784×512) = W1 − lr·Xᵀ·δ1, Xᵀ a column-major view of X   A transposed, beta 1

Timing: 20 launches captured in one CUDA graph, µs per call, median of 9 replays (the
footing of tools/probe_lt_splitk.py), cuBLAS (torch.mm / addmm_, TF32 off) timed in the same
process before and after the sweep. 2026-11-28, µs per call (× = over cuBLAS's time):

| H100 (run 4) | cuBLAS | best custom | its gemm kernel alone | sum of partials alone |
|---|---|---|---|---|
| X·W1 (K = 784) | 12.04 (12.36 after), 17.1 TFLOP/s | 12.24 (1.02×), 64×64×16, 8×4/thread, KG 2, S 4 | 10.28 | 2.43 |
| W1 − lr·Xᵀ·δ1 (K = 256) | 11.98 (11.77 after), 17.2 TFLOP/s | 12.53 (1.05×), 64×64×32, 8×4/thread, S 3 | 9.80 | 2.65 |

The committed version again on another H100 (run 5): X·W1 cuBLAS 11.91 (12.23 after), best
12.40 (1.04×, same tile), gemm alone 10.04, sum 2.21; update cuBLAS 11.78 (11.72 after), best
12.69 (1.08×, same tile), gemm alone 9.95, sum 2.64. An empty kernel costs 1.2–1.3 µs per
call on the same footing (each "alone" figure includes one). How the kernel got there:
  scalar loads, one shared buffer (H100, run 1):     X·W1 21.31 µs (1.79×), update 18.40 (1.56×)
  + register prefetch, two buffers, float4 (H200, run 2; H100, run 3):
                                                     X·W1 13.38 / 13.61 (1.14× / 1.13×),
                                                     update 11.97 / 12.66 (1.02× / 1.05×)
  + in-block K groups (KG) and BK = 32 (H100, run 4): the table above
  "fix" (last block sums; no second launch) is the slowest way: 19.5 µs (1.63×) at best,
  its serial tail of S reads per element outweighs the launch it saves.

So: no-go. Even with the partials' sum folded into the next kernel (no second launch), the
gemm alone is 0.85× of cuBLAS on X·W1 (~1.8 µs saved) and 0.82× on the update — the
update's result is the weight itself, so its sum has no consumer to hide in. Note that
cuBLAS's X·W1 costs ~12 µs per call here (17 TFLOP/s), not the 21.6 µs that ncu reported
inside the step (docs/debugging.md; ncu's default base clocks and cache flushes, or the
step's neighbours running beside it are the candidates, not told apart here) — the
headroom the issue assumed is not there.

    python3 tools/probe_small_sgemm.py      (on the GPU machine: torch + cupy)
"""
from __future__ import annotations

import itertools
from typing import Any

import cupy
import torch

from graph_timing import graph_us  # beside this file (tools/ is on the path)

SOURCE = r"""
#ifndef A_TRANS
#define A_TRANS 0
#endif
#ifndef KG
#define KG 1   /* groups of threads splitting each K-step inside the block, summed in order */
#endif
#define TPG ((BM / TM) * (BN / TN))
#define THREADS (KG * TPG)
#define LA ((BM * BK / 4 + THREADS - 1) / THREADS)   /* float4 loads of A per thread per K-step */
#define LB ((BN * BK / 4 + THREADS - 1) / THREADS)
#define PAD 4
// Sizes must be multiples of 4 and K-chunks multiples of BK (a probe: the shapes here are).
extern "C" __global__ void __launch_bounds__(THREADS)
sgemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
      float* __restrict__ W, unsigned* __restrict__ counters,
      int M, int N, int K, int lda, int ldb, int ldc, float alpha, float beta, int kchunk, int splits)
{
    __shared__ __align__(16) float As[2][BK][BM + PAD];
    __shared__ __align__(16) float Bs[2][BK][BN + PAD];
    const int tid = threadIdx.x, grp = tid / TPG, tx = (tid % TPG) % (BN / TN), ty = (tid % TPG) / (BN / TN);
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN, s = blockIdx.z;
    const int kbeg = s * kchunk, kend = min(K, kbeg + kchunk);
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;
    float4 ra[LA], rb[LB];
    auto load = [&](int k0) {
#pragma unroll
        for (int l = 0; l < LA; ++l) {
            int idx = tid + l * THREADS;
            if (idx >= BM * BK / 4) break;
#if A_TRANS
            int mq = idx % (BM / 4), k = idx / (BM / 4), m = row0 + 4 * mq;
            ra[l] = (m < M && k0 + k < kend) ? *(const float4*)&A[(size_t)(k0 + k) * lda + m] : make_float4(0, 0, 0, 0);
#else
            int kq = idx % (BK / 4), m = row0 + idx / (BK / 4), k = k0 + 4 * kq;
            ra[l] = (m < M && k < kend) ? *(const float4*)&A[(size_t)m * lda + k] : make_float4(0, 0, 0, 0);
#endif
        }
#pragma unroll
        for (int l = 0; l < LB; ++l) {
            int idx = tid + l * THREADS;
            if (idx >= BN * BK / 4) break;
            int nq = idx % (BN / 4), k = idx / (BN / 4), n = col0 + 4 * nq;
            rb[l] = (n < N && k0 + k < kend) ? *(const float4*)&B[(size_t)(k0 + k) * ldb + n] : make_float4(0, 0, 0, 0);
        }
    };
    auto store = [&](int buf) {
#pragma unroll
        for (int l = 0; l < LA; ++l) {
            int idx = tid + l * THREADS;
            if (idx >= BM * BK / 4) break;
#if A_TRANS
            int mq = idx % (BM / 4), k = idx / (BM / 4);
            *(float4*)&As[buf][k][4 * mq] = ra[l];
#else
            int kq = idx % (BK / 4), m = idx / (BK / 4);
            As[buf][4 * kq + 0][m] = ra[l].x; As[buf][4 * kq + 1][m] = ra[l].y;
            As[buf][4 * kq + 2][m] = ra[l].z; As[buf][4 * kq + 3][m] = ra[l].w;
#endif
        }
#pragma unroll
        for (int l = 0; l < LB; ++l) {
            int idx = tid + l * THREADS;
            if (idx >= BN * BK / 4) break;
            int nq = idx % (BN / 4), k = idx / (BN / 4);
            *(float4*)&Bs[buf][k][4 * nq] = rb[l];
        }
    };
    // thread rows: group g (of TM/4) covers BM*4/TM rows; the thread has 4 of them at ty*4
#define ROW(i) (((i) / 4) * (BM * 4 / TM) + ty * 4 + ((i) % 4))
#define COL(j) (((j) / 4) * (BN * 4 / TN) + tx * 4 + ((j) % 4))
    int buf = 0;
    if (kbeg < kend) { load(kbeg); store(0); }
    __syncthreads();
    for (int k0 = kbeg; k0 < kend; k0 += BK) {
        const bool more = k0 + BK < kend;
        if (more) load(k0 + BK);
#pragma unroll
        for (int k1 = 0; k1 < BK / KG; ++k1) {
            const int kk = grp * (BK / KG) + k1;
            float a[TM], b[TN];
#pragma unroll
            for (int g = 0; g < TM / 4; ++g) {
                float4 v = *(const float4*)&As[buf][kk][g * (BM * 4 / TM) + ty * 4];
                a[4 * g] = v.x; a[4 * g + 1] = v.y; a[4 * g + 2] = v.z; a[4 * g + 3] = v.w;
            }
#pragma unroll
            for (int g = 0; g < TN / 4; ++g) {
                float4 v = *(const float4*)&Bs[buf][kk][g * (BN * 4 / TN) + tx * 4];
                b[4 * g] = v.x; b[4 * g + 1] = v.y; b[4 * g + 2] = v.z; b[4 * g + 3] = v.w;
            }
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        if (more) store(buf ^ 1);
        __syncthreads();
        buf ^= 1;
    }
#if KG > 1
    {   // the groups' sums, added in group order by group 0
        __shared__ float red[KG - 1][BM * BN];
        if (grp > 0)
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) red[grp - 1][ROW(i) * BN + COL(j)] = acc[i][j];
        __syncthreads();
        if (grp > 0) return;
#pragma unroll
        for (int g = 0; g < KG - 1; ++g)
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += red[g][ROW(i) * BN + COL(j)];
    }
#endif
    if (splits == 1) {
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
            for (int j = 0; j < TN; ++j) {
                int m = row0 + ROW(i), n = col0 + COL(j);
                if (m < M && n < N) {
                    float v = alpha * acc[i][j];
                    if (beta != 0.f) v += beta * C[(size_t)m * ldc + n];
                    C[(size_t)m * ldc + n] = v;
                }
            }
        return;
    }
    float* part = W + (size_t)s * M * N;
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            int m = row0 + ROW(i), n = col0 + COL(j);
            if (m < M && n < N)
                *(float4*)&part[(size_t)m * N + n] = make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
        }
    if (counters == 0) return;  // a second kernel sums the partials
    // the last block of this tile to arrive sums the partials, in order 0..splits-1
    __shared__ unsigned arrived;
    __threadfence();
#if KG > 1
    asm volatile("bar.sync 1, %0;" :: "n"(TPG));
#else
    __syncthreads();
#endif
    const int tile = blockIdx.y * gridDim.x + blockIdx.x;
    if (tid == 0) arrived = atomicAdd(&counters[tile], 1u);
#if KG > 1
    asm volatile("bar.sync 1, %0;" :: "n"(TPG));
#else
    __syncthreads();
#endif
    if (arrived != (unsigned)(splits - 1)) return;
    __threadfence();
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            int m = row0 + ROW(i), n = col0 + COL(j);
            if (m < M && n < N) {
                float sum = 0.f;
                for (int t = 0; t < splits; ++t) sum += __ldcg(&W[(size_t)t * M * N + (size_t)m * N + n]);
                float v = alpha * sum;
                if (beta != 0.f) v += beta * C[(size_t)m * ldc + n];
                C[(size_t)m * ldc + n] = v;
            }
        }
    if (tid == 0) counters[tile] = 0u;  // ready for the next launch (a graph replays it)
}

extern "C" __global__ void empty() {}

extern "C" __global__ void
sum_partials(const float* __restrict__ W, float* __restrict__ C, int M, int N, int ldc, float alpha,
             float beta, int splits)
{
    int e = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
    if (e >= M * N) return;
    int m = e / N, n = e % N;
    float4 sum = *(const float4*)&W[e];
    for (int t = 1; t < splits; ++t) {
        float4 w = *(const float4*)&W[(size_t)t * M * N + e];
        sum.x += w.x; sum.y += w.y; sum.z += w.z; sum.w += w.w;
    }
    float4 v = make_float4(alpha * sum.x, alpha * sum.y, alpha * sum.z, alpha * sum.w);
    if (beta != 0.f) {
        float4 c = *(const float4*)&C[(size_t)m * ldc + n];
        v.x += beta * c.x; v.y += beta * c.y; v.z += beta * c.z; v.w += beta * c.w;
    }
    *(float4*)&C[(size_t)m * ldc + n] = v;
}
"""

TILES = [  # BM, BN, BK, TM, TN, KG
    (32, 32, 16, 4, 4, 1), (32, 64, 16, 4, 4, 1), (64, 32, 16, 4, 4, 1), (64, 64, 16, 4, 4, 1),
    (64, 64, 16, 8, 4, 1), (64, 64, 8, 8, 8, 1), (128, 64, 8, 8, 8, 1), (64, 128, 8, 8, 8, 1),
    (32, 32, 32, 4, 4, 1), (32, 64, 32, 4, 4, 1), (64, 64, 32, 8, 4, 1),
    (32, 32, 16, 4, 4, 2), (32, 32, 16, 4, 4, 4), (32, 32, 32, 4, 4, 4), (32, 64, 16, 4, 4, 2),
    (32, 64, 16, 4, 4, 4), (64, 64, 16, 8, 4, 2), (64, 64, 16, 8, 8, 2), (64, 32, 16, 4, 4, 2),
]
SPLITS = (1, 2, 3, 4, 6, 8, 12, 16)


_MODULES: dict = {}


class _Stream:
    """A raw stream handle as the CUDA stream protocol hands it to cupy."""

    def __init__(self, handle: int):
        self.handle = handle

    def __cuda_stream__(self):
        return (0, self.handle)


def kernels(tile: tuple[int, ...], a_trans: bool) -> tuple[Any, Any, Any]:
    """(sgemm, sum_partials, empty) compiled for one tile shape and layout of A, once."""
    key = (tile, a_trans)
    if key not in _MODULES:
        opts = tuple(f"-D{n}={v}" for n, v in zip(("BM", "BN", "BK", "TM", "TN", "KG"), tile)) + (
            f"-DA_TRANS={int(a_trans)}", "-arch=sm_90")
        mod = cupy.RawModule(code=SOURCE, options=opts)
        _MODULES[key] = (mod.get_function("sgemm"), mod.get_function("sum_partials"), mod.get_function("empty"))
    return _MODULES[key]


def run_case(name: str, m: int, k: int, n: int, a_trans: bool, alpha: float, beta: float) -> None:
    """Checks and times every tile × split × reduction against cuBLAS for one product; prints
    the fastest, the best of each tile, and the best one's kernels timed apart."""
    flops = 2 * m * n * k
    X = torch.randn(k, m, device="cuda") if a_trans else torch.randn(m, k, device="cuda")
    A = X.t() if a_trans else X
    B = torch.randn(k, n, device="cuda")
    C0 = torch.randn(m, n, device="cuda")
    ref = (alpha * (A.double() @ B.double()) + beta * C0.double())
    C = C0.clone()
    W = torch.empty(16 * m * n, device="cuda")
    counters = torch.zeros(4096, dtype=torch.int32, device="cuda")
    lda = m if a_trans else k
    cA, cB, cC, cW, cK = (cupy.asarray(t) for t in (X, B, C, W, counters))

    def torch_launch(stream: int) -> None:
        if beta == 0.0:
            torch.mm(A, B, out=C)
        else:
            C.addmm_(A, B, alpha=alpha, beta=beta)

    t_torch = graph_us(torch_launch)
    rows = []
    for tile, splits, mode in itertools.product(TILES, SPLITS, ("2k", "fix")):
        if splits == 1 and mode == "fix":
            continue
        bm, bn, bk = tile[:3]
        kchunk = -(-(-(-k // splits)) // bk) * bk
        real = -(-k // kchunk)
        if real != splits:
            continue
        gemm, reduce_, _ = kernels(tile, a_trans)
        threads = (bm // tile[3]) * (bn // tile[4]) * tile[5]
        grid = (-(-n // bn), -(-m // bm), splits)
        if grid[0] * grid[1] > 4096:
            continue
        counter_arg = cK if mode == "fix" else cupy.uint64(0)
        args = (cA, cB, cC, cW, counter_arg, cupy.int32(m), cupy.int32(n), cupy.int32(k), cupy.int32(lda),
                cupy.int32(n), cupy.int32(n), cupy.float32(alpha), cupy.float32(beta), cupy.int32(kchunk),
                cupy.int32(splits))

        def launch(st, args=args, grid=grid, threads=threads, splits=splits, mode=mode):
            with cupy.cuda.Stream.from_external(_Stream(st)):
                gemm(grid, (threads,), args)
                if splits > 1 and mode == "2k":
                    reduce_((-(-m * n // 1024),), (256,), (cW, cC, cupy.int32(m), cupy.int32(n), cupy.int32(n),
                                                          cupy.float32(alpha), cupy.float32(beta), cupy.int32(splits)))
        # correctness: one launch from C0, poisoned workspace
        C.copy_(C0)
        W.fill_(float("nan"))
        launch(torch.cuda.current_stream().cuda_stream)
        torch.cuda.synchronize()
        err = ((C.double() - ref).norm() / ref.norm()).item()
        C.copy_(C0)
        launch(torch.cuda.current_stream().cuda_stream)
        torch.cuda.synchronize()
        C1 = C.clone()
        C.copy_(C0)
        launch(torch.cuda.current_stream().cuda_stream)
        torch.cuda.synchronize()
        same = bool(torch.equal(C, C1))
        if not err < 1e-5 or not same:
            print(f"  WRONG {name} {tile} S={splits} {mode}: rel err {err:.2e}, repeatable {same}", flush=True)
            continue
        us = graph_us(launch)
        rows.append((us, tile, splits, mode, err, launch, gemm, args, grid, threads))
    t_torch_again = graph_us(torch_launch)
    rows.sort(key=lambda r: r[0])
    print(f"\n{name}: m={m} k={k} n={n} ({'A transposed' if a_trans else 'nn'}, alpha={alpha}, beta={beta})")
    print(f"  torch.mm (cuBLAS) in graph: {t_torch:6.2f} µs  {flops / t_torch / 1e6:5.1f} TFLOP/s "
          f"(again after the sweep: {t_torch_again:.2f} µs)")
    best_by_tile = {}
    for r in rows:
        best_by_tile.setdefault(r[1], r)
    for r in rows[:12]:
        us, tile, splits, mode, err = r[:5]
        print(f"  {str(tile):25s} S={splits:2d} {mode:3s}: {us:6.2f} µs  {flops / us / 1e6:5.1f} TFLOP/s  "
              f"{us / t_torch:4.2f}× cuBLAS  err {err:.1e}")
    best_fix = next((r for r in rows if r[3] == "fix"), None)
    if best_fix:
        print(f"  best with the last block summing (fix): {best_fix[1]} S={best_fix[2]}: {best_fix[0]:.2f} µs "
              f"{best_fix[0] / t_torch:4.2f}×")
    print("  best per tile:")
    for tile, r in sorted(best_by_tile.items(), key=lambda kv: kv[1][0]):
        print(f"    {str(tile):25s} S={r[2]:2d} {r[3]:3s}: {r[0]:6.2f} µs  {r[0] / t_torch:4.2f}×")
    _, tile, splits, _, _, _, gemm, args, grid, threads = rows[0]
    _, reduce_, empty = kernels(tile, a_trans)

    def gemm_only(st):
        with cupy.cuda.Stream.from_external(_Stream(st)):
            gemm(grid, (threads,), args)

    def reduce_only(st):
        with cupy.cuda.Stream.from_external(_Stream(st)):
            reduce_((-(-m * n // 1024),), (256,), (cW, cC, cupy.int32(m), cupy.int32(n), cupy.int32(n),
                                                   cupy.float32(alpha), cupy.float32(beta), cupy.int32(splits)))

    def empty_only(st):
        with cupy.cuda.Stream.from_external(_Stream(st)):
            empty((1,), (32,), ())
    print(f"  the best split apart: its gemm kernel alone {graph_us(gemm_only):.2f} µs, its sum of "
          f"{splits} partials alone {graph_us(reduce_only):.2f} µs, an empty kernel {graph_us(empty_only):.2f} µs")


def main() -> None:
    torch.backends.cuda.matmul.allow_tf32 = False
    print(torch.cuda.get_device_name(), flush=True)
    run_case("X·W1", 256, 784, 512, False, 1.0, 0.0)
    run_case("W1 − lr·Xᵀ·δ1", 784, 256, 512, True, -0.01, 1.0)


if __name__ == "__main__":
    main()
