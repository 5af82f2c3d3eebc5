"""The loop kernel of matrix products, out = alpha·A·B + beta·C (m×k times k×n), register-tiled:

1. `pack_panels`: B is copied into panels of NR columns, `Bp[p, q, t] = B[q, p·NR + t]` (zero
   past column n) — a contiguous buffer whatever B's layout (a transposed B, A·Wᵀ, only
   changes the order of the copy), so each row of a panel is NR consecutive elements that
   LLVM's SLP vectorizer loads as a few full-width vectors.
2. One parallel loop, outermost, over blocks of output rows (one thread dispatch for the whole
   product, after the one of the packing).
   A block is GEMM_GROUP register tiles of MR rows; for each panel, every tile of the block
   uses it in turn while it is in cache (L1/L2: K·NR elements), so B is read from memory
   once per block rather than once per tile.
3. `_tile_to_scratch`, the inner kernel: one loop over the whole of k carries an MR×NR tile of
   sums in `iter_args` — registers. Per step: NR/width vector loads of B and MR scalars of A
   feed MR·NR/width vector multiply-adds; the tile is stored once, at the end, into a small
   scratch buffer, and a copy loop with a run-time bound writes its valid columns to out (with
   alpha and beta·C), so partial last panels need no special kernel.
4. The rows of the last block past a multiple of MR run the same kernel one row at a time.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..dialects.builtin import MemRefType
from ..ir.core import Value
from ..ir.types import ScalarType
from .linalg_common import Line, Load2, axpby, named
from .loop_builder import Index, LoopBuilder

if TYPE_CHECKING:
    from .lower_to_loops import FuncLowering

GEMM_MR = 6                # rows of the output per register tile
GEMM_TILE_BYTES = 128      # columns per tile, in bytes: two 512-bit vectors (32 f32, 16 f64)
GEMM_MAX_LANES = 32        # and at most this many columns (f16, i8: the tile stays small)
GEMM_GROUP = 4             # register tiles per parallel block, sharing each panel of B
GEMM_MIN_BLOCKS = 8        # fewer tiles per block when that leaves fewer parallel blocks


def tile_columns(element: ScalarType) -> int:
    """NR: the columns of a register tile for this element type."""
    return max(1, min(GEMM_MAX_LANES, GEMM_TILE_BYTES // max(1, element.bitwidth // 8)))


def gemm(ctx: FuncLowering, row_a: Line, load_b: Load2, b_transposed: bool, m: Index, k: Index,
         n: Index, out: Value, element: ScalarType, alpha: float, load_c: Load2 | None,
         beta: float) -> None:
    """out[i, j] = alpha·Σ_q A[i,q]·B[q,j] (+ beta·C[i,j]) into the contiguous m×n `out`;
    `row_a` gives A's rows, `load_b` B's elements (B transposed: its columns are contiguous)."""
    lb = ctx.lb
    NR = tile_columns(element)
    packed, panels = pack_panels(ctx, load_b, b_transposed, k, n, element, NR)
    scratch = lb.alloc(MemRefType((None, NR), element), [m])
    scratch.name_hint = "tile"
    MR = lb.const(GEMM_MR)
    height = block_rows(lb, m)
    with lb.parallel([lb.floordiv(lb.add(m, lb.sub(height, lb.const(1))), height)]) as (blk,):
        lo = lb.mul(named(blk, "blk"), height)
        hi = lb.min(lb.add(lo, height), m)
        tiled = lb.add(lo, lb.mul(lb.floordiv(lb.sub(hi, lo), MR), MR))
        with lb.for_(lb.const(0), panels) as p:
            first = lb.mul(named(p, "p"), lb.const(NR))
            width = lb.min(lb.const(NR), lb.sub(n, first))

            def rows_of(first_row: Index, count: int) -> None:
                """One register tile of `count` rows, then its `width` valid columns to out."""
                rows = [lb.add(first_row, lb.const(r)) for r in range(count)]
                lines = [row_a(r) for r in rows]
                _tile_to_scratch(ctx, rows, lines, packed, p.iv, k, NR, scratch, element)
                with lb.for_(first_row, lb.add(first_row, lb.const(count))) as r:
                    with lb.for_(lb.const(0), width) as t:
                        i, j = named(r, "i"), lb.add(first, named(t, "t"))
                        c = load_c(i, j) if load_c is not None else None
                        lb.store(axpby(lb, lb.load(scratch, [i, t.iv]), alpha, c, beta), out, [i, j])

            with lb.for_(lo, tiled, MR) as tile:
                rows_of(named(tile, "r"), GEMM_MR)
            with lb.for_(tiled, hi) as row:  # the last block's m mod MR rows
                rows_of(named(row, "r"), 1)


def block_rows(lb: LoopBuilder, m: Index) -> Index:
    """Rows per parallel block: GEMM_GROUP register tiles, which share each panel of B while
    it is in cache — but fewer when m is small, so that there are about GEMM_MIN_BLOCKS blocks
    for the threads (never less than one tile)."""
    tiles = lb.floordiv(m, lb.const(GEMM_MR * GEMM_MIN_BLOCKS))
    return lb.mul(lb.max(lb.const(1), lb.min(lb.const(GEMM_GROUP), tiles)), lb.const(GEMM_MR))


def pack_panels(ctx: FuncLowering, load_b: Load2, b_transposed: bool, k: Index, n: Index,
                element: ScalarType, NR: int) -> tuple[Value, Index]:
    """B copied into ceil(n/NR) panels, `Bp[p, q, t] = B[q, p·NR + t]`, zero past column n;
    returns (Bp, number of panels). Parallel over panels; the copy walks B along its contiguous
    axis: rows of B, or columns when B is a transposed view."""
    lb = ctx.lb
    nr = lb.const(NR)
    panels = lb.floordiv(lb.add(n, lb.const(NR - 1)), nr)
    packed = lb.alloc(MemRefType((None, None, NR), element), [panels, k])
    packed.name_hint = "panels"
    zero = lb.const(0)
    with lb.parallel([panels]) as (p,):
        first = lb.mul(named(p, "p"), nr)
        width = lb.min(nr, lb.sub(n, first))
        for lo, hi, fill in ((zero, width, True), (width, nr, False)):
            outer, inner = ((lo, hi), (zero, k)) if b_transposed else ((zero, k), (lo, hi))
            with lb.for_(*outer) as o:
                with lb.for_(*inner) as i:
                    q, t = (i, o) if b_transposed else (o, i)
                    q, t = named(q, "q"), named(t, "t")
                    v = load_b(q, lb.add(first, t)) if fill else lb.scalar_const(0, element)
                    lb.store(v, packed, [p, q, t])
    return packed, panels


def _tile_to_scratch(ctx: FuncLowering, rows: list[Index], lines: list, packed: Value, p: Index,
                     k: Index, NR: int, scratch: Value, element: ScalarType) -> None:
    """scratch[r, t] = Σ_q A[r, q]·Bp[p, q, t] for the tile's rows r and every lane t < NR, the
    sums carried in `iter_args` (registers) through one loop over all of k. The loop is not
    marked `reduction`: each sum keeps its order, and vectorization is across the lanes t
    (LLVM's SLP vectorizer), not along q."""
    lb = ctx.lb
    zero = lb.scalar_const(0, element)
    with lb.for_(lb.const(0), k, inits=[zero] * (len(rows) * NR)) as loop:
        q = named(loop, "q")
        b = [lb.load(packed, [p, q, lb.const(t)]) for t in range(NR)]
        sums = []
        for r, line in enumerate(lines):
            a = line(q)
            for t in range(NR):
                sums.append(lb.scalar("add", [loop.iter_args[r * NR + t], lb.scalar("mul", [a, b[t]])]))
        lb.yield_(loop, sums)
    for r, row in enumerate(rows):
        for t in range(NR):
            lb.store(loop.results[r * NR + t], scratch, [row, lb.const(t)])
