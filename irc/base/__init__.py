"""The base level, under `ir/`: what every level reads and no level above defines — the flags
(`config.py`), the device a computation runs on (`device.py`) and the hooks that fill the core's
plug-in registries (`registry.py`), and the collector's pause during a compile (`gc_pause.py`).
It imports nothing else of irc."""
