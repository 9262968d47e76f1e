#!/usr/bin/env python3
"""Ten Python callbacks through a hook dispatcher loop of the shape Hermes Agent's
`invoke_hook` has: a registry of callbacks per hook name, called one after another, each under
its own try/except (a failing plugin is logged and skipped), the non-None results collected.

This is a minimal re-creation written for this comparison, not Hermes' code: it keeps only
what every call pays for (the lookup by name, the loop, the keyword arguments, the guard around
each callback, the list of results) and none of Hermes' own work around it. Each callback does
what the Rust bench's hooks do: compare the length of the tool's name with 3, which never holds.

    python3 scripts/peers/hermes_dispatch.py            # prints ns per invoke_hook, median of rounds
"""
import logging
import statistics
import sys
import time
from collections import defaultdict

logger = logging.getLogger("plugins")


class Plugins:
    def __init__(self):
        self._hooks = defaultdict(list)

    def register_hook(self, name, callback):
        self._hooks[name].append(callback)

    def invoke_hook(self, name, **kwargs):
        results = []
        for callback in self._hooks.get(name, ()):
            try:
                result = callback(**kwargs)
            except Exception as error:  # a plugin's failure never takes the agent down
                logger.warning("hook %s failed: %s", name, error)
                continue
            if result is not None:
                results.append(result)
        return results


def make_hook(i):
    def hook(tool_name, args, **_):
        if len(tool_name) == 3:
            return {"action": "block", "message": f"hook {i}"}
        return None

    return hook


def main():
    plugins = Plugins()
    for i in range(10):
        plugins.register_hook("pre_tool_call", make_hook(i))
    rounds, per_round = 30, 20_000
    args = {"path": "src/lib.rs"}
    samples = []
    for _ in range(rounds):
        started = time.perf_counter_ns()
        for _ in range(per_round):
            plugins.invoke_hook("pre_tool_call", tool_name="read_file", args=args, task_id="t")
        samples.append((time.perf_counter_ns() - started) / per_round)
    empty = []
    for _ in range(rounds):
        started = time.perf_counter_ns()
        for _ in range(per_round):
            plugins.invoke_hook("post_llm_call", response="done")
        empty.append((time.perf_counter_ns() - started) / per_round)
    print(f"python {sys.version.split()[0]}")
    print(f"hermes-like invoke_hook, ten callbacks: {statistics.median(samples):.0f} ns")
    print(f"hermes-like invoke_hook, no callbacks:  {statistics.median(empty):.0f} ns")


if __name__ == "__main__":
    main()
