"""Passes: the rewrites that keep a program on one level (`pipelines.py` says which a mode runs).

Importing this package registers nothing, so that `import irc.tensor` does not load every pass:
`registered.py` imports every module of the package (the composition point, `irc/plugins.py`,
loads it at the first lookup in `PASS_REGISTRY`)."""
