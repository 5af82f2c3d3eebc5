"""The Theano-compatible frontend: the symbolic graph (`graph`), its ops, `shared`, `grad`.
The user-facing namespace is `irc.tensor`.

Layers, each importing only those below it: the graph core (`tensor_type`, `dtypes`,
`graph`, `operators`), the op classes (`elemwise`, `reduce`, `shape_ops`, ...), the `T.*`
functions (`basic`, `mathops`, ...), the derivative rules (`gradient_rules`, `grad`), and
compilation (`lowering`, `function`). The Python operators of a Variable call `T.*`
functions, which are bound here once they have loaded."""
# (scan_grad, scan_rop: Scan's gradient and R-op rules; compute_test_values: config.compute_test_value's
# hook on op calls)
from . import array_methods, basic, compute_test_values, function, mathops, scan_grad, scan_rop  # noqa: F401
from .operators import bind_api

bind_api(basic, mathops, function, array_methods)
