"""Text hooks for the builtin types and constants: `tensor<...>`, `memref<...>`, `dense<...>`.

Each hook is called by the parser right after its keyword and reads the rest with the parser's
helpers, so that `parse(str(x)) == x` for every type and attribute defined in `builtin.py`.
"""
from __future__ import annotations

from ..ir.attributes import register_attribute_parser
from ..ir.types import ScalarType, register_type_parser
from .builtin import DenseAttr, MemRefType, TensorType


def _element(parser) -> ScalarType:
    at = parser.i
    t = parser.parse_type()
    if not isinstance(t, ScalarType):
        raise parser.error("expected a scalar element type", at)
    return t


def _dynamic_int(parser) -> int | None:
    """An integer or `?` (dynamic)."""
    return None if parser.accept("?") else parser.parse_integer()


def parse_tensor_type(parser) -> TensorType:
    """`<400x?xf32>`, `<f32>`, `<?xf32, "cuda">`."""
    parser.expect("<")
    shape = parser.parse_dimensions()
    element = _element(parser)
    device = parser.parse_string() if parser.accept(",") else None
    parser.expect(">", "'>' or ','")
    return TensorType(shape, element, device)


def parse_memref_type(parser) -> MemRefType:
    """`<?x?xf32, strided<[?, 1], offset: ?>, "cuda">` (the layout and device optional)."""
    parser.expect("<")
    shape = parser.parse_dimensions()
    element = _element(parser)
    strides, offset, device = None, 0, None
    while parser.accept(","):
        if parser.accept("strided"):
            parser.expect("<")
            parser.expect("[")
            strides = [] if parser.peek() == "]" else [_dynamic_int(parser)]
            while parser.accept(","):
                strides.append(_dynamic_int(parser))
            parser.expect("]", "']' or ','")
            if len(strides) != len(shape):
                raise parser.error(f"expected {len(shape)} strides, got {len(strides)}")
            if parser.accept(","):
                parser.expect("offset")
                parser.expect(":")
                offset = _dynamic_int(parser)
            parser.expect(">")
            strides = tuple(strides)
        else:
            device = parser.parse_string()
    parser.expect(">", "'>' or ','")
    return MemRefType(shape, element, strides, offset, device)


def _dense_elements(parser):
    """A nested list of numbers/booleans, or one scalar (a splat)."""
    if parser.accept("["):
        items = []
        if not parser.accept("]"):
            items.append(_dense_elements(parser))
            while parser.accept(","):
                items.append(_dense_elements(parser))
            parser.expect("]", "']' or ','")
        return items
    if parser.accept("true"):
        return True
    if parser.accept("false"):
        return False
    if parser.accept("("):  # a complex number: (real, imaginary)
        real = parser.parse_number()
        parser.expect(",", "',' and the imaginary part")
        imag = parser.parse_number()
        parser.expect(")", "')' after the imaginary part")
        return complex(real, imag)
    return parser.parse_number()


def parse_dense(parser) -> DenseAttr:
    """`<[[1.0, 2.0]]> : tensor<1x2xf32>` or a splat `<0.0> : tensor<4xf32>`."""
    import numpy as np
    parser.expect("<")
    at = parser.i
    body = _dense_elements(parser)
    parser.expect(">", "'>' or ','")
    parser.expect(":", "':' and the tensor type of the dense constant")
    type_at = parser.i
    t = parser.parse_type()
    if not isinstance(t, TensorType):
        raise parser.error("expected a tensor type", type_at)
    dtype = t.element.numpy_name
    if not isinstance(body, list):
        return DenseAttr.splat(body, t)  # never materialized (see DenseAttr)
    array = np.array(body, dtype=dtype)
    if array.size == 0 and t.has_static_shape and 0 in t.shape:
        array = array.reshape(t.shape)  # `[]` stands for any empty shape
    if array.shape != t.shape:
        raise parser.error(f"dense literal of shape {list(array.shape)} does not match {t}", at)
    return DenseAttr.from_array(array, t)


register_type_parser("tensor", parse_tensor_type)
register_type_parser("memref", parse_memref_type)
register_attribute_parser("dense", parse_dense)
