"""The IR core: types, attributes, values, ops, blocks, regions, builder, printer, parser,
verifier, rewriter and pass manager. Knows nothing of tensors: dialects add ops and types."""
from .location import Location, UnknownLoc, FileLineColLoc, UNKNOWN_LOC
from .diagnostics import Diagnostic, IRError, ParseError, VerifyError, PassError, SOURCES
from .types import (Type, ScalarType, FunctionType, NoneType, f16, f32, f64, i1, i8, i16, i32, i64, ui8, ui16,
                    ui32, ui64, index, scalar_from_numpy, register_type_parser)
from .attributes import (Attribute, IntegerAttr, FloatAttr, BoolAttr, StringAttr, UnitAttr, TypeAttr,
                         SymbolRefAttr, ArrayAttr, DenseArrayAttr, DictAttr, register_attribute_parser)
from .core import (Value, OpResult, BlockArgument, Use, Operation, Block, Region, OP_REGISTRY, lookup_op,
                   create_op, Trait, Pure, Commutative, Terminator, IsolatedFromAbove, SymbolTable,
                   NoTerminator, ElementwiseTrait)
from .builder import Builder, InsertionPoint
