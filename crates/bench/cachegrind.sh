#!/usr/bin/env bash
# Instructions (I refs) and simulated cache misses of the generated unfused,
# generated fused and (render tree) hand-fused engines on chosen inputs,
# under valgrind's cache simulator (repeatable from run to run, unlike wall
# clock). A thin wrapper around the benchmark harness, which runs itself
# under valgrind (callgrind's simulator, the same model as cachegrind's)
# once per engine (`--only ENGINE`) and collects the events of one warm run
# only, after a warm-up run on a copy of the tree:
#
#   crates/bench/cachegrind.sh [render|ast] [SIZES] [VARIANT]
#
# e.g. `crates/bench/cachegrind.sh render 1000,10000 1`. Simulated caches:
# 32 KiB 8-way L1s and an 8 MiB 16-way LL, fixed so that results do not
# depend on the host. Writes crates/bench/results/cachegrind/results.md
# (the counts are in its second table) and prints it.
set -euo pipefail
case_name=${1:-render}
sizes=${2:-1000}
variant=${3:-1}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target-bench}
cargo build --release -q -p treefuse-bench --manifest-path "$root/Cargo.toml"
"$CARGO_TARGET_DIR/release/treefuse-bench" --case "$case_name" --variant "$variant" \
    --sizes "$sizes" --iters 3 --cachegrind \
    --cachegrind-max-pages 1000000000 --cachegrind-max-functions 1000000000 \
    --out "$here/results/cachegrind"
