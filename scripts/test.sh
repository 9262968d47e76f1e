#!/usr/bin/env bash
# The whole test suite: formatting, lints, the feature combinations that matter, the docs, and
# every test of the workspace with both registration backends (inventory, the default, and
# linkme), and the callgrind gate on the dispatch's instruction counts (needs valgrind).
set -euo pipefail
cd "$(dirname "$0")/.."

# A fresh clone builds everything once: incremental caches would only take disk.
export CARGO_INCREMENTAL=0

echo "== cargo fmt --check"
cargo fmt --all --check

echo "== cargo clippy (inventory)"
cargo clippy --workspace --all-targets -- -D warnings

echo "== cargo clippy (linkme)"
cargo clippy --workspace --all-targets --features linkme -- -D warnings

echo "== feature combinations of the facade"
# Compiled-in hooks only; then each layer on its own.
for features in "" "linkme" "tokio" "external" "config" "command" "process" "http" "cli"; do
    echo "-- --no-default-features --features '${features}'"
    cargo clippy -p hookchain --no-default-features --features "${features}" -- -D warnings
done

echo "== cargo doc (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps

echo "== cargo test (inventory)"
cargo test --workspace

echo "== cargo test: compiled-in hooks only (--no-default-features)"
cargo test -p hookchain --no-default-features

echo "== cargo test (linkme)"
cargo test --workspace --features linkme

echo "== callgrind gate: instructions per dispatch (a release build of one bench)"
./scripts/callgrind_dispatch.sh --check
