# B006: mutable argument defaults.
import collections
import collections as co
import typing
from collections import OrderedDict, defaultdict as dd
from collections.abc import Sequence
from typing import Optional, Union, Annotated


def displays(a=[], b={}, c={1}, d=[x for x in "ab"], e={x: 1 for x in "ab"}, f={x for x in "ab"}):
    pass


def calls(a=list(), b=dict(a=1), c=set(), d=collections.deque(), e=co.Counter(), f=OrderedDict(), g=dd(list)):
    pass


def subscripted_call(a=list[int](), b=collections.defaultdict[str, int]()):
    pass


def parenthesized(a=([]), *, b=(  # the default is reported where the list starts
    [1, 2]
)):
    pass


def positional_only(a=[], /, b=(), c=None, *args, d=frozenset(), e="", **kwargs):
    pass


def not_mutable(a=(), b=tuple(), c=(x for x in "ab"), d=([],), e=(lambda: []), f=[].copy(), g=collections.namedtuple):
    pass


def immutable_annotations(
    a: Sequence[int] = [],
    b: typing.Mapping[str, int] = {},
    c: Optional[Sequence[int]] = [],
    d: Union[tuple, frozenset] = set(),
    e: tuple | None = [],
    f: Annotated[Sequence[int], "meta"] = [],
    g: int = [],
    h: "Sequence[int]" = [],  # a string annotation is not resolved: flagged
    i: list = [],  # flagged
    j: Union[list, tuple] = [],  # flagged
    k: Sequence[int] | list = [],  # flagged
    l2: typing.Optional[dict] = {},  # flagged
):
    pass


lambda_default = [(lambda a=[]: a)]  # lambdas are not checked


class Methods:
    def method(self, a=[]):
        def inner(b={}):
            return b

        return inner

    list = tuple  # a class attribute named `list` shadows the builtin in the class body

    def shadowed_in_class(self, a=list()):  # not flagged: resolves to the class attribute
        def inner(b=list()):  # flagged: class scopes are invisible from functions
            return b

        return inner


def shadowing(set=set):
    def inner(a=set(), b=dict()):  # `set` is a parameter here, `dict` is the builtin
        return a, b

    return inner


def set():  # from here on, `set` is this function
    pass


def after_shadowing(a=set(), b=dict()):  # `b` only
    pass
