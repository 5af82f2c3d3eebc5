"""Command-line tools (`irc-opt`). Kept free of imports so that `--help` starts fast."""


class UsageError(Exception):
    """A bad flag value or an unreadable file: reported in one line, exit status 1."""
