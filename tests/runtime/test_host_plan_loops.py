"""Host plans of functions with loops (a device scan's steps): the recorder runs the loop for
the call's sizes, every step's launches in order with their own row views; a buffer a step
frees serves the next step's allocation of its shape (one slot, not one per step), while at
the top level a freed buffer is not reused (a later allocation may be a result, whose storage
the caller may choose)."""
from __future__ import annotations

from irc.ir.parser import parse_module
from irc.runtime.host_plan import Launch, record_plan

HOST = """
func.func @f(%xs: memref<?x?xf32, "cuda">) -> (memref<?xf32, "cuda">) {
  %c0 = loop.constant {value = 0 : index} : index
  %c1 = loop.constant {value = 1 : index} : index
  %n = loop.dim %xs {axis = 0} : (memref<?x?xf32, "cuda">) -> index
  %m = loop.dim %xs {axis = 1} : (memref<?x?xf32, "cuda">) -> index
  %a = loop.alloc %m : (index) -> memref<?xf32, "cuda">
  loop.dealloc %a : memref<?xf32, "cuda">
  loop.for %t = %c0 to %n step %c1 {
    %row = loop.subview %xs, %t, %c0, %c1, %m, %c1, %c1 : (memref<?x?xf32, "cuda">, index, index, index, index, index, index) -> memref<1x?xf32, strided<[?, ?], offset: ?>, "cuda">
    %tmp = loop.alloc %m : (index) -> memref<?xf32, "cuda">
    gpu.launch @step(%m, %row, %tmp) work %m : (index, memref<1x?xf32, strided<[?, ?], offset: ?>, "cuda">, memref<?xf32, "cuda">)
    loop.dealloc %tmp : memref<?xf32, "cuda">
    loop.yield
  }
  %r = loop.alloc %m : (index) -> memref<?xf32, "cuda">
  func.return %r : memref<?xf32, "cuda">
}
"""


def test_a_loop_runs_once_per_step_and_reuses_its_temporaries():
    func = next(op for op in parse_module(HOST).body.ops if op.op_name == "func.func")
    plan = record_plan(func, [(4, 3)], ["float32"])
    launches = [entry for entry in plan.launches if isinstance(entry, Launch)]
    assert len(launches) == 4
    assert [launch.args[1].offset for launch in launches] == [0, 3, 6, 9]  # row t of xs
    temporaries = {launch.args[2].slot for launch in launches}
    assert len(temporaries) == 1  # every step's temporary in one slot
    top, step_slot, result = (a.slot for a in plan.allocs)
    assert temporaries == {step_slot} and len({top, step_slot, result}) == 3  # no reuse outside
    assert plan.results[0].slot == result
    assert len(record_plan(func, [(0, 3)], ["float32"]).launches) == 0
