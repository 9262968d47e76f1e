#!/usr/bin/env bash
# The whole test suite: formatting, lints, the feature combinations that matter, the docs, and
# every test of the workspace with both registration backends (inventory, the default, and
# linkme); the rig adapter in a step of its own; and the callgrind gate on the dispatch's
# instruction counts (needs valgrind).
#
# hooks-rig is left out of the `--workspace` steps (`--exclude hookchain-rig`): it brings rig-agent
# and ~80 crates of its own, needs rustc 1.95 where the rest needs 1.89, and rig turns on
# serde_json features (preserve_order, ...) that would then apply to every crate's tests. Its own
# step builds rig once.
set -euo pipefail
cd "$(dirname "$0")/.."

# A fresh clone builds everything once: incremental caches would only take disk.
export CARGO_INCREMENTAL=0

echo "== cargo fmt --check"
cargo fmt --all --check

echo "== cargo clippy (inventory)"
cargo clippy --workspace --exclude hookchain-rig --all-targets -- -D warnings

echo "== cargo clippy (linkme)"
cargo clippy --workspace --exclude hookchain-rig --all-targets --features linkme -- -D warnings

echo "== feature combinations of the facade"
# Compiled-in hooks only; then each layer on its own.
for features in "" "linkme" "tokio" "external" "config" "command" "process" "http" "cli" "guards"; do
    echo "-- --no-default-features --features '${features}'"
    cargo clippy -p hookchain --no-default-features --features "${features}" -- -D warnings
done

echo "== cargo doc (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --exclude hookchain-rig --no-deps

echo "== cargo test (inventory)"
cargo test --workspace --exclude hookchain-rig

echo "== cargo test: compiled-in hooks only (--no-default-features)"
cargo test -p hookchain --no-default-features

echo "== cargo test (linkme)"
cargo test --workspace --exclude hookchain-rig --features linkme

echo "== the demos run to the end (each exits nonzero when a guard does not do what it shows)"
cargo run -q --example workflow_guard >/dev/null
cargo run -q --example guards >/dev/null

echo "== the rig adapter (hooks-rig, rig-agent 0.44, rustc 1.95): lints, docs, tests, the example"
cargo clippy -p hookchain-rig --all-targets -- -D warnings
cargo clippy -p hookchain --no-default-features --features rig -- -D warnings
cargo clippy -p hookchain --example rig_agent --features rig -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc -p hookchain-rig -p hookchain --no-deps --features hookchain/rig
cargo test -p hookchain-rig
cargo run --example rig_agent --features rig

echo "== callgrind gate: instructions per dispatch (a release build of one bench)"
./scripts/callgrind_dispatch.sh --check
