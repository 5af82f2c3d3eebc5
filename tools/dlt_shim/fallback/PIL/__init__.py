"""A stand-in for Pillow where it is not installed: the tutorials save filter images, which the
harness does not look at (tools/dlt_tutorials.py puts this folder last on sys.path)."""
