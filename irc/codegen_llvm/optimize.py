"""The new pass manager's default pipelines, shared by the host (O2) and NVPTX (O3) targets: a
module is parsed, stamped with its target machine's triple and data layout, verified, then
optimized."""
from __future__ import annotations

import llvmlite.binding as llvm
from llvmlite import ir


def parse_and_optimize(module: ir.Module | str, tm: "llvm.TargetMachine", speed_level: int = 3,
                       vectorize: bool = False) -> "llvm.ModuleRef":
    """`module` (or its text) parsed and optimized at O`speed_level` for `tm`, with loop unrolling; `vectorize`
    also turns on the loop and SLP vectorizers (the host wants them; NVPTX keeps LLVM's
    defaults)."""
    mod = llvm.parse_assembly(str(module))
    mod.triple = tm.triple
    mod.data_layout = str(tm.target_data)
    mod.verify()
    pto = llvm.create_pipeline_tuning_options()
    pto.speed_level = speed_level
    if vectorize:
        pto.loop_vectorization = True
        pto.slp_vectorization = True
    pto.loop_unrolling = True
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)
    return mod
