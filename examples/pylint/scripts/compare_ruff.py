#!/usr/bin/env python3
"""Compare treefuse-pylint with ruff: per rule, matched / missed / extra
diagnostics on a directory of Python files, and optionally the time and
peak memory of both, side by side.

    python3 examples/pylint/scripts/compare_ruff.py            # the stdlib
    python3 examples/pylint/scripts/compare_ruff.py DIR --show 5
    python3 examples/pylint/scripts/compare_ruff.py --time 5   # + speed
    python3 examples/pylint/scripts/compare_ruff.py --update-corpus

It installs the pinned ruff into a virtual environment under `target/`
(network needed once), builds `treefuse-pylint` in release mode, lists the
`.py` files below DIR (default: the running python3's standard library,
skipping `site-packages`, `test` and `tests` directories) and gives the
same list to both tools. A diagnostic is the tuple (file, line, column,
code, message); ruff's `[*]` fix marker is not part of it.

`--update-corpus` rewrites `examples/pylint/corpus/expected.txt` with
ruff's output on the corpus (what `tests/corpus.rs` checks in CI, where
there is no network).
"""

import argparse
import collections
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
import time

RUFF_VERSION = "0.17.6"
RULES = [
    "E711", "E712", "E722", "E731", "E741", "F541", "F631", "F632",
    "B006", "B011", "PLR0911", "PLR0912", "PLR0915", "C901", "F841",
]
HERE = os.path.dirname(os.path.abspath(__file__))
CRATE = os.path.dirname(HERE)
WORKSPACE = os.path.dirname(os.path.dirname(CRATE))
SKIP_DIRS = {"site-packages", "test", "tests"}


def target_dir():
    return os.environ.get("CARGO_TARGET_DIR", os.path.join(WORKSPACE, "target"))


def ensure_ruff(path):
    if path:
        return path
    venv = os.path.join(target_dir(), "ruff-venv")
    ruff = os.path.join(venv, "bin", "ruff")
    if os.path.exists(ruff):
        out = subprocess.run([ruff, "--version"], capture_output=True, text=True).stdout
        if out.split()[-1:] == [RUFF_VERSION]:
            return ruff
    print(f"installing ruff {RUFF_VERSION} into {venv}", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-q",
                    f"ruff=={RUFF_VERSION}"], check=True)
    return ruff


def ensure_linter(path):
    if path:
        return path
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "treefuse-pylint"],
                   cwd=WORKSPACE, check=True)
    return os.path.join(target_dir(), "release", "treefuse-pylint")


def python_files(root):
    if os.path.isfile(root):
        return [root]
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        files.extend(os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(".py"))
    return sorted(files)


def run(cmd, cwd=None):
    """Runs cmd; returns (stdout, wall seconds, peak RSS of the child in bytes)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=cwd)
        # wait4 gives this child's own resource usage (ru_maxrss in KiB).
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode not in (0, 1):
            sys.exit(f"{cmd[0]} failed ({proc.returncode}):\n{err.read().decode(errors='replace')}")
        return out.read().decode(), wall, usage.ru_maxrss * 1024


def ruff_cmd(ruff, rules, files, fmt="json"):
    return [ruff, "check", "--no-cache", "--isolated", "--select", ",".join(rules),
            "--output-format", fmt, "--exit-zero", *files]


def diagnostics(cmd):
    """The (file, line, column, code, message) set of a run with JSON output
    (ruff's keys; a syntax error has no code and counts as invalid-syntax)."""
    out, _, _ = run(cmd)
    return {(os.path.abspath(d["filename"]), d["location"]["row"], d["location"]["column"],
             d["code"] or "invalid-syntax", d["message"]) for d in json.loads(out)}


def compare(args, ruff, linter, files):
    theirs = diagnostics(ruff_cmd(ruff, RULES, files))
    ours = diagnostics([linter, "--format", "json", *files])
    by_rule = collections.defaultdict(lambda: [0, [], []])
    for d in theirs & ours:
        by_rule[d[3]][0] += 1
    for d in sorted(theirs - ours):
        by_rule[d[3]][1].append(d)
    for d in sorted(ours - theirs):
        by_rule[d[3]][2].append(d)
    print(f"{len(files)} files; ruff {len(theirs)} diagnostics, treefuse-pylint {len(ours)}")
    print(f"{'rule':<16}{'matched':>9}{'missed':>9}{'extra':>9}")
    codes = RULES + sorted(c for c in by_rule if c not in RULES)
    for code in codes:
        matched, missed, extra = by_rule[code]
        print(f"{code:<16}{matched:>9}{len(missed):>9}{len(extra):>9}")
        for kind, items in (("missed", missed), ("extra", extra)):
            for d in items[: args.show]:
                print(f"    {kind}: {d[0]}:{d[1]}:{d[2]}: {d[3]} {d[4]}")
    return all(not by_rule[c][1] and not by_rule[c][2] for c in codes)


def timing(args, ruff, linter, files):
    """Both tools on the same files, alternating, one thread and then all."""
    for threads in ("1", str(os.cpu_count())):
        env_note = f"{threads} thread(s)"
        os.environ["RAYON_NUM_THREADS"] = threads
        samples = {"ruff": [], "treefuse-pylint": []}
        peaks = {"ruff": 0, "treefuse-pylint": 0}
        for _ in range(args.time):
            for name, cmd in (("ruff", ruff_cmd(ruff, RULES, files, "concise")),
                              ("treefuse-pylint", [linter, *files])):
                _, wall, peak = run(cmd)
                samples[name].append(wall)
                peaks[name] = max(peaks[name], peak)
        r = sorted(samples["ruff"])
        t = sorted(samples["treefuse-pylint"])
        med = lambda xs: xs[len(xs) // 2]
        print(f"{env_note}: ruff median {med(r) * 1000:.0f} ms (min {r[0] * 1000:.0f}), "
              f"treefuse-pylint median {med(t) * 1000:.0f} ms (min {t[0] * 1000:.0f}), "
              f"ratio {med(t) / med(r):.2f}; peak RSS ruff {peaks['ruff'] / 2**20:.0f} MiB, "
              f"treefuse-pylint {peaks['treefuse-pylint'] / 2**20:.0f} MiB")
        # The phases of treefuse-pylint, fused and unfused (CPU seconds
        # summed over files; lint excludes parsing and building the trees).
        phases = {}
        for engine in ("fused", "unfused"):
            runs = [lint_stats(linter, engine, files) for _ in range(args.time)]
            phases[engine] = {k: sorted(r[k] for r in runs)[len(runs) // 2]
                              for k in ("parse_seconds", "build_seconds", "lint_seconds")}
        f, u = phases["fused"], phases["unfused"]
        print(f"    phases (medians): parse {f['parse_seconds'] * 1000:.0f} ms, "
              f"build {f['build_seconds'] * 1000:.0f} ms, lint fused "
              f"{f['lint_seconds'] * 1000:.1f} ms, unfused {u['lint_seconds'] * 1000:.1f} ms "
              f"({u['lint_seconds'] / f['lint_seconds']:.1f}x)")
    os.environ.pop("RAYON_NUM_THREADS", None)


def lint_stats(linter, engine, files):
    """The `--stats` object of one run of the linter."""
    err = subprocess.run([linter, "--engine", engine, "--stats", *files],
                         capture_output=True, text=True).stderr
    return json.loads(err.strip().splitlines()[-1])


def update_corpus(ruff):
    corpus = os.path.join(CRATE, "corpus")
    files = sorted(f"corpus/{f}" for f in os.listdir(corpus) if f.endswith(".py"))
    out = subprocess.run(ruff_cmd(ruff, RULES, files, "concise"), cwd=CRATE,
                         capture_output=True, text=True).stdout
    lines = [line.replace(" [*] ", " ") for line in out.splitlines()
             if line.startswith("corpus/")]
    with open(os.path.join(corpus, "expected.txt"), "w") as f:
        f.write(f"# ruff {RUFF_VERSION} on corpus/*.py (scripts/compare_ruff.py --update-corpus)\n")
        f.writelines(line + "\n" for line in lines)
    print(f"{len(lines)} diagnostics written to corpus/expected.txt")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dir", nargs="?", help="directory or file to lint (default: the stdlib)")
    p.add_argument("--show", type=int, default=3, help="differences to print per rule and kind")
    p.add_argument("--time", type=int, default=0, metavar="N",
                   help="also time both tools, N alternating runs per thread count")
    p.add_argument("--ruff", help="use this ruff binary instead of installing the pinned one")
    p.add_argument("--linter", help="use this treefuse-pylint binary instead of building it")
    p.add_argument("--update-corpus", action="store_true",
                   help="rewrite corpus/expected.txt with ruff's output and stop")
    args = p.parse_args()
    ruff = ensure_ruff(args.ruff)
    if args.update_corpus:
        update_corpus(ruff)
        return 0
    linter = ensure_linter(args.linter)
    root = args.dir or sysconfig.get_paths()["stdlib"]
    files = python_files(root)
    same = compare(args, ruff, linter, files)
    if args.time:
        timing(args, ruff, linter, files)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
