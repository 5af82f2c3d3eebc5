"""The base level, below `ir/`: values every level reads and no level above defines (the
device a computation runs on: `device.py`). It imports nothing else of irc."""
