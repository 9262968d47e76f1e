#!/usr/bin/env bash
# Compile time of a crate with 200 `#[register_hook]` fns next to the same crate with 200 plain
# fns (the same bodies, no attribute), both depending on hookchain with compiled-in hooks only.
# The dependencies are built first; then each crate is rebuilt alone (its lib.rs touched) three
# five times, dev profile and release, and the median wall-clock time printed.
#
#   scripts/compile_time.sh          # needs the crates hookchain depends on in cargo's cache
#   scripts/compile_time.sh --floor  # and three crates of what the attribute generates, written
#                                    # out by hand, to see what each part costs:
#       expanded200  the attribute's output as it is (the adapter through the `HookArg` and
#                    `IntoHookReturn` traits, the record submitted to the link-time collection);
#       record200    the same adapter and record, the record a `#[used]` static that nothing
#                    collects: the collection's share;
#       floor200     an adapter that calls the fn directly (no trait), and the static record:
#                    the least a registration that points at an adapter can generate.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}" CARGO_INCREMENTAL=0
floor=$([[ "${1:-}" == --floor ]] && echo 1 || true)
crates="hooks200 plain200"
[[ -n $floor ]] && crates="$crates expanded200 record200 floor200"
work=$(mktemp -d)
[[ -n "${KEEP:-}" ]] || trap 'rm -rf "$work"' EXIT
cp Cargo.lock "$work/"
cat >"$work/Cargo.toml" <<TOML
[workspace]
members = [$(printf '"%s", ' $crates)]
resolver = "3"
TOML
# The record and the adapter of hook `$1`, as the attribute writes them: `$2` is how the adapter
# calls the fn, `$3` how the record is kept.
written_out() {
    local i=$1 call=$2 keep=$3 record
    record="hookchain::__private::Registration {
        point: <InterceptToolCall as HookPoint>::NAME,
        name: \"$crate::hook_$i\",
        priority: 1,
        extension: \"$crate\",
        kind: <InterceptToolCall as HookPoint>::KIND,
        on_error: None,
        default_on_error: <InterceptToolCall as HookPoint>::DEFAULT_ON_ERROR,
        file: \"src/lib.rs\",
        line: 1,
        is_async: false,
        handler: &hookchain::__private::SyncHandler::<InterceptToolCall>(__adapter),
    }"
    echo "const _: () = {"
    if [[ $call == traits ]]; then
        echo "    fn __adapter<'a, 'b, 'c>(input: &'a <InterceptToolCall as HookPoint>::Input, _cx: &'b hookchain::HookContext<'c>) -> hookchain::__private::SyncReturn<InterceptToolCall> {"
        echo "        let arg = <&ToolCall as hookchain::__private::HookArg<'a, <InterceptToolCall as HookPoint>::Input>>::from_input(input);"
        echo "        <HookResult<Value> as hookchain::__private::IntoHookReturn<<InterceptToolCall as HookPoint>::Rewrite>>::into_hook_output(hook_$i(arg))"
    else
        echo "    fn __adapter(input: &ToolCall, _cx: &hookchain::HookContext<'_>) -> hookchain::__private::SyncReturn<InterceptToolCall> {"
        echo "        hookchain::__private::IntoHookReturn::into_hook_output(hook_$i(input))"
    fi
    echo "    }"
    if [[ $keep == collected ]]; then
        echo "    hookchain::__private::submit! { $record }"
    else
        echo "    #[used] static RECORD: hookchain::__private::Registration = $record;"
    fi
    echo "};"
}
for crate in $crates; do
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
        [[ $crate == *200 && $crate != hooks200 && $crate != plain200 ]] &&
            echo "use hookchain::{HookPoint, points::InterceptToolCall};"
        for i in $(seq -w 0 199); do
            [[ $crate == hooks200 ]] && echo "#[register_hook(\"intercept_tool_call\", priority = 1)]"
            echo "pub fn hook_$i(call: &ToolCall) -> HookResult<Value> {"
            echo "    if call.name.len() == $((10#$i % 7 + 3)) && call.str_arg(\"path\").is_some_and(|p| p.contains(\"..\")) {"
            echo "        return HookResult::block(\"no parent dirs ($i)\");"
            echo "    }"
            echo "    HookResult::Pass"
            echo "}"
            case $crate in
            expanded200) written_out "$i" traits collected ;;
            record200) written_out "$i" traits static ;;
            floor200) written_out "$i" direct static ;;
            esac
        done
    } >"$work/$crate/src/lib.rs"
done
cd "$work"
[[ -n "${KEEP:-}" ]] && echo "crates kept in $work"
cargo build --offline -q -p plain200 && cargo build --offline -q --release -p plain200
median5() { sort -n | sed -n 3p; }
for profile in dev release; do
    flag=$([[ $profile == release ]] && echo --release || true)
    for crate in plain200 $(echo "$crates" | sed 's/plain200//'); do
        cargo build --offline -q $flag -p "$crate"
        t=$(for _ in 1 2 3 4 5; do
            touch "$crate/src/lib.rs"
            s=$(date +%s.%N)
            cargo build --offline -q $flag -p "$crate"
            e=$(date +%s.%N)
            awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f\n", e - s }'
        done | median5)
        echo "$profile $crate ${t}s"
    done
done
