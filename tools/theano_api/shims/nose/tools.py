"""nose.tools as Theano's tests use it, on unittest's assertions."""
import functools
import unittest

_case = unittest.TestCase()
_case.maxDiff = None
assert_raises = _case.assertRaises
assert_equal = assert_equals = eq_ = _case.assertEqual
assert_true = ok_ = _case.assertTrue
assert_false = _case.assertFalse


def raises(*exceptions):
    """The decorated test passes only if it raises one of `exceptions`."""
    def decorate(test):
        @functools.wraps(test)
        def checked(*args, **kwargs):
            try:
                test(*args, **kwargs)
            except exceptions:
                return
            raise AssertionError(f"{test.__name__} did not raise {exceptions}")
        return checked
    return decorate
