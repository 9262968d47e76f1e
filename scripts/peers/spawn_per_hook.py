#!/usr/bin/env python3
"""Ten hooks run the way Claude Code runs command hooks: one process per hook per tool call,
the JSON payload on its stdin, its exit code and output read back. Claude Code starts the
matching hooks of an event in parallel; both ways are timed, each hook being `sh -c 'cat >
/dev/null'` (read the payload, pass), the cheapest hook a shell command can be.

    python3 scripts/peers/spawn_per_hook.py     # prints µs per tool call, median of rounds
"""
import json
import statistics
import subprocess
import time

HOOK = ["/bin/sh", "-c", "cat > /dev/null"]
PAYLOAD = json.dumps({
    "session_id": "bench",
    "hook_event_name": "PreToolUse",
    "tool_name": "read_file",
    "tool_input": {"path": "src/lib.rs"},
}).encode()


def sequential():
    for _ in range(10):
        subprocess.run(HOOK, input=PAYLOAD, capture_output=True, check=True)


def parallel():
    children = [
        subprocess.Popen(HOOK, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(10)
    ]
    for child in children:
        child.communicate(PAYLOAD)


def main():
    rounds, per_round = 15, 10
    for name, run in (("sequential", sequential), ("parallel", parallel)):
        samples = []
        for _ in range(rounds):
            started = time.perf_counter_ns()
            for _ in range(per_round):
                run()
            samples.append((time.perf_counter_ns() - started) / per_round / 1000)
        print(f"a spawn per hook, ten hooks, {name}: {statistics.median(samples):.0f} µs per tool call")


if __name__ == "__main__":
    main()
