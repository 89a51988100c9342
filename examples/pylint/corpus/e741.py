# E741: ambiguous names l, I and O where they are bound.
import os
from os import path as O  # imports are not checked

# Flagged, at the name.
l = 1
I: int = 2
O += 1
for l in range(3):
    pass
a, *l = [1, 2]
[I, (O, x)] = [1, (2, 3)]
with open(os.devnull) as l:
    pass
squares = [l * l for l in range(3)]
if (I := 3):
    pass


def func(l, /, I=1, *O, k=2, **kw):
    return [l, I, O, k, kw]


def rebind():
    global O
    O = 0


def stars(*l, **I):
    return l, I


def counter():
    l = 0

    def bump():
        nonlocal l
        l += 1
        return l

    return bump


short = (lambda l: l)(1)
both = list(map(lambda *I, **O: (I, O), [1]))

try:
    pass
except ValueError as O:
    pass


class C:
    I = 1

    def method(self, O):
        return O


# Not flagged.
print(l, I, O)  # uses, not bindings
del x
obj = C()
obj.l = 1  # attributes
d = {}
d["l"] = 1
ll = Il = O0 = 1  # longer names


def l_ok():  # a function name (E743, not E741)
    pass


class I_ok:  # a class name (E742, not E741)
    pass


match d:
    case {"k": l}:  # match captures are not checked
        pass
    case [I, *O]:
        pass
