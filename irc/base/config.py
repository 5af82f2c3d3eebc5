"""Theano-style flags (`irc.config` to users), read at import from `~/.ircrc` then `IRC_FLAGS`.

Every flag has one declaration (default, validator, doc) so a bad value anywhere gives the
same clear error: the flag, the allowed values and where the value came from.
Pure standard library: `irc-opt --help` imports this without numpy.
"""
from __future__ import annotations

import configparser
import contextlib
import os
import re
import types
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from .device import Device


class ConfigError(ValueError):
    """An unknown flag or a value a flag does not accept."""


@dataclass(frozen=True)
class Flag:
    """One flag: `parse` turns a string or Python value into the stored value or raises
    ValueError; `allowed` describes the accepted values for error messages; `show` gives what
    reading the flag returns (the stored value itself unless a typed value reads as its text)."""

    name: str
    default: Any
    parse: Callable[[Any], Any]
    allowed: str
    doc: str
    show: Callable[[Any], Any] = lambda stored: stored


def _choice(*values: str) -> Callable[[Any], str]:
    def parse(v: Any) -> str:
        s = str(v)
        if s not in values:
            raise ValueError(s)
        return s
    return parse


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def _bool(v: Any) -> bool:
    if isinstance(v, bool):
        return v
    s = str(v).strip().lower()
    if s in _TRUE:
        return True
    if s in _FALSE:
        return False
    raise ValueError(v)


def _tags(v: Any) -> str:
    """Colon-separated tag list; also accepts a list/tuple of tags from code."""
    if isinstance(v, (list, tuple, set)):
        v = ":".join(v)
    s = str(v)
    if any(not re.fullmatch(r"[A-Za-z0-9_\-]+", t) for t in s.split(":") if t):
        raise ValueError(s)
    return ":".join(t for t in s.split(":") if t)


def _count(v: Any) -> int:
    """A non-negative integer."""
    n = int(str(v).strip())
    if n < 0:
        raise ValueError(v)
    return n


def _path(v: Any) -> str:
    return os.path.expanduser(str(v)) if str(v) else ""


def _seed(v: Any) -> str:
    """An integer seed or `random`, kept as text (Theano's flag is a string)."""
    s = str(v).strip()
    if s != "random":
        int(s)
    return s


TIERS_VARIABLE = "IRC_COMPILE_TIERS"


def _default_tiers() -> bool:
    """On, unless `IRC_COMPILE_TIERS=0` (a process and the processes it starts: the test suite
    sets it, since its subprocesses set `IRC_FLAGS` of their own)."""
    return os.environ.get(TIERS_VARIABLE, "").strip() != "0"


def _default_compiledir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "irc")


FLAGS: dict[str, Flag] = {f.name: f for f in (
    Flag("device", Device.parse("cpu"), Device.parse, "cpu, gpu, gpuN, cuda, cudaN (N = 0, 1, ...)",
         "where computations run", show=str),
    Flag("floatX", "float64", _choice("float64", "float32", "float16"), "float64, float32, float16",
         "dtype of T.vector(), T.matrix(), ... and of float constants"),
    Flag("mode", "FAST_RUN", _choice("FAST_RUN", "FAST_COMPILE", "DebugMode", "ProfileMode"),
         "FAST_RUN, FAST_COMPILE, DebugMode, ProfileMode", "default compilation mode"),
    Flag("optimizer_excluding", "", _tags, "colon-separated rewrite tags", "turn off rewrites"),
    Flag("optimizer_including", "", _tags, "colon-separated rewrite tags", "turn on extra rewrites"),
    Flag("allow_gc", True, _bool, "True, False", "free intermediate values after their last use"),
    Flag("cpu_threads", 0, _count, "0 (OMP_NUM_THREADS, else all cores), or a count",
         "threads for parallel loops on the cpu, process-wide, applied when a function loads"),
    Flag("compile_tiers", _default_tiers(), _bool, "True, False",
         "a cache miss runs quickly compiled code first while a background process builds the "
         "optimized code, switched to between calls (False: compile optimized code before the "
         "first call; default False when IRC_COMPILE_TIERS=0)"),
    Flag("verify_each_pass", False, _bool, "True, False",
         "verify the IR after every pass of irc.function's pipeline, naming the pass that broke it "
         "(False: once after the pipeline, a tenth of the verifier's time; DebugMode always "
         "verifies each pass, as irc-opt does)"),
    Flag("profile", False, _bool, "True, False", "profile every compiled function"),
    Flag("force_device", False, _bool, "True, False", "fail instead of falling back to the cpu"),
    Flag("print_active_device", True, _bool, "True, False", "print the device in use at start"),
    Flag("assert_no_cpu_op", "ignore", _choice("ignore", "warn", "raise"), "ignore, warn, raise",
         "report ops left on the cpu when device is a gpu"),
    Flag("gpu_sync", False, _bool, "True, False",
         "wait for the device after every call (true too when CUDA_LAUNCH_BLOCKING=1)"),
    Flag("allow_tf32", False, _bool, "True, False",
         "let float32 products on the gpu use TF32 tensor cores (10-bit mantissas, as torch's "
         "allow_tf32)"),
    Flag("warn_float64", "ignore", _choice("ignore", "warn", "raise", "pdb"),
         "ignore, warn, raise, pdb", "report float64 variables in a graph"),
    Flag("compute_test_value", "off", _choice("off", "ignore", "warn", "raise", "pdb"),
         "off, ignore, warn, raise, pdb",
         "compute each new variable's tag.test_value from its inputs' when the graph is built; what "
         "to do about an input without one"),
    Flag("print_test_value", False, _bool, "True, False",
         "repr() of a variable shows its test value (tag.test_value, a constant's data, a shared "
         "variable's value) on a second line"),
    Flag("compiledir", _default_compiledir(), _path, "a folder path", "cache of compiled code"),
    Flag("unpickle_function", True, _bool, "True, False",
         "unpickling a compiled function rebuilds it (False: it loads as None)"),
    Flag("cast_policy", "custom", _choice("custom"), "custom",
         "implicit casting rules: Theano's default ('custom', irc/frontend/dtypes.py); its "
         "'numpy+floatX' is not implemented"),
    Flag("unittests.rseed", "666", _seed, "an integer, or random",
         "the seed of Theano's test helpers (theano.tests.unittest_tools.fetch_seed)"),
    Flag("dump_ir", "", _path, "a folder path, or empty for no dump",
         "write the IR after every pass of every compiled function there"),
)}


def parse_flags_string(text: str) -> list[tuple[str, str]]:
    """`a=b,c=d` → [(a, b), (c, d)]; a piece without `=` is an error naming it."""
    pairs = []
    for piece in text.split(","):
        piece = piece.strip()
        if not piece:
            continue
        if "=" not in piece:
            raise ConfigError(f"IRC_FLAGS: '{piece}' is not of the form flag=value")
        key, value = piece.split("=", 1)
        pairs.append((key.strip(), value.strip()))
    return pairs


class Config:
    """The flag values; attribute access reads and writes them with validation."""

    def __init__(self) -> None:
        object.__setattr__(self, "_values", {n: f.default for n, f in FLAGS.items()})
        object.__setattr__(self, "_sources", {n: "default" for n in FLAGS})

    def set(self, name: str, value: Any, source: str = "code") -> None:
        """Validate and store one flag; `source` is named in errors (IRC_FLAGS, ~/.ircrc, code)."""
        flag = FLAGS.get(name)
        if flag is None:
            close = [n for n in FLAGS if n.lower() == name.lower()]
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise ConfigError(f"unknown config flag '{name}' (from {source}){hint}; "
                              f"known flags: {', '.join(sorted(FLAGS))}")
        try:
            parsed = flag.parse(value)
        except ValueError:
            raise ConfigError(f"bad value {value!r} for config flag '{name}' (from {source}); "
                              f"allowed: {flag.allowed}") from None
        self._values[name] = parsed
        self._sources[name] = source

    def __getattr__(self, name: str) -> Any:
        values = object.__getattribute__(self, "_values")
        if name in values:
            return FLAGS[name].show(values[name])
        if any(flag.startswith(name + ".") for flag in values):
            return FlagSection(self, name)
        raise AttributeError(f"unknown config flag '{name}'; known flags: {', '.join(sorted(FLAGS))}")

    def __setattr__(self, name: str, value: Any) -> None:
        self.set(name, value, "code")

    @property
    def requested_device(self) -> Device:
        """The device flag as the typed value it was parsed into (`config.device` reads as its
        text, Theano's type); the runtime resolves it to a target, which may fall back."""
        return self._values["device"]

    @property
    def device_kind(self) -> str:
        """The kind of device the flag names: `cpu` or `cuda`."""
        return self.requested_device.kind

    @property
    def device_index(self) -> int | None:
        """N of `cudaN`; None for `cpu` and for plain `cuda` (the runtime's default device)."""
        return self.requested_device.index

    def flag_values(self) -> dict[str, Any]:
        """Every flag's value as code reads it (what a compile-cache key hashes)."""
        return {name: getattr(self, name) for name in FLAGS}

    def source(self, name: str) -> str:
        """Where the current value of `name` came from."""
        return self._sources[name]

    @contextlib.contextmanager
    def change_flags(self, **kw: Any) -> Iterator["Config"]:
        """Set flags for the duration of a `with` block, restoring them after (even on error)."""
        saved = {k: (self._values[k], self._sources[k]) for k in kw if k in FLAGS}
        try:
            for k, v in kw.items():
                self.set(k, v, "change_flags")
            yield self
        finally:
            for k, (v, src) in saved.items():
                self._values[k] = v
                self._sources[k] = src

    def load(self, environ: dict[str, str] | None = None) -> None:
        """Read the rc file (`[global]` section), then `IRC_FLAGS`, which wins."""
        environ = os.environ if environ is None else environ
        rc = environ.get("IRCRC") or os.path.join(os.path.expanduser("~"), ".ircrc")
        if os.path.isfile(rc):
            parser = configparser.ConfigParser(interpolation=None)
            parser.optionxform = str  # keep flag names' case (floatX)
            try:
                parser.read(rc, encoding="utf-8")
            except configparser.Error as e:
                raise ConfigError(f"{rc}: cannot parse: {e}") from None
            if parser.has_section("global"):
                for key, value in parser.items("global"):
                    self.set(key, value, rc)
        for key, value in parse_flags_string(environ.get("IRC_FLAGS", "")):
            self.set(key, value, "IRC_FLAGS")
        if environ.get("CUDA_LAUNCH_BLOCKING", "").strip() == "1":  # launches block anyway
            self.set("gpu_sync", True, "CUDA_LAUNCH_BLOCKING=1")

    def __repr__(self) -> str:
        return "\n".join(f"{n} = {getattr(self, n)!r}  ({self._sources[n]})" for n in sorted(FLAGS))

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(FLAGS))


class FlagSection:
    """A dotted flag's section, so that `config.unittests.rseed` reads and writes the flag
    `unittests.rseed` (Theano's sections)."""

    def __init__(self, owner: Config, prefix: str) -> None:
        object.__setattr__(self, "_owner", owner)
        object.__setattr__(self, "_prefix", prefix)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._owner, f"{self._prefix}.{name}")

    def __setattr__(self, name: str, value: Any) -> None:
        self._owner.set(f"{self._prefix}.{name}", value, "code")

    def __repr__(self) -> str:
        return f"<config section '{self._prefix}'>"


# Read-only values computed from flags (properties of `Config`).
DERIVED = ("requested_device", "device_kind", "device_index")

config = Config()
config.load()


def change_flags(**kw: Any):
    """Module-level alias of `config.change_flags`."""
    return config.change_flags(**kw)


class ConfigModule(types.ModuleType):
    """The class of the user's module `irc.config`, so that it behaves as the `config` object
    too: `irc.config.floatX = "float32"` validates whether `irc.config` names the module (after
    `import irc.config`) or the object."""

    def __getattr__(self, name: str) -> Any:
        if name in FLAGS or name in DERIVED or any(flag.startswith(name + ".") for flag in FLAGS):
            return getattr(config, name)
        raise AttributeError(f"module 'irc.config' has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        if name in FLAGS:
            config.set(name, value, "code")
        else:
            super().__setattr__(name, value)

