# F541: f-string without any placeholders.
x = 1

# Flagged, at each f-string part (its prefix).
a = f"plain"
b = F"upper"
c = rf"raw {{braces}}"
d = f"one" f"two"  # both parts
e = "plain " f"part"  # only the f-string part
g = f"""triple"""
h = f"{x}" + f"nothing"  # separate expressions
i = f"{f'inner'}"  # the nested one


def inner():
    return f"in a function"


# Not flagged.
j = f"{x}"
k = f"a" f"{x}"  # one part has a placeholder: the whole expression is fine
m = "not an f-string"
n = f"{x!r:>10}"
o = f"{x=}"
p = f"{x:{x}}"
