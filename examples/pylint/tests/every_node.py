# Every kind of node of lint/python.tf, for tests/lower.rs.
import os, sys as system
from . import sibling
from .. pkg import name as other

@decorator
async def function[T: int = bool, *Ts, **P](a, /, b: int = 1, *args, c, d=2, **kwargs) -> None:
    global g
    nonlocal n
    del a[0], b.c
    x: int = 1
    y += 2
    for i in range(3):
        continue
    else:
        pass
    async for j in it:
        break
    while x:
        pass
    else:
        pass
    if a:
        pass
    elif b:
        pass
    else:
        pass
    with open(f) as h, other():
        pass
    async with lock:
        pass
    try:
        pass
    except ValueError as e:
        raise ValueError("x") from e
    except:
        raise
    else:
        pass
    finally:
        pass
    try:
        pass
    except* OSError:
        pass
    assert x, "message"
    match command:
        case 1 | 2:
            pass
        case None:
            pass
        case [first, *rest]:
            pass
        case {"key": value, **others}:
            pass
        case Point(x=0, y=ys) if ys:
            pass
        case (inner as whole):
            pass
        case _:
            pass
    await thing
    yield
    yield value
    yield from items
    return a and b or not c

class Klass(Base, metaclass=Meta):
    pass

type Alias[K] = list[K]
values = (lambda q: q)(1), -x, x if y else z, {1: 2, **d}, {1, 2}
comps = [i for i in x if i], {i for i in x}, {k: v for k, v in x}, (i for i in x)
calls = f(1, *a, key=2, **kw), a.b, a[1:2:3], [*a], (b,), (x := 5)
texts = "abc" "def", b"bytes", f"{x!r:>{width}} {y=}" "plain", t"{x}", 1.5, 2j, 0x10, True, None, ...
ops = 1 + 2 < 3 is not 4
