#!/usr/bin/env bash
# Fuzzes every target in fuzz/ for SECONDS each (default 120) with cargo-fuzz and libFuzzer.
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`). The corpus grows in
# fuzz/work/<target> (not committed), seeded from fuzz/corpus/<target>; a crash is saved under
# fuzz/artifacts/<target>/: copy it into fuzz/regressions/<target>/, fix the bug, and
# tests/config/fuzz_regressions.rs checks it on stable from then on.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds="${1:-120}"
targets=(hook_output matcher config_native config_claude config_docker_agent)
cargo +nightly fuzz build -O
for target in "${targets[@]}"; do
    mkdir -p "work/${target}"
    echo "== ${target}: ${seconds} s"
    status=0
    cargo +nightly fuzz run -O "${target}" "work/${target}" "corpus/${target}" -- \
        -max_total_time="${seconds}" -print_final_stats=1 >"work/${target}.log" 2>&1 || status=$?
    grep -E '^(stat::number_of_executed_units|stat::new_units_added|Done)' "work/${target}.log" || true
    if [ "${status}" -ne 0 ]; then
        tail -n 40 "work/${target}.log"
        echo "fuzz target ${target} failed (exit ${status}); the input is under fuzz/artifacts/${target}/" >&2
        exit "${status}"
    fi
done
