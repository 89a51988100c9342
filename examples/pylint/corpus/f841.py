# F841: local variables assigned but never read.
import contextlib


def assignments(items):
    unused = 1  # flagged
    first = second = 2  # both flagged
    total: int = 0  # flagged
    declared: int  # an annotation alone binds nothing
    count = 0
    count += 1  # not flagged: `+=` reads `count` first, and the new binding inherits that read
    fresh += 1  # flagged: reads an unbound name, then binds it
    a, b = items  # unpacking: exempt
    [c, d] = 1, 2  # flagged: a list display unpacked from a tuple display
    (e, f) = g = 1, 2  # `g` flagged, `e` and `f` exempt
    _ = 3
    _private = 4  # dummy names are exempt
    _trailing_ = 5  # flagged: a trailing underscore is not a dummy
    __tracebackhide__ = True  # exempt by name
    for loop_var in items:  # loop variables are exempt
        pass
    return declared


def rebinding(x):
    y = 1
    print(y)
    y = 2  # not flagged: inherits the read of the first `y`
    z = 1
    print(z)
    del z
    z = 2  # flagged: `del` ends the chain
    w = 1
    print(w)
    if x:
        del w  # a conditional `del` does not
    w = 2
    x = 3  # not flagged: inherits the read of the parameter by `if x`
    return [x for x in range(3)]


def walrus_and_with(path):
    if (n := len(path)) > 3:  # flagged
        pass
    values = [(last := v) for v in path]  # `last` binds here: flagged
    with open(path) as fh:  # flagged
        pass
    with open(path) as (p, q):  # tuple unpacking: exempt
        pass
    with contextlib.suppress(OSError) as [r, s]:  # a list: flagged
        pass
    return values


def handlers():
    try:
        pass
    except ValueError as err:  # flagged
        pass
    except TypeError as used:
        print(used)
    except KeyError as _ignored:
        pass
    except OSError as err:  # flagged: rebound before any read
        err = None
        print(err)
    try:
        pass
    except ValueError as exc:  # not flagged: read before the nested handler rebinds it
        print(exc)
        try:
            pass
        except TypeError as exc:
            print(exc)


def scopes():
    outer = 1  # read by the nested function, after its last binding
    later = 1
    shadow = 1  # flagged: the class and the comprehension have their own `shadow`

    def inner():
        print(outer, later)
        local = 2  # flagged
        return [shadow for shadow in range(3)]

    class Inner:
        shadow = 2
        print(shadow)

    later = 2
    counter = 0

    def bump():
        nonlocal counter
        counter = 1  # nonlocal: exempt

    return inner, Inner, bump, lambda: (hidden := 1)  # `hidden` flagged


def with_globals():
    global config
    config = 1  # exempt
    result = 2  # exempt: the function calls locals()
    return locals()


def matches(command):
    match command:
        case [verb, *rest]:  # both flagged
            pass
        case {"k": value}:  # flagged
            pass
        case str(text) if text:
            pass
        case _:
            pass


def dunder():
    __traceback_info__ = 1
    __other__ = 2  # flagged


try:
    pass
except ValueError as module_level:  # flagged: handler names are checked in every scope
    pass


class Top:
    try:
        pass
    except ValueError as in_class:  # flagged
        pass
    unused_attribute = 1  # class attributes are not local variables


# Names captured by patterns are bindings too, reported at the name.
def captures(x):
    match x:
        case {"a": 1, **rest}:
            pass
        case [1, *others]:
            pass
        case (1 | 2) as z:
            pass
        case {"b": 2, **kept}:
            return kept
