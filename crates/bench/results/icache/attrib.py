"""Attribute perf samples (cpu-clock, --call-graph dwarf) of minic-bench to
engine phases and to the source file of the sampled instruction.
usage: attrib.py CALLCHAINS.txt LEAF-SRCLINES.txt
  CALLCHAINS.txt:    perf script -F ip,sym
  LEAF-SRCLINES.txt: perf script -F ip,srcline --hide-call-graph
The fused functions that mark chunk 1 and the propagate/fold fixpoint are
named as in main at a6f7cd6 (their numbers change with the fused IR: find
them in callgrind's inclusive listing for another build). Unfused `fold`
runs both in chunk 1 and in the fixpoint and is counted with the fixpoint."""
import re, sys, collections
src = open(sys.argv[2]).read().split('\n')
leaf_src = []  # (ip, srcline) per sample, in order
for a, b in zip(src, src[1:]):
    if re.match(r'^\s*[0-9a-f]+\s*$', a):
        leaf_src.append((int(a.strip(), 16), b.strip()))
FUSED = r'traversals::(fused_\d+_|fused_call_|run_optimize_fused)'
FIX = r'fused_87_block|fused_call_49\b|fused_call_50\b|fused_call_52\b'
CHUNK1 = r'fused_call_11[56]\b|fused_151_block'
C = collections.defaultdict(collections.Counter)
j = 0
for s in open(sys.argv[1]).read().split('\n\n'):
    lines = [l.strip() for l in s.strip().split('\n') if l.strip()]
    if not lines:
        continue
    ip = int(lines[0].split()[0], 16)
    # The two listings hold the same samples in order; user addresses are
    # file offsets in one and mapped addresses in the other (same low 12 bits).
    while j < len(leaf_src) and (leaf_src[j][0] & 0xfff) != (ip & 0xfff):
        j += 1
    if j == len(leaf_src):
        break
    srcline = leaf_src[j][1]
    j += 1
    if re.search(FUSED, s):
        e = 'fused chunk 1' if re.search(CHUNK1, s) else 'fused fixpoint' if re.search(FIX, s) else 'fused rest'
    elif re.search(r'traversals::(propagate|fold)', s):
        e = 'unfused propagate/fold'
    elif re.search(r'traversals::', s):
        e = 'unfused other passes'
    else:
        continue
    f = srcline.split(':')[0].split('/')[-1]
    k = 'Arc count (sync.rs, atomic.rs)' if f in ('sync.rs', 'atomic.rs') else \
        'generated code (minic.rs)' if f == 'minic.rs' else \
        'imbl and drop glue (map.rs, btree.rs, mod.rs)' if f in ('map.rs', 'btree.rs', 'mod.rs') else 'other'
    C[e][k] += 1
for e in sorted(C):
    tot = sum(C[e].values())
    print(f'{e}: {tot} samples; ' + ', '.join(f'{k} {v} ({100*v/tot:.0f}%)' for k, v in C[e].most_common()))
