# F632: `is` / `is not` against a literal.
x = object()

# Flagged, at the whole comparison, once per offending pair.
a = x is "str"
b = x is not 1
c = 1.5 is x
d = x is b"bytes"
e = x is (1, 2)
f = x is []
g = x is not {}
h = x is {1}
i = x is [y for y in ()]
j = x is {y: y for y in ()}
k = x is {y for y in ()}
m = x is 1 is not "two"  # two pairs
n = 0 < x is 3
t = x is ()  # the empty tuple is a constant too


def inner(v):
    # `-1` is an operator, not a literal; the nested tuple is constant
    return v is -1 or v is ("a", ("b", 1))


# Not flagged.
o = x is None
p = x is True
q = x is ...
r = x == "str"
s = x is (1, x)  # not every element is a literal
u = x in [1]
