"""irc.config: defaults, IRC_FLAGS, the rc file, code overrides, change_flags, errors."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import irc
from irc.config import Config, ConfigError, config, parse_flags_string

ROOT = Path(__file__).resolve().parents[2]


def test_defaults():
    c = Config()
    assert c.device == "cpu" and c.floatX == "float64" and c.mode == "FAST_RUN"
    assert c.allow_gc is True and c.dump_ir == "" and c.optimizer_excluding == ""
    assert c.compiledir.endswith("irc")


def test_irc_flags_and_rc_file(tmp_path):
    rc = tmp_path / "rc"
    rc.write_text("[global]\nfloatX = float32\ndevice = cuda0\nallow_gc = False\n")
    c = Config()
    c.load({"IRCRC": str(rc), "IRC_FLAGS": "device=cpu,mode=FAST_COMPILE"})
    assert c.floatX == "float32" and c.allow_gc is False
    assert c.device == "cpu" and c.source("device") == "IRC_FLAGS"  # env wins over the file
    assert c.mode == "FAST_COMPILE" and c.source("floatX") == str(rc)


def test_bad_value_names_flag_allowed_values_and_source(tmp_path):
    c = Config()
    with pytest.raises(ConfigError, match=r"'floatX'.*IRC_FLAGS.*float64, float32, float16"):
        c.load({"IRC_FLAGS": "floatX=float8", "IRCRC": str(tmp_path / "none")})
    rc = tmp_path / "rc"
    rc.write_text("[global]\nassert_no_cpu_op = loud\n")
    with pytest.raises(ConfigError, match=r"'assert_no_cpu_op'.*rc.*ignore, warn, raise"):
        Config().load({"IRCRC": str(rc)})
    with pytest.raises(ConfigError, match=r"unknown config flag 'floatx'.*did you mean 'floatX'"):
        Config().load({"IRC_FLAGS": "floatx=float32", "IRCRC": str(tmp_path / "none")})
    with pytest.raises(ConfigError, match="flag=value"):
        parse_flags_string("floatX")


@pytest.mark.parametrize("device, normal, kind, index", [
    ("cpu", "cpu", "cpu", None), ("gpu", "cuda", "cuda", None), ("cuda", "cuda", "cuda", None),
    ("cuda0", "cuda0", "cuda", 0), ("cuda1", "cuda1", "cuda", 1), ("gpu2", "cuda2", "cuda", 2),
    ("GPU12", "cuda12", "cuda", 12)])
def test_devices(device, normal, kind, index):
    c = Config()
    c.device = device
    assert (c.device, c.device_kind, c.device_index) == (normal, kind, index)


@pytest.mark.parametrize("bad", ["tpu", "cpu0", "cuda-1", "gpu 1", "opencl0:0", ""])
def test_bad_device(bad):
    with pytest.raises(ConfigError, match=r"bad value .* for config flag 'device'.*cpu, gpu"):
        Config().device = bad


def test_gpu_sync_follows_cuda_launch_blocking(tmp_path):
    none = str(tmp_path / "none")
    c = Config()
    c.load({"IRCRC": none})
    assert c.gpu_sync is False
    c.load({"IRCRC": none, "CUDA_LAUNCH_BLOCKING": "1", "IRC_FLAGS": "gpu_sync=False"})
    assert c.gpu_sync is True and c.source("gpu_sync") == "CUDA_LAUNCH_BLOCKING=1"
    c = Config()
    c.load({"IRCRC": none, "IRC_FLAGS": "gpu_sync=True,force_device=True,print_active_device=no"})
    assert c.gpu_sync is True and c.force_device is True and c.print_active_device is False
    with pytest.raises(ConfigError, match="'gpu_sync'.*True, False"):
        c.gpu_sync = "sometimes"


def test_derived_values_through_the_module():
    import irc.config as module
    with config.change_flags(device="gpu3"):
        assert module.device_kind == "cuda" and module.device_index == 3
    assert module.device_kind == "cpu"


def test_code_override_and_change_flags():
    old = config.floatX
    with config.change_flags(floatX="float32", mode="FAST_COMPILE"):
        assert irc.config.floatX == "float32" and config.mode == "FAST_COMPILE"
    assert config.floatX == old
    with pytest.raises(RuntimeError):
        with irc.config.change_flags(floatX="float16"):
            raise RuntimeError
    assert config.floatX == old
    irc.config.floatX = "float32"
    try:
        assert config.floatX == "float32"
        with pytest.raises(ConfigError, match="from code"):
            irc.config.floatX = "double"
    finally:
        irc.config.floatX = old


def test_bools_and_tags():
    c = Config()
    c.allow_gc = "false"
    c.profile = "1"
    c.optimizer_excluding = "fusion:inplace"
    assert c.allow_gc is False and c.profile is True and c.optimizer_excluding == "fusion:inplace"
    with pytest.raises(ConfigError, match="allow_gc"):
        c.allow_gc = "maybe"


def _run(code: str, **env: str) -> subprocess.CompletedProcess:
    full = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full)


def test_import_reads_environment(tmp_path):
    rc = tmp_path / "ircrc"
    rc.write_text("[global]\nfloatX = float16\nmode = DebugMode\n")
    r = _run("import irc; print(irc.config.floatX, irc.config.mode)",
             IRCRC=str(rc), IRC_FLAGS="floatX=float32")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["float32", "DebugMode"]


def test_import_error_is_clear():
    r = _run("import irc; irc.config.floatX", IRC_FLAGS="device=tpu")
    assert r.returncode != 0
    assert "bad value 'tpu' for config flag 'device' (from IRC_FLAGS)" in r.stderr


def test_irc_is_lazy():
    r = _run("import sys, irc; irc.config.floatX; print('numpy' in sys.modules)")
    assert r.stdout.strip() == "False", r.stderr
