#!/usr/bin/env bash
# Ten trivial pass-through hooks on a tool call, side by side in one run, wall clock:
# hookchain's Turn (a release build of benches/dispatch_instructions.rs, `wall` mode), a Python
# re-creation of Hermes Agent's invoke_hook loop (hermes_dispatch.py), and a spawn per hook as
# Claude Code runs command hooks (spawn_per_hook.py); and rig-agent's own HookStack next to
# hookchain's chain inside one rig run (hooks-rig/benches/peer_hookstack.rs, `wall` mode; its
# instruction counts: `peer_hookstack rig N` / `peer_hookstack hookchain N` under callgrind).
set -euo pipefail
cd "$(dirname "$0")/../.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$(pwd)/target}"
bin=$(cargo bench --bench dispatch_instructions --no-default-features --no-run \
    --message-format=json |
    sed -n 's/.*"executable":"\([^"]*dispatch_instructions[^"]*\)".*/\1/p' | tail -1)
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
"$bin" wall
python3 scripts/peers/hermes_dispatch.py
python3 scripts/peers/spawn_per_hook.py
rig=$(cargo bench -p hookchain-rig --bench peer_hookstack --features scripted --no-run \
    --message-format=json |
    sed -n 's/.*"executable":"\([^"]*peer_hookstack[^"]*\)".*/\1/p' | tail -1)
"$rig" wall
