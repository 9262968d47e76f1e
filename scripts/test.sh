#!/usr/bin/env bash
# The whole test suite: formatting, lints, the feature combinations that matter, the docs, every
# test of the workspace with both registration backends (inventory, the default, and linkme),
# the demos, every crate packaged as the Rust package registry would take it, and the callgrind
# gate on the dispatch's instruction counts (needs valgrind).
#
# Every `--workspace` step builds the same crate graph as a contributor's `cargo test
# --workspace` (the rig adapter and rig-agent included), so the steps share their artifacts and
# CI proves what a contributor runs. The declared rust-version is the toolchain this runs on;
# clippy's `incompatible_msrv` lint (denied in `[workspace.lints]`) holds every crate to it.
set -euo pipefail
cd "$(dirname "$0")/.."

# A fresh clone builds everything once: incremental caches would only take disk.
export CARGO_INCREMENTAL=0

step() { echo "== $*"; }

step "cargo fmt --check"
cargo fmt --all --check

step "cargo clippy (inventory)"
cargo clippy --workspace --all-targets -- -D warnings

step "cargo clippy (linkme)"
cargo clippy --workspace --all-targets --features linkme -- -D warnings

step "feature combinations of the facade"
# Compiled-in hooks only; then each layer on its own.
for features in "" "linkme" "tokio" "external" "config" "command" "process" "http" "cli" "guards" "metrics" "rig"; do
    echo "-- --no-default-features --features '${features}'"
    cargo clippy -p hookchain --no-default-features --features "${features}" -- -D warnings
done

step "cargo doc (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps

step "cargo test --workspace (inventory)"
HOOKCHAIN_DIFFERENTIAL_REQUIRED=1 HOOKCHAIN_PYTHON_REQUIRED=1 cargo test --workspace

step "cargo test: the metrics built-in through the metrics facade (feature metrics)"
cargo test -p hookchain-guards --features metrics --lib metrics

step "cargo test: compiled-in hooks only (--no-default-features)"
cargo test -p hookchain --no-default-features

step "cargo test --workspace (linkme)"
cargo test --workspace --features linkme

step "the demos run to the end (each exits nonzero when a guard does not do what it shows)"
cargo run -q --example workflow_guard >/dev/null
cargo run -q --example guards >/dev/null
cargo run -q --example extension >/dev/null
cargo run -q --example rig_agent --features rig >/dev/null

step "cargo package: every published crate, as the registry would build it"
# The packages that are not published (test fixtures) stay out; `cargo package` builds each
# packaged crate from its .crate file against the others', in dependency order. In a target dir
# of its own, made anew: cargo takes a registry crate's build as final, so a packaged crate built
# by an earlier run (same name, same version, older code) would otherwise be used again.
rm -rf target/package target/package-verify
# cargo unpacks each packaged crate into $CARGO_HOME/registry/src/-<hash of the local registry's
# path>/ and never unpacks the same name and version there again: what an earlier run of this
# checkout unpacked (older code) would be compiled against. Those directories hold only the
# crates `cargo package` made; drop ours.
rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/hookchain*
cargo package --workspace --exclude second-crate --exclude hookchain-compile-fail \
    --target-dir target/package-verify

step "callgrind gate: instructions per dispatch (a release build of one bench)"
./scripts/callgrind_dispatch.sh --check
