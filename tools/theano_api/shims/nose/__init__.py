"""The few names of nose (which does not run on Python 3.11) that Theano's tests import."""
