# E711: comparison to None with == or != (use `is` / `is not`).
x = object()
y = [1]

# Flagged, at the None literal.
a = x == None
b = x != None
c = None == x  # on the left
d = None != x
e = (x) == (None)
f = x < y == None  # later in a chain
g = None == None  # twice: left and right
h = None == x == None  # twice


def inner(v):
    return [w for w in v if w != None]


lam = (lambda v: v == None)(x)

# Not flagged.
i = x is None
j = x is not None
k = 1 == None  # a non-singleton constant on the left skips the pair
m = "s" != None
n = (1, 2) == None  # a tuple of literals is a constant too
o = None == 1  # nor is None compared to a non-singleton constant
p = None == (1, "a")
q = x in [None]
r = x < None  # only == and !=
s = x == "None"
t = (1, x) == None  # not a constant tuple: flagged
