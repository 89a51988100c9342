# E731: assigning a lambda to a name.
from typing import Callable

# Flagged, at the statement.
f = lambda: 0
g = lambda x, y=1: x + y
h: Callable[[int], int] = lambda x: x * 2
(p) = lambda: 1


def outer():
    k = lambda: 2
    return k


class Holder:
    m = lambda self: 0  # a plain assignment in a class body

    def method(self):
        n: Callable[[], int] = lambda: 3  # annotated, but in a function
        return n

    class Inner:
        def deeper(self):
            q: Callable[[], int] = lambda: 4
            return q


# Not flagged.
class Fields:
    handler: Callable[[], int] = lambda: 0  # annotated class attribute
    if True:
        other: Callable[[], int] = lambda: 1  # still the class scope


a = b = lambda: 0  # two targets
c, d = lambda: 0, lambda: 1  # a tuple target
Holder.attr = lambda: 0  # not a plain name
r = (lambda: 0)()  # calling it
s = [lambda: 0]
t: Callable[[], int]
