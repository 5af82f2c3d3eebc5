def attr(*args, **kwargs):
    """Theano marks slow tests with it; every test runs here."""
    def keep(test):
        return test
    return keep
