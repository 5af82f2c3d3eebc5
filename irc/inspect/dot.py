"""`pydotprint`: a picture of a graph — a compiled function, a module or symbolic variables.

The graph is built as a networkx `DiGraph` (nodes carry Graphviz attributes), written as DOT
by hand (no pydot needed) and rendered by Graphviz's `dot` when it is installed. Ops are boxes
coloured by device (cpu blue, gpu green), transfers red, a `tensor.fused` op is drawn as a
cluster holding its scalar ops; inputs are green ellipses, shared variables orange cylinders,
constants grey, outputs blue ellipses (updates name the shared variable they replace).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from typing import Any

import networkx as nx

from ..dialects.func import FuncOp
from ..frontend.opview import view_op

COLORS = {"cpu": "#cfe2f3", "gpu": "#b6d7a8", "transfer": "#ea9999", "fused": "#fff2cc"}
TRANSFER_OPS = ("tensor.to_device", "tensor.to_host")


def _short_type(t: Any) -> str:
    text = str(t)
    return text.replace("tensor<", "<")


def _op_label(op: Any) -> str:
    try:
        name = str(view_op(op))
    except Exception:
        name = op.op_name
    extra = "".join(f"\n{k}={_attr_text(v)}" for k, v in op.attributes.items()
                    if k in ("alpha", "beta", "axes", "kind", "pattern", "to"))
    return f"{name}{extra}"


def _attr_text(a: Any) -> str:
    value = getattr(a, "value", None)
    if isinstance(value, float):
        return f"{value:.4g}"
    text = str(a)
    if text.startswith("array<"):
        return "(" + (text.split(":", 1)[1].strip(" >") if ":" in text else "") + ")"
    return text


def _device(op: Any) -> str:
    if op.op_name in TRANSFER_OPS:
        return "transfer"
    return "gpu" if any(getattr(r.type, "device", None) for r in op.results) else "cpu"


def graph_of_func(func: Any) -> nx.DiGraph:
    """The dataflow graph of one `func.func` (tensor or loop level: top-level ops)."""
    g = nx.DiGraph(name=func.sym_name, clusters={})
    node: dict[int, str] = {}
    block = func.regions[0].blocks[0]
    arg_attrs = _arg_attrs(func)
    for i, a in enumerate(block.args):
        shared = "irc.shared" in arg_attrs[i]
        n = f"arg{i}"
        label = f"{a.name_hint or f'arg{i}'}\n{_short_type(a.type)}"
        g.add_node(n, label=label, shape="cylinder" if shared else "ellipse", style="filled",
                   fillcolor="#f9cb9c" if shared else "#d9ead3")
        node[id(a)] = n
    for k, op in enumerate(block.ops):
        if op.op_name == "func.return":
            _outputs(g, func, op, node)
            continue
        n = f"op{k}"
        if op.op_name in ("tensor.constant", "loop.constant", "loop.global"):
            g.add_node(n, label=_const_label(op), shape="note", style="filled", fillcolor="#eeeeee",
                       fontsize="9")
        elif op.op_name == "tensor.fused":
            _fused(g, op, n)
        else:
            dev = _device(op)
            g.add_node(n, label=_op_label(op), shape="box", style="filled,rounded", fillcolor=COLORS[dev],
                       penwidth="2.5" if dev == "transfer" else "1")
        for r in op.results:
            node[id(r)] = n
        for j, v in enumerate(op.operands):
            src = node.get(id(v))
            if src is not None:
                g.add_edge(src, n, label=_short_type(v.type) if len(op.operands) > 1 else "",
                           fontsize="8")
    return g


def _arg_attrs(func: Any) -> list[dict]:
    attrs = func.attributes.get("arg_attrs")
    n = len(func.regions[0].blocks[0].args)
    if attrs is None:
        return [{} for _ in range(n)]
    out = []
    for a in getattr(attrs, "value", attrs):
        out.append(dict(getattr(a, "value", {}) or {}))
    return out + [{} for _ in range(n - len(out))]


def _const_label(op: Any) -> str:
    attr = op.attributes.get("value")
    text = str(attr) if attr is not None else op.op_name
    return text if len(text) < 40 else text[:37] + "..."


def _fused(g: nx.DiGraph, op: Any, n: str) -> None:
    """The fused op's node plus a cluster of its scalar ops (one box per group)."""
    g.add_node(n, label=f"Fused ({len(op.results)} out)", shape="box3d", style="filled",
               fillcolor=COLORS["fused"])
    members = [n]
    body = op.regions[0].blocks[0]
    inner: dict[int, str] = {}
    for j, a in enumerate(body.args):
        inner[id(a)] = f"{n}_i{j}"
        g.add_node(inner[id(a)], label=f"i{j}", shape="circle", fontsize="8", width="0.3")
        members.append(inner[id(a)])
    for k, sop in enumerate(body.ops):
        s = f"{n}_s{k}"
        label = sop.op_name.split(".", 1)[-1]
        if sop.op_name == "scalar.constant":
            value = getattr(sop.attributes.get("value"), "value", None)
            label = f"{value:.4g}" if isinstance(value, float) else str(value)
        g.add_node(s, label=label, shape="box", fontsize="9", style="rounded")
        members.append(s)
        for r in sop.results:
            inner[id(r)] = s
        for v in sop.operands:
            if id(v) in inner:
                g.add_edge(inner[id(v)], s, style="dashed", arrowsize="0.5")
    g.graph["clusters"][n] = members


def _outputs(g: nx.DiGraph, func: Any, ret: Any, node: dict[int, str]) -> None:
    res_attrs = func.attributes.get("res_attrs")
    attrs = [dict(getattr(a, "value", {}) or {}) for a in getattr(res_attrs, "value", res_attrs or [])]
    args = func.regions[0].blocks[0].args
    for i, v in enumerate(ret.operands):
        a = attrs[i] if i < len(attrs) else {}
        upd = a.get("irc.update")
        n = f"out{i}"
        if upd is not None:
            target = args[int(getattr(upd, "value", upd))].name_hint or "shared"
            g.add_node(n, label=f"update of {target}\n{_short_type(v.type)}", shape="cylinder",
                       style="filled", fillcolor="#f9cb9c")
        else:
            g.add_node(n, label=f"output {i}\n{_short_type(v.type)}", shape="ellipse", style="filled",
                       fillcolor="#c9daf8")
        if id(v) in node:
            g.add_edge(node[id(v)], n)


def graph_of_variables(outputs: list[Any]) -> nx.DiGraph:
    """The symbolic (unoptimized) graph of frontend variables."""
    g = nx.DiGraph(name="graph", clusters={})
    seen: dict[int, str] = {}

    def var(v: Any) -> str:
        if id(v) in seen:
            return seen[id(v)]
        n = f"v{len(seen)}"
        seen[id(v)] = n
        if v.owner is None:
            shared = hasattr(v, "get_value")
            const = hasattr(v, "data") and not shared
            shape = "cylinder" if shared else ("note" if const else "ellipse")
            fill = "#f9cb9c" if shared else ("#eeeeee" if const else "#d9ead3")
            g.add_node(n, label=f"{v}\n{v.type}", shape=shape, style="filled", fillcolor=fill)
            return n
        a = f"a{id(v.owner)}"
        if a not in g:
            g.add_node(a, label=str(v.owner.op), shape="box", style="filled,rounded", fillcolor=COLORS["cpu"])
            for inp in v.owner.inputs:
                g.add_edge(var(inp), a, label=str(inp.type), fontsize="8")
        return a

    for i, o in enumerate(outputs):
        g.add_node(f"out{i}", label=f"output {i}\n{o.type}", shape="ellipse", style="filled",
                   fillcolor="#c9daf8")
        g.add_edge(var(o), f"out{i}")
    return g


def _quote(v: Any) -> str:
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _attrs(d: dict) -> str:
    return ", ".join(f"{k}={_quote(v)}" for k, v in d.items())


def to_dot(g: nx.DiGraph) -> str:
    """DOT text of a graph built here (node/edge data are Graphviz attributes)."""
    lines = [f"digraph {_quote(g.graph.get('name', 'G'))} {{",
             '  graph [rankdir=TB, fontname="Helvetica", nodesep=0.3, ranksep=0.35];',
             '  node [fontname="Helvetica", fontsize=11];', '  edge [fontname="Helvetica", color="#555555"];']
    clustered = set()
    for i, (head, members) in enumerate(g.graph.get("clusters", {}).items()):
        lines.append(f"  subgraph cluster_{i} {{")
        lines.append('    style="rounded,filled"; fillcolor="#fffbe6"; color="#bf9000"; '
                     'label="fused group";')
        for m in members:
            lines.append(f"    {_quote(m)} [{_attrs(g.nodes[m])}];")
            clustered.add(m)
        lines.append("  }")
    for n, d in g.nodes(data=True):
        if n not in clustered:
            lines.append(f"  {_quote(n)} [{_attrs(d)}];")
    for a, b, d in g.edges(data=True):
        lines.append(f"  {_quote(a)} -> {_quote(b)}" + (f" [{_attrs(d)}]" if d else "") + ";")
    return "\n".join(lines) + "\n}\n"


def graph_of(obj: Any) -> nx.DiGraph:
    """A compiled function, a module, a `func.func`, or variable(s)."""
    maker = getattr(obj, "maker", None)
    if maker is not None:
        return graph_of_func(maker.func)
    if getattr(obj, "op_name", None) == "builtin.module":
        funcs = [op for op in obj.regions[0].blocks[0].ops if isinstance(op, FuncOp)]
        return nx.union_all([graph_of_func(f) for f in funcs], rename=[f"{f.sym_name}." for f in funcs]) \
            if len(funcs) > 1 else graph_of_func(funcs[0])
    if getattr(obj, "op_name", None) == "func.func":
        return graph_of_func(obj)
    return graph_of_variables(list(obj) if isinstance(obj, (list, tuple)) else [obj])


def pydotprint(obj: Any, outfile: str | None = None, format: str | None = None,
               print_output_file: bool = True) -> str:
    """Draw `obj`'s graph to `outfile` (format from its extension, default png); returns the
    path written. Without Graphviz's `dot`, writes `<outfile>.dot` instead and says so."""
    outfile = outfile or os.path.join(os.getcwd(), "irc.pydotprint.png")
    fmt = format or (os.path.splitext(outfile)[1][1:] or "png")
    dot_text = to_dot(graph_of(obj))
    if fmt == "dot":
        return _write(outfile, dot_text, print_output_file)
    exe = shutil.which("dot")
    if exe is None:
        path = os.path.splitext(outfile)[0] + ".dot"
        _write(path, dot_text, False)
        print(f"irc.pydotprint: Graphviz's `dot` is not installed; wrote the DOT source to {path} "
              f"(render it with `dot -T{fmt} {path}`)", file=sys.stderr)
        return path
    subprocess.run([exe, f"-T{fmt}", "-o", outfile], input=dot_text.encode(), check=True,
                   capture_output=True)
    if print_output_file:
        print(f"The output file is available at {outfile}")
    return outfile


def _write(path: str, text: str, say: bool) -> str:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    if say:
        print(f"The output file is available at {path}")
    return path
