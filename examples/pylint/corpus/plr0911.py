# PLR0911: more than 6 `return` statements in one function.


def seven_returns(x):  # flagged: 7 > 6
    if x == 1:
        return 1
    if x == 2:
        return 2
    for i in range(x):
        if i == 3:
            return 3
    else:
        return 4
    while x:
        try:
            return 5
        except ValueError:
            return 6
    return 7


def six_returns(x):  # not flagged: exactly 6
    match x:
        case 1:
            return 1
        case 2:
            return 2
        case _:
            with open(x) as f:
                return f
    if x:
        return 4
    elif x is None:
        return 5
    return None


def nested_returns_do_not_count(x):  # not flagged: 3 of its own
    def inner(y):  # flagged: 7 > 6
        if y == 1:
            return 1
        if y == 2:
            return 2
        if y == 3:
            return 3
        if y == 4:
            return 4
        if y == 5:
            return 5
        if y == 6:
            return 6
        return 7

    class Inner:
        def method(self):  # not flagged
            return 1

    check = abs
    if x:
        return inner(x)
    try:
        return check(x)
    finally:
        return Inner


class Holder:
    async def method(self, x):  # flagged: 8 > 6
        if x == 1:
            return 1
        if x == 2:
            return 2
        if x == 3:
            return 3
        if x == 4:
            return 4
        if x == 5:
            return 5
        if x == 6:
            return
        if x == 7:
            return
        return


def generator(x):  # flagged too: yields do not matter
    if x == 1:
        return
    if x == 2:
        return
    if x == 3:
        return
    if x == 4:
        return
    if x == 5:
        return
    if x == 6:
        return
    yield x
    return
