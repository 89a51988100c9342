#!/usr/bin/env bash
# Instructions (I refs) and simulated last-level cache misses of the
# generated unfused and fused engines on one input, under valgrind's
# cachegrind (repeatable from run to run, unlike wall clock).
#
#   crates/bench/cachegrind.sh [render|ast] [SIZE] [VARIANT]
#
# Cachegrind counts the whole process, so each input is run three times:
# `--only build` (generate + build the tree, no traversal), `--only unfused`
# and `--only fused`; the engine's numbers are the difference from `build`.
# Appends a Markdown row to crates/bench/results/cachegrind.md.
set -euo pipefail
case_name=${1:-render}
size=${2:-1000}
variant=${3:-1}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target-bench}
cargo build --release -q -p treefuse-bench --manifest-path "$root/Cargo.toml"
bin=$CARGO_TARGET_DIR/release/treefuse-bench
# Fixed simulated caches, so that results do not depend on the host (valgrind
# otherwise copies the host's LL, which on some VMs is hundreds of MiB):
# 32 KiB 8-way L1s and an 8 MiB 16-way LL by default; override with CACHES.
CACHES=${CACHES:---I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Prints "Ir LLmisses D1misses" (LL misses = LLi + LLd read + LLd write) of one run.
measure() {
    valgrind --tool=cachegrind --cache-sim=yes $CACHES --cachegrind-out-file="$tmp/$1.out" \
        "$bin" --only "$1" --case "$case_name" --variant "$variant" --size "$size" \
        >/dev/null 2>"$tmp/$1.log"
    # The summary line of cg_annotate-style output: "summary: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw".
    awk '/^events:/ { for (i = 2; i <= NF; i++) name[i - 1] = $i }
         /^summary:/ { for (i = 2; i <= NF; i++) v[name[i - 1]] = $i
                       print v["Ir"], v["ILmr"] + v["DLmr"] + v["DLmw"], v["D1mr"] + v["D1mw"] }' "$tmp/$1.out"
}

read -r b_ir b_ll b_d1 < <(measure build)
read -r u_ir u_ll u_d1 < <(measure unfused)
read -r f_ir f_ll f_d1 < <(measure fused)
u_ir=$((u_ir - b_ir)); u_ll=$((u_ll - b_ll)); u_d1=$((u_d1 - b_d1))
f_ir=$((f_ir - b_ir)); f_ll=$((f_ll - b_ll)); f_d1=$((f_d1 - b_d1))
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "n/a"; else printf "%.3f", a / b }'; }
ir_ratio=$(ratio "$f_ir" "$u_ir")
ll_ratio=$(ratio "$f_ll" "$u_ll")
d1_ratio=$(ratio "$f_d1" "$u_d1")
echo "input: $case_name variant $variant size $size (engine only: whole run minus --only build; caches: $CACHES)"
echo "unfused: I refs $u_ir, LL misses $u_ll, D1 misses $u_d1"
echo "fused:   I refs $f_ir, LL misses $f_ll, D1 misses $f_d1"
echo "fused/unfused: I refs $ir_ratio, LL misses $ll_ratio, D1 misses $d1_ratio"
out=$here/results/cachegrind.md
mkdir -p "$here/results"
if [ ! -f "$out" ]; then
    {
        echo "# Cachegrind: generated unfused vs fused (engine only)"
        echo
        echo "Produced by \`crates/bench/cachegrind.sh CASE SIZE VARIANT\` (valgrind --tool=cachegrind with $CACHES;"
        echo "each number is the whole run minus a \`--only build\` run of the same input)."
        echo
        echo "| input | unfused I refs | fused I refs | fused/unfused I refs | unfused LL misses | fused LL misses | fused/unfused LL misses | unfused D1 misses | fused D1 misses | fused/unfused D1 misses |"
        echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    } >"$out"
fi
echo "| $case_name $variant / $size | $u_ir | $f_ir | $ir_ratio | $u_ll | $f_ll | $ll_ratio | $u_d1 | $f_d1 | $d1_ratio |" >>"$out"
echo "appended to $out"
