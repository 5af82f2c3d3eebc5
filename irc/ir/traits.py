"""Op traits: marker classes an op class lists in `traits`. They sit below `core` so that the
printer and the verifier can ask about them without importing the op classes."""
from __future__ import annotations


class Trait:
    """Markers an op class lists in `traits`; passes ask `op.has_trait(Pure)`."""


class Pure(Trait):
    """No side effects: may be CSE'd, and erased when unused."""


class Commutative(Trait):
    """Operands may be reordered."""


class Terminator(Trait):
    """Must be the last op of its block."""


class IsolatedFromAbove(Trait):
    """Regions may not use values defined outside (functions, modules)."""


class SymbolTable(Trait):
    """Holds ops with a `sym_name` (a module holds functions)."""


class NoTerminator(Trait):
    """Single-block regions without a terminator (the module body)."""


class ElementwiseTrait(Trait):
    """Applies a scalar function to each element (with broadcasting)."""
