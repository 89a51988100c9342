# PLR0915: more than 50 statements in one function.


def fifty_one(x):  # flagged: 51 > 50
    a = 1  # 1 each
    b = 2
    c = 3
    d = 4
    e = 5
    print(a, b, c, d, e)
    if x:  # if 1, elif 1, else 1, bodies: 3
        pass
    elif x:
        pass
    else:
        pass  # 12
    for i in x:  # a for counts nothing itself: bodies 2
        pass
    else:
        pass  # 14
    while x:  # while 1, bodies 2
        break
    else:
        pass  # 17
    try:  # try 1, 2 handlers 2 + 1, else 1, finally 2, bodies 5
        pass
    except ValueError:
        pass
    except TypeError:
        pass
    else:
        pass
    finally:
        pass  # 29
    with open(x) as f:  # with 1, body 1
        f.read()  # 31
    match x:  # match 1, cases 2, bodies 2
        case 1:
            pass
        case _:
            pass  # 36

    def inner():  # def 1, its own statements 3
        del x
        global g
        return nonlocal_ok  # return: 0
        yield  # 1
    # 40

    class Inner:  # class 1, its body nothing
        a = 1
        b = 2
    # 41
    assert x
    raise ValueError  # 43
    import os
    from os import path  # 45
    x += 1
    x: int = 2
    T = int  # 48
    return os, path, T, Inner, inner, i
    pass
    pass
    pass  # 51


def fifty(x):  # not flagged: exactly 50 (the returns count nothing)
    try:  # try 1, 1 handler 1, bodies 2
        pass
    except ValueError:
        pass  # 4
    x = 1
    x = 1
    x = 1
    x = 1
    x = 1
    x = 1
    x = 1
    x = 1
    x = 1
    x = 1  # 14
    x = 1
    x = 1
    x = 1
    x = 1
    x = 1
    x = 1
    x = 1
    x = 1
    x = 1
    x = 1  # 24
    x = 1
    x = 1
    x = 1
    x = 1
    x = 1
    x = 1
    x = 1
    x = 1
    x = 1
    x = 1  # 34
    x = 1
    x = 1
    x = 1
    x = 1
    x = 1
    x = 1
    x = 1
    x = 1
    x = 1
    x = 1  # 44
    x = 1
    x = 1
    x = 1
    x = 1
    x = 1
    print(x)  # 50
    return x
    return x
    return x
