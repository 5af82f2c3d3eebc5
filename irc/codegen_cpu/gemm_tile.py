"""`loop.gemm_tile` as vector code: the register tile of a product written directly as what
LLVM's SLP vectorizer used to make of mr·nr scalar `fma`s — per step q one `nr`-lane vector of
the packed panel, and per row r one broadcast of A and one vector `fma` into that row's sums:

    tile.body:  %b = load <32 x float>, ptr %bp.q
                %a.r = load float, ptr %a.r.q               ; r = 0 .. mr-1
                %s.r' = call <32 x float> @llvm.fma.v32f32(splat %a.r, %b, %s.r)

The `nr`-lane vectors are what the target splits into its registers (two zmm for 32 f32 on
AVX-512, four ymm on AVX2). Each lane's sum is the scalar loop's, in the same order with the
same single rounding per step (integers: the same wrapping multiply and add), so results are
bit for bit the same; the LLVM IR is ~15 lines
per step instead of ~1,000, which is what made the tiles most of a training step's cold
compile.
"""
from __future__ import annotations

from llvmlite import ir

from ..codegen_llvm.mathlib_common import intrinsic
from ..codegen_llvm.memref_desc import I64, MemRef, i64, mul
from ..dialects import loop as L


def emit_gemm_tile(conv, op: L.GemmTileOp) -> None:
    """Emit `op` at `conv`'s builder (`conv`: a `LoopEmitter` whose values map the operands)."""
    b: ir.IRBuilder = conv.b
    a: MemRef = conv.get(op.operand(0))
    bp, p, q0, q1, tile, blk = (conv.get(v) for v in op.rest())
    mr, nr, axis = op.mr, op.nr, op.axis
    elem = a.elem
    align = elem.get_abi_size(conv.target_data)
    vec = ir.VectorType(elem, nr)
    zero = i64(0)
    rows = []  # row r's element at q = 0; step q adds q·stride
    for indices in op.a_indices():
        at = [conv.get(v) for v in indices]
        at[axis] = zero
        rows.append(a.address(b, at))
    a_stride = a.strides[axis]
    panel = bp.address(b, [p, zero, zero])  # bp[p, q, :] is nr contiguous lanes
    b_stride = bp.strides[1]

    pre = b.block
    header, body, done = (b.append_basic_block(n) for n in ("tile.header", "tile.body", "tile.exit"))
    b.branch(header)
    b.position_at_end(header)
    q = b.phi(I64, "q")
    q.add_incoming(q0, pre)
    sums = []
    for _ in range(mr):
        s = b.phi(vec)
        s.add_incoming(ir.Constant(vec, None), pre)  # zeroinitializer
        sums.append(s)
    b.cbranch(b.icmp_signed("<", q, q1), body, done)

    b.position_at_end(body)
    lanes_b = b.load(b.gep(panel, [mul(b, q, b_stride)], inbounds=True, source_etype=elem), typ=vec, align=align)
    offset = mul(b, q, a_stride)
    new = []
    for r in range(mr):
        x = b.load(b.gep(rows[r], [offset], inbounds=True, source_etype=elem), typ=elem, align=align)
        splat = b.shuffle_vector(b.insert_element(ir.Constant(vec, ir.Undefined), x, i64(0)),
                                 ir.Constant(vec, ir.Undefined), ir.Constant(ir.VectorType(ir.IntType(32), nr), None))
        if isinstance(elem, ir.IntType):  # wrapping, as the scalar loop's mul and add
            new.append(b.add(sums[r], b.mul(splat, lanes_b)))
        else:
            new.append(intrinsic(b, "fma", [splat, lanes_b, sums[r]]))
    latch = b.block
    q.add_incoming(b.add(q, i64(1), flags=("nsw",)), latch)
    for s, v in zip(sums, new):
        s.add_incoming(v, latch)
    b.branch(header)

    b.position_at_end(done)
    for r in range(mr):
        b.store(sums[r], tile.address(b, [blk, i64(r), zero]), align=align)
