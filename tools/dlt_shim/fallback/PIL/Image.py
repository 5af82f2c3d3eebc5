"""`PIL.Image.fromarray(a).save(path)` that checks the array and writes nothing."""
import numpy


class _Image:
    def __init__(self, array):
        self.array = numpy.asarray(array)

    def save(self, path, *args, **kwargs):
        if self.array.ndim not in (2, 3):
            raise ValueError(f"cannot save an image of {self.array.ndim} dimensions")


def fromarray(array, mode=None):
    return _Image(array)
