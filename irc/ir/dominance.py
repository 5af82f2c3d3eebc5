"""Block dominance in a multi-block region, from the CFG that terminators' successors form.

Used by the verifier (SSA dominance across blocks) and by CSE (which ops a block may reuse).
Single-block regions never need it: program order is dominance there.
"""
from __future__ import annotations

from .core import Block


def immediate_dominators(blocks: list[Block]) -> tuple[dict[int, int], dict[int, int]]:
    """(immediate dominator of each reachable non-entry block, index of each block by id), both
    by block index; the entry block (index 0) has no entry, and neither has an unreachable one."""
    import networkx as nx
    index = {id(blk): k for k, blk in enumerate(blocks)}
    graph = nx.DiGraph()
    graph.add_nodes_from(range(len(blocks)))
    for k, blk in enumerate(blocks):
        if blk.ops:
            for succ in blk.ops[-1].successors:
                j = index.get(id(succ))
                if j is not None:
                    graph.add_edge(k, j)
    idom = dict(nx.immediate_dominators(graph, 0))
    idom.pop(0, None)  # networkx < 3.5 maps the entry to itself
    return idom, index
