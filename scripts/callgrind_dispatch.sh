#!/usr/bin/env bash
# Instructions per dispatch, counted with valgrind's callgrind (the same figure on every run):
# `benches/dispatch_instructions.rs` under callgrind with 1,000 and 11,000 iterations per
# variant; the difference divided by 10,000 is one dispatch, with the set-up cancelled out.
#
#   scripts/callgrind_dispatch.sh            # this checkout
#   scripts/callgrind_dispatch.sh REV        # the same bench against commit REV, built in a
#                                            # temporary worktree (the bench uses only API that
#                                            # REV must have: HooksBuilder, Turn, points)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
if [[ $# -ge 1 ]]; then
    tree=$(mktemp -d)/tree
    git worktree add --detach "$tree" "$1" >/dev/null
    trap 'git -C "$root" worktree remove --force "$tree"' EXIT
    cp benches/dispatch_instructions.rs "$tree/benches/"
    grep -q 'name = "dispatch_instructions"' "$tree/Cargo.toml" ||
        printf '\n[[bench]]\nname = "dispatch_instructions"\nharness = false\n' >>"$tree/Cargo.toml"
    cd "$tree"
fi
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
bin=$(cargo bench --bench dispatch_instructions --no-run --message-format=json |
    sed -n 's/.*"executable":"\([^"]*dispatch_instructions[^"]*\)".*/\1/p' | tail -1)
[[ -x "$bin" ]] || { echo "the bench did not build" >&2; exit 1; }
count() { # variant iterations -> instructions
    local out
    out=$(mktemp)
    valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" "$1" "$2" >/dev/null 2>&1
    callgrind_annotate "$out" 2>/dev/null | sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,
    rm -f "$out"
}
echo "commit $(git rev-parse --short HEAD), rustc $(rustc --version | cut -d' ' -f2)"
declare -A per
for variant in baseline pointers turn baseline_empty empty; do
    small=$(count "$variant" 1000)
    large=$(count "$variant" 11000)
    per[$variant]=$(((large - small) / 10000))
    printf '%-9s %6d instructions per iteration\n' "$variant" "${per[$variant]}"
done
pointers=$((per[pointers] - per[baseline]))
turn=$((per[turn] - per[baseline]))
empty=$((per[empty] - per[baseline_empty]))
echo "beyond the loop: pointers $pointers, turn $turn, empty point $empty"
awk -v t="$turn" -v p="$pointers" 'BEGIN { printf "turn / pointers = %.2f\n", t / p }'
