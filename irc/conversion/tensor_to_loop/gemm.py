"""The loop kernel of matrix products, out = alpha·op(A)·op(B) + beta·C (m×k times k×n), in
the manner of BLIS/GotoBLAS, for any layout of A and B (a transposed view only changes the
order of a copy; no transpose is ever materialized):

1. `pack_panels` / `pack_tiles`: B is copied into panels of NR columns, `Bp[p, q, t] =
   B[q, p·NR + t]`, and a transposed A into tiles of MR rows, `Ap[s, q, r] = A[s·MR + r, q]`
   (zero past column n / row m), each copy walking its source along the contiguous axis. In
   the inner loop every step then reads NR consecutive elements of B and MR of A, whatever
   the layouts. A row-major A is read where it lies: its MR rows are MR sequential streams
   that stay in L1 and L2 as well as a packed tile (the copy cost 70 µs of 1170 on
   256x784x512), while a transposed A read in place strides a row of A per step.
2. One parallel loop over blocks of the output — up to GEMM_BLOCK_ROWS rows (fewer for small
   products, so there are GEMM_MIN_BLOCKS blocks; the tiles shared evenly between the row
   blocks, so no short last block unbalances the threads) by GEMM_BLOCK_COLUMNS columns — numbered
   column block by column block, so that each thread uses the panels of B it packed itself.
3. In a block, k is cut into equal slices of at most GEMM_KC: the KC×NR slice of a panel of B stays in L1
   while every tile of the block passes over it; the block's KC×rows slice of A stays in L2.
4. `_tile_to_scratch`, the micro-kernel: over the slice, an MR×NR tile of sums in registers,
   updated by MR·NR `fma`s per step — one `loop.gemm_tile` op, which code generation
   writes as MR vector `fma`s (integers: multiplies and adds) of NR lanes per step (written as
   MR·NR scalar `fma`s in `iter_args`, for LLVM's SLP vectorizer to widen, the tiles were most
   of a training step's cold compile). The tile is an `irc.kernel`: compiled once,
   as a function of its own, for every product of its dtype, tile shape and layout of A (LLVM
   spent ~75% of a training step's cold compile on ten copies of it). The tile is stored into a small scratch
   buffer, and a copy loop with run-time bounds writes its valid rows and columns to out:
   alpha·tile + beta·C on the first slice (beta·C folded into the scratch tile first, so no
   loop reads C while writing out), out + alpha·tile on the later ones (so C may be
   out's own storage: an in-place update W ← W − lr·g; the lines of C's tile are prefetched
   before the tile's loop, so that this read does not wait on L3). Partial tiles need no
   special kernel.
5. An epilogue function (`tanh` of a hidden layer) is applied as each tile is written on the
   last slice of k, while the tile is in L1 (tanh of the 256×512 hidden layer: 40 µs of one
   core; 60–90 µs as a separate pass over each block).
6. For n ≤ NR/2 (the classes of a softmax layer) the same kernel runs with half-width tiles,
   one vector wide (see `gemm`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ...dialects import loop as L
from ...dialects.builtin import MemRefType
from ...ir.attributes import IntegerAttr
from ...ir.core import Value
from ...ir.types import ScalarType
from ..loop_builder import Index, LoopBuilder
from .context import FuncLowering
from .linalg_common import Load2, named, scale
from .simd import SimdRegisters

GEMM_MAX_MR = 12           # rows of a register tile at most (12 with AVX-512's 32 registers)
GEMM_TILE_VECTORS = 2      # columns of a register tile: two vectors (AVX-512: 32 f32, 16 f64)
GEMM_MAX_LANES = 32        # and at most this many columns (f16, i8: the tile stays small)
GEMM_SPARE_REGISTERS = 4   # vector registers left for B's row of the tile and A's broadcast
GEMM_KC = 256              # k per slice: a slice of a panel (KC·NR: 32 KiB in f32) stays in L1
GEMM_BLOCK_ROWS = 96       # output rows per parallel block (8 tiles of 12; a KC×96 slice of A in L2)
GEMM_BLOCK_COLUMNS = 256   # output columns per parallel block
GEMM_MIN_BLOCKS = 8        # fewer rows per block when that leaves fewer parallel blocks


def tile_shape(element: ScalarType, simd: SimdRegisters) -> tuple[int, int]:
    """(MR, NR) of the register tile: NR = two vectors of `element`, MR rows so that the MR·2
    sums and the spare registers fit the register file (AVX-512: 12×32 f32 in 24 of 32 zmm;
    AVX2: 6×16 f32 in 12 of 16 ymm)."""
    lanes = max(1, simd.bytes // max(1, element.bitwidth // 8))
    NR = max(1, min(GEMM_MAX_LANES, GEMM_TILE_VECTORS * lanes))
    vectors = max(1, -(-NR // lanes))
    MR = max(1, min(GEMM_MAX_MR, (simd.count - GEMM_SPARE_REGISTERS) // vectors))
    return MR, NR


def fitted_rows(lb: LoopBuilder, m: Index, MR: int) -> int:
    """Rows of a register tile for a product of a static m rows: of MR and the four sizes
    below it, the one that pads m least (LeNet's 50 filters: 5 tiles of 10, not 60 rows in 12s;
    ties to the larger). MR itself when m is known only at run time."""
    rows = lb.static_value(m)
    if rows is None or rows <= 0:
        return MR
    return min(range(max(1, MR - 4), MR + 1), key=lambda r: (-(-rows // r) * r, -r))


def ceil_div(lb: LoopBuilder, a: Index, b: int) -> Index:
    return lb.floordiv(lb.add(a, lb.const(b - 1)), lb.const(b))


@dataclass
class Product:
    """What one product computes: out = f(alpha·A·B + beta·C), A m×k and B k×n read through
    `a[i, q]` and `load_b` (`*_transposed`: that matrix's columns are its contiguous axis, so its
    packing walks them), C through `load_c` (None: no accumulator), f the `epilogue` function
    of the elementwise table (None: the identity)."""

    a: Value
    a_transposed: bool
    load_b: Load2
    b_transposed: bool
    m: Index
    k: Index
    n: Index
    out: Value
    element: ScalarType
    alpha: float
    load_c: Load2 | None
    beta: float
    epilogue: str | None
    prefetch_c: Callable[[Index, Index], None] | None = None

    @property
    def reads_c(self) -> bool:
        """Whether beta·C is added (C is read on the first slice of k)."""
        return self.load_c is not None and self.beta != 0


def gemm(ctx: FuncLowering, a: Value, a_transposed: bool, load_b: Load2, b_transposed: bool,
         m: Index, k: Index, n: Index, out: Value, element: ScalarType, alpha: float,
         load_c: Load2 | None, beta: float, epilogue: str | None = None,
         prefetch_c: Callable[[Index, Index], None] | None = None, fit_rows: bool = False) -> None:
    """out[i, j] = f(alpha·Σ_q A[i,q]·B[q,j] (+ beta·C[i,j])) into the contiguous m×n `out`
    (see `Product`); f is applied to each block once its last slice of k is in, while the block
    is still in cache.

    Two kernels, one picked at run time (the loop dialect has no branch: a 0/1 factor on the
    trip counts of the other makes it run zero times): the NR-column tile, and for n ≤ NR/2
    (the classes of a softmax layer) a half-width tile, one vector wide, so that a skinny
    product does not compute three columns for each one it keeps. `fit_rows`: tiles of
    `fitted_rows` rows (for a product run many times over, as a convolution's per image)."""
    lb = ctx.lb
    p = Product(a, a_transposed, load_b, b_transposed, m, k, n, out, element, alpha,
                load_c, beta, epilogue, prefetch_c)
    MR, NR = tile_shape(element, ctx.simd)
    if fit_rows:
        MR = fitted_rows(lb, m, MR)
    one, half = lb.const(1), NR // 2
    if half < 1:
        _product(ctx, p, MR, NR, one, may_pack_a=True)
        return
    narrow = lb.max(lb.const(0), lb.min(one, lb.sub(lb.const(half + 1), n)))
    known = lb.static_value(narrow)  # n known when the function is built: only its kernel is emitted
    if known != 1:
        _product(ctx, p, MR, NR, lb.sub(one, narrow), may_pack_a=True)
    if known != 0:
        _product(ctx, p, MR, half, narrow, may_pack_a=False)


def gemm_packed(ctx: FuncLowering, a: Value, packed_b: Value, panels: Index, m: Index, k: Index, n: Index,
                out: Value, element: ScalarType, load_c: Load2 | None = None, beta: float = 0.0,
                epilogue: str | None = None) -> None:
    """`gemm` of a row-major A (read in place) by a B that the caller already wrote in the
    panel layout of `pack_panels` (`panel_width` columns a panel, zero past column n): a
    convolution's im2col writes the panels itself, so B is copied once, not twice. Its tiles
    have `fitted_rows` rows."""
    p = Product(a, False, lambda q, j: None, False, m, k, n, out, element, 1.0, load_c, beta, epilogue)
    MR, NR = tile_shape(element, ctx.simd)
    MR = fitted_rows(ctx.lb, m, MR)
    _product(ctx, p, MR, NR, ctx.lb.const(1), may_pack_a=False, packed=(packed_b, panels))


def panel_width(ctx: FuncLowering, element: ScalarType) -> int:
    """Columns in a panel of B (NR of the register tile) on this target."""
    return tile_shape(element, ctx.simd)[1]


def _product(ctx: FuncLowering, p: Product, MR: int, NR: int, enabled: Index, may_pack_a: bool,
             packed: tuple[Value, Index] | None = None) -> None:
    """The product with MR×NR register tiles, when `enabled` is 1 (0: every loop runs zero
    times). A is packed only when it is transposed and more than one panel of B reads each of
    its tiles (for n ≤ NR the copy would cost as much as the product); else the tiles read A
    where it lies (its rows clamped to m - 1 in the last one). `packed`: B's panels and their
    number, already written (else B is packed here)."""
    lb = ctx.lb
    m, k, n, element = p.m, p.k, p.n, p.element
    one, zero = lb.const(1), lb.const(0)
    if packed is None:
        packed_b, panels = pack_panels(ctx, p.load_b, p.b_transposed, k, n, element, NR, enabled)
    else:
        packed_b, panels = packed
    tiles = ceil_div(lb, m, MR)
    may_pack_a = may_pack_a and p.a_transposed
    packs = lb.max(zero, lb.min(one, lb.sub(panels, one))) if may_pack_a else zero
    tiled_a = pack_tiles(ctx, lambda i, q: lb.load(p.a, [i, q]), p.a_transposed, m, k, element, MR, packs) if may_pack_a else None
    panels_per_block = max(1, GEMM_BLOCK_COLUMNS // NR)
    column_blocks = ceil_div(lb, panels, panels_per_block)
    tiles_per_block = _tiles_per_block(lb, tiles, column_blocks, GEMM_BLOCK_ROWS // MR)
    row_blocks = lb.floordiv(lb.add(tiles, lb.sub(tiles_per_block, one)), tiles_per_block)
    blocks = lb.mul(row_blocks, column_blocks)
    scratch = lb.alloc(MemRefType((None, MR, NR), element), [blocks])
    scratch.name_hint = "tile"
    slices = lb.max(one, ceil_div(lb, k, GEMM_KC))  # k = 0 still writes beta·C
    kc = lb.max(one, lb.floordiv(lb.add(k, lb.sub(slices, one)), slices))  # equal slices, none short
    last_row = lb.sub(m, one)
    with lb.parallel([blocks]) as (blk,):
        bi, bj = _block_coordinates(lb, named(blk, "blk"), row_blocks)
        # the tiles shared out evenly (blocks differ by one tile at most, none is left short)
        t0 = lb.floordiv(lb.mul(bi, tiles), row_blocks)
        t1 = lb.floordiv(lb.mul(lb.add(bi, one), tiles), row_blocks)
        p0 = lb.mul(bj, lb.const(panels_per_block))
        p1 = lb.min(lb.add(p0, lb.const(panels_per_block)), panels)
        with lb.for_(zero, slices) as kb:
            q0 = lb.mul(named(kb, "kb"), kc)
            q1 = lb.min(lb.add(q0, kc), k)
            later = lb.scalar("gt", [kb.iv, zero])
            first_slice = lb.max(zero, lb.sub(one, kb.iv))  # 1 on the first slice, else 0
            last_slice = (lb.max(zero, lb.sub(kb.iv, lb.sub(slices, lb.const(2))))  # 1 on the last
                          if p.epilogue is not None else None)
            with lb.for_(p0, p1) as pn:
                first_col = lb.mul(named(pn, "p"), lb.const(NR))
                width = lb.min(lb.const(NR), lb.sub(n, first_col))

                def tiles_of(count: Index, direct: bool) -> None:
                    """The block's tiles, their A packed or read in place; then their valid
                    rows and columns to out."""
                    with lb.for_(t0, lb.add(t0, count)) as s:
                        first_row = lb.mul(named(s, "s"), lb.const(MR))
                        height = lb.min(lb.const(MR), lb.sub(m, first_row))
                        prefetch = p.prefetch_c is not None and p.reads_c
                        if direct or prefetch:  # the tile's rows, the last one repeated past m
                            rows = [lb.min(lb.add(first_row, lb.const(r)), last_row) for r in range(MR)]
                        if direct:  # A[rows[r], q]
                            a_rows = TileRows(p.a, [[rows[r], zero] for r in range(MR)], 1)
                        else:  # the packed tile: tiled_a[s, q, r]
                            a_rows = TileRows(tiled_a, [[s.iv, zero, lb.const(r)] for r in range(MR)], 1)
                        if prefetch:
                            _prefetch_c_tile(lb, p, rows, first_col, NR, first_slice)
                        _tile_to_scratch(lb, a_rows, packed_b, pn.iv, q0, q1, MR, NR, scratch, blk, element)
                        _write_tile(lb, scratch, blk, first_row, height, first_col, width, p, later, first_slice,
                                    last_slice)

                block_tiles = lb.sub(t1, t0)
                if may_pack_a:
                    tiles_of(lb.mul(block_tiles, packs), direct=False)
                tiles_of(lb.mul(block_tiles, lb.sub(one, packs)), direct=True)


def _write_tile(lb: LoopBuilder, scratch: Value, blk: Index, first_row: Index, height: Index,
                first_col: Index, width: Index, p: Product, later: Value, first_slice: Index,
                last_slice: Index | None) -> None:
    """out = alpha·tile + beta·C on the first slice of k (`later` false), out + alpha·tile on
    the others, over the tile's valid `height` rows and `width` columns; on the last slice the
    epilogue f is applied as the tile is written (a loop of its own, which runs on that slice
    only), not in a second pass over the block.

    beta·C is first folded into the scratch tile (a loop that runs on the first slice only), so
    that no loop both reads C and writes out: in an update in place C is out's own storage, and
    the vectorizer's run-time overlap check then sent such a loop down its scalar path (an
    in-place W1 − lr·Xᵀ·δ took 190 µs more than the plain product)."""
    folded = p.reads_c
    if folded:
        with lb.for_(lb.const(0), lb.mul(height, first_slice)) as r:
            with lb.for_(lb.const(0), width) as t:
                idx = [blk, named(r, "r"), named(t, "t")]
                c = scale(lb, p.load_c(lb.add(first_row, r.iv), lb.add(first_col, t.iv)), p.beta)
                lb.store(lb.scalar("add", [scale(lb, lb.load(scratch, idx), p.alpha), c]), scratch, idx)
    passes = [(height, None)]
    if last_slice is not None:
        passes = [(lb.mul(height, lb.sub(lb.const(1), last_slice)), None),
                  (lb.mul(height, last_slice), p.epilogue)]
    for rows, f in passes:
        with lb.for_(lb.const(0), rows) as r:
            with lb.for_(lb.const(0), width) as t:
                i = lb.add(first_row, named(r, "r"))
                j = lb.add(first_col, named(t, "t"))
                tile = lb.load(scratch, [blk, r.iv, t.iv])
                added = lb.scalar("add", [lb.load(p.out, [i, j]), scale(lb, tile, p.alpha)])
                start = tile if folded else scale(lb, tile, p.alpha)
                v = lb.scalar("select", [later, added, start])
                lb.store(lb.scalar(f, [v]) if f else v, p.out, [i, j])


def _prefetch_c_tile(lb: LoopBuilder, p: Product, rows: list[Index], first_col: Index, NR: int,
                     first_slice: Index) -> None:
    """On the first slice of k, ask for the cache lines of C's tile (each row's first, middle
    and last element, clamped to C) before the tile's products, so that beta·C, read when the
    tile is written, comes from L1 instead of L3: an update in place reads all of W this way
    (2-thread `W1 − lr·Xᵀ·δ`, 784×256×512: 645 → 610 µs)."""
    last_col = lb.sub(p.n, lb.const(1))
    per_line = max(1, 64 // max(1, p.element.bitwidth // 8))  # elements in a 64-byte line
    columns = [lb.min(lb.add(first_col, lb.const(t)), last_col) for t in sorted({*range(0, NR, per_line), NR - 1})]
    with lb.for_(lb.const(0), first_slice):
        for row in rows:
            for col in columns:
                p.prefetch_c(row, col)


def _tiles_per_block(lb: LoopBuilder, tiles: Index, column_blocks: Index, most: int) -> Index:
    """Tiles per parallel block: `most` (the L2-sized block), fewer when that would leave fewer
    than GEMM_MIN_BLOCKS blocks — a small or skinny product still splits evenly over the
    threads, and a worker that wakes late loses only small blocks to the others."""
    want = ceil_div(lb, lb.mul(tiles, column_blocks), GEMM_MIN_BLOCKS)
    return lb.max(lb.const(1), lb.min(lb.const(most), want))


def _block_coordinates(lb: LoopBuilder, blk: Index, row_blocks: Index) -> tuple[Index, Index]:
    """(row block, column block) of parallel block `blk`, numbered column-major: a thread's
    contiguous range of blocks covers whole column blocks, i.e. the panels of B that the same
    thread packed (the packing splits the panels the same way), so no thread reads a panel
    from another core's cache; A, read where it lies, is only read and is shared cleanly.
    Numbered row-major (as before, when m ≥ n) every thread read every panel, half of them
    packed on the other core: 2-thread 512³ ran 10% slower, 1024³ 4% (1 thread: no change)."""
    bj = lb.floordiv(blk, row_blocks)
    return lb.sub(blk, lb.mul(bj, row_blocks)), bj


def pack_tiles(ctx: FuncLowering, load_a: Load2, a_transposed: bool, m: Index, k: Index,
               element: ScalarType, MR: int, packs: Index) -> Value:
    """A copied into ceil(m/MR) tiles, `Ap[s, q, r] = A[s·MR + r, q]`, zero past row m, when
    `packs` is 1 (else an empty buffer). Parallel over tiles; the copy walks A along its
    contiguous axis."""
    lb = ctx.lb
    packed_tiles = lb.mul(ceil_div(lb, m, MR), packs)
    packed = lb.alloc(MemRefType((None, None, MR), element), [packed_tiles, k])
    packed.name_hint = "tiles"
    _pack(lb, packed, packed_tiles, load_a, a_transposed, m, k, element, MR)
    return packed


def pack_panels(ctx: FuncLowering, load_b: Load2, b_transposed: bool, k: Index, n: Index,
                element: ScalarType, NR: int, enabled: Index) -> tuple[Value, Index]:
    """B copied into ceil(n/NR) panels (none when `enabled` is 0), `Bp[p, q, t] =
    B[q, p·NR + t]`, zero past column n; returns (Bp, number of panels): the packing of Bᵀ's
    rows, which is `pack_tiles` of Bᵀ."""
    lb = ctx.lb
    panels = lb.mul(ceil_div(lb, n, NR), enabled)
    packed = lb.alloc(MemRefType((None, None, NR), element), [panels, k])
    packed.name_hint = "panels"
    _pack(lb, packed, panels, lambda t, q: load_b(q, t), not b_transposed, n, k, element, NR)
    return packed, panels


def _pack(lb: LoopBuilder, packed: Value, groups: Index, load: Load2, across_lines: bool,
          lines: Index, k: Index, element: ScalarType, width: int) -> None:
    """packed[g, q, w] = load(g·width + w, q) for w below the valid `lines`, else 0. Along the
    source's contiguous axis (`across_lines`) each step q copies one run of the source; else
    the group's `width` lines are read side by side (see `_pack_side_by_side`)."""
    with lb.parallel([groups]) as (g,):
        g = named(g, "g")
        if across_lines:
            _pack_runs(lb, packed, g, load, lines, k, element, width)
        else:
            _pack_side_by_side(lb, packed, g, load, lines, k, element, width)


def _pack_runs(lb: LoopBuilder, packed: Value, g: Index, load: Load2, lines: Index, k: Index,
               element: ScalarType, width: int) -> None:
    """Group g of `_pack` from a source whose lines run along its contiguous axis: each step q
    copies the group's run of the source, then zeros past the valid lines."""
    zero = lb.const(0)
    first = lb.mul(g, lb.const(width))
    valid = lb.min(lb.const(width), lb.sub(lines, first))
    for lo, hi, fill in ((zero, valid, True), (valid, lb.const(width), False)):
        with lb.for_(zero, k) as o:
            with lb.for_(lo, hi) as i:
                q, w = named(o, "q"), named(i, "w")
                v = load(lb.add(first, w), q) if fill else lb.scalar_const(0, element)
                lb.store(v, packed, [g, q, w])


def _pack_side_by_side(lb: LoopBuilder, packed: Value, g: Index, load: Load2, lines: Index, k: Index,
                       element: ScalarType, width: int) -> None:
    """Group g of `_pack` from a source whose lines are its contiguous rows: each step q reads
    the `width` rows side by side (past the valid lines, the last one again, its value replaced
    by 0), so the loop over w is unrolled and a step's stores are one contiguous run, not the
    scatter that vectorizing along q would make."""
    first = lb.mul(g, lb.const(width))
    valid = lb.min(lb.const(width), lb.sub(lines, first))
    last = lb.sub(lines, lb.const(1))
    rows = [lb.min(lb.add(first, lb.const(w)), last) for w in range(width)]
    keep = [lb.scalar("lt", [lb.const(w), valid]) for w in range(width)]
    zero = lb.scalar_const(0, element)
    with lb.for_(lb.const(0), k) as o:
        q = named(o, "q")
        for w in range(width):
            lb.store(lb.scalar("select", [keep[w], load(rows[w], q), zero]), packed, [g, q, lb.const(w)])


def multiply_add(lb: LoopBuilder, a: Value, b: Value, c: Value) -> Value:
    """a·b + c: one `fma` for floats (one instruction), mul and add for integers."""
    if a.type.is_float:
        return lb.scalar("fma", [a, b, c])
    return lb.scalar("add", [c, lb.scalar("mul", [a, b])])


@dataclass
class TileRows:
    """Where a register tile reads A: row r at step q is `memref[indices[r]]` with q on `axis`
    (A's rows in place, or a packed tile of A)."""

    memref: Value
    indices: list[list[Index]]
    axis: int

    def load(self, lb: LoopBuilder, r: int, q: Index) -> Value:
        at = list(self.indices[r])
        at[self.axis] = q
        return lb.load(self.memref, at)


def _tile_to_scratch(lb: LoopBuilder, a_rows: TileRows, packed_b: Value, p: Index, q0: Index, q1: Index,
                     MR: int, NR: int, scratch: Value, blk: Index, element: ScalarType) -> None:
    """scratch[blk, r, t] = Σ_{q0≤q<q1} A(r, q)·Bp[p, q, t] for every r < MR, t < NR (A as
    `a_rows` reads it), each sum in the order of q: one `loop.gemm_tile`, which code generation
    writes as NR-lane vector `fma`s (one op instead of MR·NR scalar ones: most of a training
    step's cold compile was LLVM widening them); booleans: `_scalar_tile`. An `irc.kernel`:
    one compiled copy for every product of its dtype, tile shape and layout of A."""
    with lb.kernel(f"gemm tile {MR}x{NR}"):
        if not element.is_bool:
            flat = [i for row in a_rows.indices for i in row]
            lb.b.create(L.GemmTileOp, [a_rows.memref, *flat, packed_b, p, q0, q1, scratch, blk],
                        {"mr": IntegerAttr(MR), "nr": IntegerAttr(NR), "axis": IntegerAttr(a_rows.axis)},
                        result_types=[])
        else:
            _scalar_tile(lb, a_rows, packed_b, p, q0, q1, MR, NR, scratch, blk, element)


def _scalar_tile(lb: LoopBuilder, a_rows: TileRows, packed_b: Value, p: Index, q0: Index, q1: Index,
                 MR: int, NR: int, scratch: Value, blk: Index, element: ScalarType) -> None:
    """The tile as scalar loop IR: one loop over the slice carries the MR×NR sums in
    `iter_args` (registers). Not marked `reduction`: each sum keeps its order."""
    zero = lb.scalar_const(0, element)
    with lb.for_(q0, q1, inits=[zero] * (MR * NR)) as loop:
        q = named(loop, "q")
        b = [lb.load(packed_b, [p, q, lb.const(t)]) for t in range(NR)]
        sums = []
        for r in range(MR):
            a = a_rows.load(lb, r, q)
            for t in range(NR):
                sums.append(multiply_add(lb, a, b[t], loop.iter_args[r * NR + t]))
        lb.yield_(loop, sums)
    for r in range(MR):
        for t in range(NR):
            lb.store(loop.results[r * NR + t], scratch, [blk, lb.const(r), lb.const(t)])
