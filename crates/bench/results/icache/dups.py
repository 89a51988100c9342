"""Fused functions and dispatchers of a generated module that are the same
code up to the names of the fused items they call (partition refinement:
two items stay together while their bodies are equal once every fused
name is replaced by its class).

usage: python3 dups.py minic.rs   (target/release/build/treefuse-bench-*/out/minic.rs)"""
import collections
import re
import sys

src = open(sys.argv[1]).read()
item = re.compile(
    r'\n    (#\[inline[^\n]*\]\n(?:    ///[^\n]*\n)?(?:    #\[allow[^\n]*\]\n)?'
    r'    fn (fused_[a-z0-9_]+)<const C: bool>\((?:.|\n)*?\n    \})(?=\n)')
items = {m.group(2): re.sub(r'\n    ///[^\n]*|#\[inline[^\]]*\]', '', m.group(1))
         for m in item.finditer(src)}
fused_name = re.compile(r'\bfused_[a-z0-9_]+\b')
cls = {n: 0 for n in items}
while True:
    def key(n):
        body = fused_name.sub(
            lambda m: 'SELF' if m.group(0) == n else f'C{cls.get(m.group(0), m.group(0))}',
            items[n])
        return (cls[n], body)
    ids = {}
    new = {n: ids.setdefault(key(n), len(ids)) for n in items}
    stable = len(ids) == len(set(cls.values()))
    cls = new
    if stable:
        break
groups = collections.defaultdict(list)
for n in items:
    groups[cls[n]].append(n)
dup = [g for g in groups.values() if len(g) > 1]
total = sum(len(b) for b in items.values())
spare = sum(len(items[n]) for g in dup for n in g[1:])
print(f'{len(items)} fused items, {len(groups)} distinct; {sum(len(g) - 1 for g in dup)} '
      f'copies of another ({spare} of {total} characters)')
print('identical dispatchers:', [g for g in dup if any(n.startswith('fused_call_') for n in g)])
for g in sorted(dup, key=lambda g: -len(items[g[0]]))[:10]:
    print(len(items[g[0]]), g)
