# PLR0912: more than 12 branches in one function.


def thirteen_branches(x):  # flagged: 13 > 12
    if x == 1:  # if + elif + else: 3
        pass
    elif x == 2:
        pass
    else:
        pass
    for _ in x:  # for + else: 2
        pass
    else:
        pass
    while x:  # 1
        x -= 1
    try:  # except + except + else + finally: 4 (the try itself: 0)
        pass
    except ValueError:
        pass
    except TypeError:
        pass
    else:
        pass
    finally:
        pass
    with open(x):  # with counts only its body: 1
        if x:
            pass
    match x:  # one per case: 2
        case 1:
            pass
        case _:
            pass


def twelve_branches(x):  # not flagged: exactly 12
    if x:
        pass
    if x:
        pass
    if x:
        pass
    if x:
        pass
    if x:
        pass
    if x:
        pass
    if x:
        pass
    if x:
        pass
    if x:
        pass
    if x:
        pass
    if x:
        pass
    try:
        pass
    finally:
        pass


def nested_bodies_do_not_count(x):  # not flagged: 1 of its own
    def inner(y):  # flagged: 13 > 12
        if y:
            pass
        elif y:
            pass
        elif y:
            pass
        elif y:
            pass
        elif y:
            pass
        elif y:
            pass
        elif y:
            pass
        elif y:
            pass
        elif y:
            pass
        elif y:
            pass
        elif y:
            pass
        elif y:
            pass
        else:
            pass

    class Inner:
        if x:
            pass
        if x:
            pass

    if x:
        return inner, Inner


class Holder:
    def method(self, x):  # flagged: 13 > 12
        while x:
            for y in x:
                try:
                    match y:
                        case 1 | 2:
                            pass
                        case [a, *_]:
                            pass
                        case {"k": v}:
                            pass
                        case str() if y:
                            pass
                except* ValueError:
                    pass
                except* TypeError:
                    pass
            else:
                pass
        else:
            if x:
                pass
            elif x:
                pass
            else:
                pass
        return a, v
