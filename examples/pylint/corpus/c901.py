# C901: McCabe complexity above 10.


def eleven(x):  # flagged: 1 + 10
    if x:  # if 1, elif 1 each (an else counts nothing)
        pass
    elif x:
        pass
    elif x:
        pass
    else:
        pass
    for _ in x:  # 1 (its else counts nothing)
        pass
    else:
        pass
    while x:  # 1
        break
    try:  # 1 per except, 1 for the else, finally nothing
        pass
    except ValueError:
        pass
    else:
        pass
    finally:
        pass
    with open(x):  # with counts only its body
        if x:  # 1
            pass
    match x:  # 1 per case, minus 1 for a final irrefutable case
        case 1:
            pass
        case 2:
            pass
        case _:
            pass


def ten(x):  # not flagged: exactly 10
    match x:
        case 1:
            pass
        case [y] as z:
            pass
        case other if other:  # a guard keeps the last case refutable
            pass
    match x:
        case 1:
            pass
        case 2 | _:  # an irrefutable alternative: minus 1
            pass
    match x:
        case [1]:
            pass
        case (_ | 3) as w:  # minus 1
            pass
    match x:
        case str():
            pass
        case {**rest}:
            pass
    if x:
        pass
    if x:
        pass
    return y, z, w, rest


def outer(x):  # flagged: nested functions add their complexity, classes their body's
    def inner(y):  # not flagged: 1 + 6
        if y:
            pass
        if y:
            pass
        if y:
            pass
        if y:
            pass
        if y:
            pass
        if y:
            pass

    class Inner:  # its body counts for outer
        if x:
            pass

        def method(self):  # 1 + 1
            while self:
                pass

    return inner, Inner


class Holder:
    async def method(self, x):  # flagged: 1 + 10
        async for _ in x:
            async with x:
                try:
                    if x:
                        pass
                    elif x:
                        pass
                    elif x:
                        pass
                    while x:
                        pass
                    for _ in x:
                        pass
                    if x:
                        pass
                except* ValueError:
                    pass
                except* (TypeError, KeyError):
                    pass
                except* OSError:
                    pass
        # comprehensions, lambdas and conditional expressions count nothing
        return [y for y in x if y] or (lambda: x if x else None)()
