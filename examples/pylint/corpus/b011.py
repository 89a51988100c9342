# B011: `assert False`.
x = 1

# Flagged, at the `False` literal.
assert False
assert False, "with a message"
assert (False)


def inner():
    assert False, f"{x}"


# Not flagged.
assert True
assert 0
assert not True
assert x is False
assert None
