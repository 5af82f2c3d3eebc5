"""The run-time side of a compiled function: the callable, executors and their errors."""
