#!/usr/bin/env python3
"""How far fusing minic's last chunk (dead_branches, unreachable, flatten,
allocate) can go: a model of the four passes on the tree they start from.

Usage (the tree before the last chunk: `optimize` without its last four
calls, run unfused):

    rm -rf /tmp/pre && cp -r examples/minic /tmp/pre
    sed -i -e '/^    root.dead_branches();/d' -e '/^    root.unreachable();/d' \
        -e '/^    root.flatten();/d' -e '/^    root.allocate();/d' /tmp/pre/types.tf
    treefuse gen-example minic --size 10000 --seed 1 > /tmp/prog10k.json
    treefuse run /tmp/pre --fuse optimize --tree /tmp/prog10k.json > /tmp/pre10k.json
    python3 examples/minic/last_chunk_bound.py /tmp/pre10k.json

It prints the visits each pass makes (they must equal the unfused run's
`visits_per_call`, which checks the model), then:

* a lower bound on the fused visits of the chunk for any fuser that merges
  calls on a node only where the node stands for every pass in the same
  place: every node some pass visits costs a visit, and a statement that
  `allocate` finds in another list than the earlier passes did (spliced
  out of a nested block) costs a second one;
* for each pair of consecutive passes, how many of the later pass's visits
  (below the functions) fall on a node standing where the earlier pass
  visited it: the most that merging those two passes' loops can save.
"""
import collections
import json
import sys

sys.setrecursionlimit(100000)
VISITS = collections.Counter()
SEEN = collections.defaultdict(set)
WHERE = collections.defaultdict(dict)  # pass -> node -> the list or slot it stood in
SAME = collections.Counter()  # pass -> visits on a node standing where the previous pass saw it
ORDER = ["dead_branches", "unreachable", "flatten", "allocate"]


def visit(p, n, where):
    VISITS[p] += 1
    SEEN[p].add(id(n))
    WHERE[p][id(n)] = where
    k = ORDER.index(p)
    if k > 0 and where is not None and WHERE[ORDER[k - 1]].get(id(n)) == where:
        SAME[p] += 1


def dead_branches(n, in_list, where):
    visit("dead_branches", n, where)
    ty = n["type"]
    if ty == "Block":
        out = []
        for s in n["stmts"]:
            out += dead_branches(s, True, id(n))
        n["stmts"] = out
    elif ty == "If":
        c = n["cond"]
        if c["type"] == "BoolLit":
            b = n["then_b"] if c["v"] else n["else_b"]
            dead_branches(b, False, ("slot", id(n)))
            return [b]
        dead_branches(n["then_b"], False, ("slot", id(n)))
        dead_branches(n["else_b"], False, ("slot", id(n)))
    elif ty == "While":
        c = n["cond"]
        if c["type"] == "BoolLit" and not c["v"]:
            return [] if in_list else [{"type": "Block", "stmts": []}]
        dead_branches(n["body"], False, ("slot", id(n)))
    return [n]


def unreachable(n, where):
    visit("unreachable", n, where)
    ty = n["type"]
    if ty == "Block":
        dead, out = False, []
        for s in n["stmts"]:
            if dead:
                visit("unreachable", s, id(n))  # drop_dead
                continue
            unreachable(s, id(n))
            dead = s["returns"]
            out.append(s)
        n["stmts"], n["returns"] = out, dead
    elif ty == "If":
        unreachable(n["then_b"], ("slot", id(n)))
        unreachable(n["else_b"], ("slot", id(n)))
        n["returns"] = n["then_b"]["returns"] and n["else_b"]["returns"]
    elif ty == "While":
        unreachable(n["body"], ("slot", id(n)))
        n["returns"] = False
    else:
        n["returns"] = ty == "Return"


def flatten(n, in_list, where):
    visit("flatten", n, where)
    ty = n["type"]
    if ty == "Block":
        out = []
        for s in n["stmts"]:
            out += flatten(s, True, id(n))
        n["stmts"] = out
        if in_list:
            return out
    elif ty == "If":
        flatten(n["then_b"], False, ("slot", id(n)))
        flatten(n["else_b"], False, ("slot", id(n)))
    elif ty == "While":
        flatten(n["body"], False, ("slot", id(n)))
    elif in_list and (ty == "Nop" or (ty == "ExprStmt" and n["e"]["effect_free"])):
        return []
    return [n]


def expr(e):
    visit("allocate", e, None)
    for v in e.values():
        for x in v if isinstance(v, list) else [v]:
            if isinstance(x, dict) and "type" in x:
                expr(x)


def allocate(n, where):
    visit("allocate", n, where)
    ty = n["type"]
    if ty == "Block":
        for s in n["stmts"]:
            allocate(s, id(n))
    elif ty == "If":
        expr(n["cond"])
        allocate(n["then_b"], ("slot", id(n)))
        allocate(n["else_b"], ("slot", id(n)))
    elif ty == "While":
        expr(n["cond"])
        allocate(n["body"], ("slot", id(n)))
    elif ty in ("Let",):
        expr(n["init"])
    elif ty in ("Assign",):
        expr(n["value"])
    elif ty in ("Return",):
        expr(n["value"])
    elif ty in ("ExprStmt", "Print"):
        expr(n["e"])


def main():
    tree = json.load(open(sys.argv[1]))
    funcs = tree["funcs"]
    run = {
        "dead_branches": lambda f: f.__setitem__("body", dead_branches(f["body"], False, ("slot", id(f)))[0]),
        "unreachable": lambda f: unreachable(f["body"], ("slot", id(f))),
        "flatten": lambda f: flatten(f["body"], False, ("slot", id(f))),
        "allocate": lambda f: allocate(f["body"], ("slot", id(f))),
    }
    # Statements spliced into another list are found by comparing the list
    # each statement stands in for flatten and for allocate.
    for p in ORDER:
        VISITS[p] += 1 + len(funcs)  # the program and each function
        for f in funcs:
            run[p](f)
    print("visits per pass:", dict(VISITS))
    earlier = SEEN["dead_branches"] | SEEN["unreachable"] | SEEN["flatten"]
    only_earlier = len(earlier - SEEN["allocate"])
    moved = sum(
        1
        for node, where in WHERE["allocate"].items()
        if where is not None and node in WHERE["flatten"] and WHERE["flatten"][node] != where
    )
    print("nodes visited by dead_branches/unreachable/flatten, never by allocate:", only_earlier)
    print("nodes allocate finds in another list than flatten did:", moved)
    print("lower bound on the fused visits of the chunk:", VISITS["allocate"] + only_earlier + moved)
    for k in range(1, 4):
        print(
            f"{ORDER[k]} visits below the functions on a node standing where {ORDER[k - 1]} visited it:",
            SAME[ORDER[k]],
        )


main()
