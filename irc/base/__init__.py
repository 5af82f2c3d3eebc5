"""The base level, under `ir/`: what every level reads and nothing above it defines — the flags
(`config.py`) and the hooks that fill the core's plug-in registries (`registry.py`). It imports
nothing of irc."""
