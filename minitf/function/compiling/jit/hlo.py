"""The graph in XLA's words: HLO-like text (`hlo`, `optimized_hlo`) and a Graphviz drawing (`optimized_hlo_dot`).

Each op is one HLO instruction, `%name = f32[4096,1000]{1,0} opcode(operands)`, with XLA's opcode where
there is one (`AddV2` is `add`, `Tanh` is `tanh`, `MatMul` is `dot`, `Sum` is `reduce`) and a
`custom-call` naming minitf's op elsewhere. After fusion every region is a `fusion` instruction that calls a
`%fused_computation` listing its ops, `kind=kLoop` (elementwise) or `kind=kInput` (ending in a reduction),
as in XLA's optimised HLO.
"""

from __future__ import annotations

from collections.abc import Sequence

from minitf.function.compiling.jit.lowering import REDUCTIONS, scalar_constant
from minitf.function.compiling.jit.rewrite import FUSION
from minitf.function.tracing.func_graph import FuncGraph
from minitf.function.tracing.graph import Operation, SymbolicTensor

OPCODES = {
    "AddV2": "add",
    "Sub": "subtract",
    "Mul": "multiply",
    "RealDiv": "divide",
    "Div": "divide",
    "Neg": "negate",
    "Abs": "abs",
    "Exp": "exponential",
    "Log": "log",
    "Tanh": "tanh",
    "Sqrt": "sqrt",
    "Rsqrt": "rsqrt",
    "Maximum": "maximum",
    "Minimum": "minimum",
    "Sigmoid": "logistic",
    "Log1p": "log-plus-one",
    "Expm1": "exponential-minus-one",
    "Sin": "sine",
    "Cos": "cosine",
    "Less": "compare",
    "LessEqual": "compare",
    "Greater": "compare",
    "GreaterEqual": "compare",
    "Equal": "compare",
    "NotEqual": "compare",
    "LogicalAnd": "and",
    "LogicalOr": "or",
    "LogicalNot": "not",
    "SelectV2": "select",
    "Cast": "convert",
    "BroadcastTo": "broadcast",
    "BroadcastLike": "broadcast",
    "Reshape": "reshape",
    "Transpose": "transpose",
    "MatMul": "dot",
    "Const": "constant",
    "Placeholder": "parameter",
    "Identity": "copy",
    "ConcatV2": "concatenate",
    "Square": "multiply",
    "Relu": "maximum",
    "GatherV2": "gather",
    **dict.fromkeys(REDUCTIONS, "reduce"),
}
SHORT = {
    "float16": "f16",
    "float32": "f32",
    "float64": "f64",
    "int32": "s32",
    "int64": "s64",
    "bool": "pred",
    "resource": "token",
}


def type_of(t: SymbolicTensor, layout: bool = True) -> str:
    """`f32[4096,1000]{1,0}`: element type, dimensions and (row-major) layout; `?` for an unknown size."""
    dims = t.shape.as_list() if t.shape.rank is not None else []
    text = f"{SHORT.get(t.dtype.name, t.dtype.name)}[{','.join('?' if d is None else str(d) for d in dims)}]"
    return text + ("{" + ",".join(str(k) for k in reversed(range(len(dims)))) + "}" if layout and dims else "")


def hlo_name(text: str) -> str:
    return "%" + text.replace("/", ".")


class Names:
    """HLO names for a graph's tensors: the op's name, `.k` for its k-th output."""

    def __init__(self) -> None:
        self.known: dict[int, str] = {}

    def __call__(self, t: SymbolicTensor) -> str:
        return self.known.get(id(t)) or hlo_name(t.op.name if t.value_index == 0 else f"{t.op.name}.{t.value_index}")


def instruction(op: Operation, names: Names, operands: Sequence[SymbolicTensor], root: bool = False) -> str:
    """One op as an HLO instruction, with the TensorFlow op it came from as metadata."""
    out = op.outputs[0]
    head = "ROOT " if root else ""
    args = ", ".join(f"{type_of(t, False)} {names(t)}" for t in operands)
    if op.type == "Placeholder":
        return f"  {head}{names(out)} = {type_of(out)} parameter({op.name})"
    opcode = OPCODES.get(op.type)
    extra = f', metadata={{op_type="{op.type}" op_name="{op.name}"}}'
    if op.type == "Const":
        value = op.attrs["value"]
        args = str(value.item() if getattr(value, "size", 2) == 1 else "{...}")
    if op.type in REDUCTIONS:
        axis = op.attrs["axis"]
        axes = ",".join(str(a) for a in (range(operands[0].shape.rank or 0) if axis is None else axis))
        extra = f", dimensions={{{axes}}}, to_apply=%{REDUCTIONS[op.type]}" + extra
    if opcode is None:
        opcode, extra = "custom-call", f', custom_call_target="{op.type}"' + extra
    return f"  {head}{names(out)} = {type_of(out)} {opcode}({args}){extra}"


def _entry(graph: FuncGraph, names: Names, lines: list[str]) -> None:
    params = ", ".join(f"{names(t)[1:]}: {type_of(t, False)}" for t in graph.inputs)
    results = ", ".join(type_of(t, False) for t in graph.outputs)
    lines.append(f"ENTRY %{graph.name} ({params}) -> ({results}) {{")
    for op in graph.get_operations():
        if not op.outputs:
            continue
        if op.type == FUSION:
            lines.extend(_fusion_call(op, names))
        else:
            lines.append(instruction(op, names, op.inputs))
    outs = ", ".join(names(t) for t in graph.outputs)
    lines.append(f"  ROOT %tuple = ({', '.join(type_of(t) for t in graph.outputs)}) tuple({outs})")
    lines.append("}")


def _fusion_call(op: Operation, names: Names) -> list[str]:
    kind = "kInput" if any(m.type in REDUCTIONS for m in op.attrs["_members"]) else "kLoop"
    region = op.attrs["_loop_ir"].name
    args = ", ".join(names(t) for t in op.inputs)
    types = [type_of(t) for t in op.outputs]
    result = types[0] if len(types) == 1 else f"({', '.join(types)})"
    lines = [f"  %{region} = {result} fusion({args}), kind={kind}, calls=%fused_computation.{region}"]
    for k, t in enumerate(op.outputs):
        names.known[id(t)] = f"%{region}" if len(types) == 1 else f"%{region}.{k}"
        if len(types) > 1:
            lines.append(f"  %{region}.{k} = {type_of(t)} get-tuple-element(%{region}), index={k}")
    return lines


def fused_computation(op: Operation) -> list[str]:
    """A fusion's body: parameters for what it reads, its ops, the values it returns."""
    members: Sequence[Operation] = op.attrs["_members"]
    region = op.attrs["_loop_ir"].name
    inside = {id(t) for m in members for t in m.outputs}
    names = Names()
    params: list[SymbolicTensor] = []
    constants: list[str] = []  # one-element constants are literals of the loop, as XLA folds them in
    for m in members:
        for t in m.inputs:
            if id(t) in inside or id(t) in names.known:
                continue
            value = scalar_constant(t)
            if value is not None:
                names.known[id(t)] = f"%constant.{len(constants)}"
                constants.append(f"  %constant.{len(constants)} = {type_of(t)} constant({value})")
            else:
                names.known[id(t)] = f"%param_{len(params)}"
                params.append(t)
    results = op.attrs["_results"]
    header = ", ".join(f"param_{k}: {type_of(t, False)}" for k, t in enumerate(params))
    returns = ", ".join(type_of(t, False) for t in results)
    lines = [f"%fused_computation.{region} ({header}) -> {returns if len(results) == 1 else f'({returns})'} {{"]
    lines += [f"  %param_{k} = {type_of(t)} parameter({k})" for k, t in enumerate(params)] + constants
    lines += [instruction(m, names, m.inputs, root=len(results) == 1 and m is members[-1]) for m in members]
    if len(results) > 1:  # a multi-output fusion returns a tuple
        lines.append(f"  ROOT %tuple = ({returns}) tuple({', '.join(names(t) for t in results)})")
    lines.append("}")
    return lines


def module_text(graph: FuncGraph, optimized: bool) -> str:
    """The whole graph as an HLO module: fused computations first (after fusion), then the entry."""
    layout = ", ".join(type_of(t) for t in graph.inputs)
    results = ", ".join(type_of(t) for t in graph.outputs)
    scheduled = "is_scheduled=true, " if optimized else ""
    lines = [f"HloModule a_inference_{graph.name}, {scheduled}entry_computation_layout={{({layout})->({results})}}", ""]
    for op in graph.get_operations():
        if op.type == FUSION:
            lines += [*fused_computation(op), ""]
    _entry(graph, Names(), lines)
    return "\n".join(lines) + "\n"


def dot_text(graph: FuncGraph) -> str:
    """The fused graph as Graphviz: one box per instruction, one cluster per fusion with its ops inside."""
    lines = [
        "digraph G {",
        "rankdir = TB;",
        "compound = true;",
        f"label = <<b>Computation a_inference_{graph.name}<br/>ENTRY computation</b>>;",
        "labelloc = t;",
        'node [shape=box, style="rounded,filled", fontname="Roboto", fillcolor="#f5f5f5"];',
    ]
    ids: dict[int, str] = {}
    for n, op in enumerate(graph.get_operations()):
        node = f"node{n}"
        for t in op.outputs:
            ids[id(t)] = node
        if op.type == FUSION:
            region = op.attrs["_loop_ir"].name
            lines.append(f"subgraph cluster_{region} {{")
            lines.append(
                f'  label = "{region} ({" -> ".join(op.attrs["fused_ops"])})"; style = "filled"; fillcolor = "#e3f2fd";'
            )
            for k, m in enumerate(op.attrs["_members"]):
                lines.append(f'  {node}_{k} [label="{OPCODES.get(m.type, m.type)}\\n{type_of(m.outputs[0], False)}"];')
            lines.append(f'  {node} [label="fusion\\n{region}", fillcolor="#bbdefb"];')
            lines.append("}")
        else:
            label = OPCODES.get(op.type, op.type)
            lines.append(f'{node} [label="{label}\\n{op.name}"];')
    for n, op in enumerate(graph.get_operations()):
        for t in op.inputs:
            if id(t) in ids:
                lines.append(f"{ids[id(t)]} -> node{n};")
    lines.append("}")
    return "\n".join(lines) + "\n"
