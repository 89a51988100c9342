# F631: assert on a non-empty tuple (always true).
x = 1

# Flagged, at the `assert` statement.
assert (x, "message")
assert (x,)
assert x, (x == 1, "not this tuple")  # the message is not the test
assert ((x == 2), "nested")


def inner():
    assert (x, x)


# Not flagged.
assert ()  # an empty tuple is false
assert x, "message"
assert [x, "list"]
assert (x)
