#!/usr/bin/env bash
# Compile time of a crate with 200 `#[register_hook]` fns next to the same crate with 200 plain
# fns (the same bodies, no attribute), both depending on hookchain with compiled-in hooks only.
# The dependencies are built first; then each crate is rebuilt alone (its lib.rs touched) three
# times, dev profile and release, and the median wall-clock time printed.
#
#   scripts/compile_time.sh        # needs the crates hookchain depends on in cargo's cache
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
work=$(mktemp -d)
[[ -n "${KEEP:-}" ]] || trap 'rm -rf "$work"' EXIT
cp Cargo.lock "$work/"
cat >"$work/Cargo.toml" <<TOML
[workspace]
members = ["hooks200", "plain200"]
resolver = "3"
TOML
for crate in hooks200 plain200; do
    mkdir -p "$work/$crate/src"
    cat >"$work/$crate/Cargo.toml" <<TOML
[package]
name = "$crate"
version = "0.1.0"
edition = "2024"

[dependencies]
hookchain = { path = "$root", default-features = false }
TOML
    {
        echo "use hookchain::points::ToolCall;"
        echo "use hookchain::prelude::*;"
        for i in $(seq -w 0 199); do
            [[ $crate == hooks200 ]] && echo "#[register_hook(\"intercept_tool_call\", priority = 1)]"
            echo "pub fn hook_$i(call: &ToolCall) -> HookResult<Value> {"
            echo "    if call.name.len() == $((10#$i % 7 + 3)) && call.str_arg(\"path\").is_some_and(|p| p.contains(\"..\")) {"
            echo "        return HookResult::block(\"no parent dirs ($i)\");"
            echo "    }"
            echo "    HookResult::Pass"
            echo "}"
        done
    } >"$work/$crate/src/lib.rs"
done
cd "$work"
[[ -n "${KEEP:-}" ]] && echo "crates kept in $work"
cargo build --offline -q -p plain200 && cargo build --offline -q --release -p plain200
median3() { sort -n | sed -n 2p; }
for profile in dev release; do
    flag=$([[ $profile == release ]] && echo --release || true)
    for crate in plain200 hooks200; do
        cargo build --offline -q $flag -p "$crate"
        t=$(for _ in 1 2 3; do
            touch "$crate/src/lib.rs"
            s=$(date +%s.%N)
            cargo build --offline -q $flag -p "$crate"
            e=$(date +%s.%N)
            awk -v s="$s" -v e="$e" 'BEGIN { printf "%.2f\n", e - s }'
        done | median3)
        echo "$profile $crate ${t}s"
    done
done
