# E712: equality comparison to True or False.
x = object()
obj = object()

# Flagged, at the whole comparison; the message quotes the other operand.
a = x == True
b = x != True
c = x == False
d = x != False
e = True == x
f = False != x
g = obj.flag == True
h = obj.get(x) == False
i = obj[0] != True
j = -x == True
k = x == True == x  # chains get the generic message
m = True != True  # twice: `!=` is flagged even between booleans
r = True == True  # once: the left `True`; the pair of equal literals is skipped
n = x == True != False  # twice, generic message
o = True == x == False  # twice


def inner(v):
    return [w for w in v if w == True]


# Not flagged.
p = x is True
q = x is not False
s = 1 == True  # a non-singleton constant on the left
t = True == 1  # or as the first comparator of a left True
u = x == "True"
v = x < True
w = (1, 2) != False
