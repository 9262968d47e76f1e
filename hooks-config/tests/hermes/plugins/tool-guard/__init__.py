"""Refuses `rm -rf` in the terminal tool; records tool results; raises on one tool."""

import json
from pathlib import Path

RESULTS = Path(__file__).with_name("results.jsonl")


def refuse_destructive(tool_name, args, task_id, **kwargs):
    if tool_name == "terminal" and "rm -rf" in str(args.get("command", "")):
        return {"action": "block", "message": "tool-guard: rm -rf is not allowed"}
    return None


def record(tool_name, args, result, **kwargs):
    if tool_name == "explode":
        raise RuntimeError("cannot record " + tool_name)
    with open(RESULTS, "a") as out:
        out.write(json.dumps({"tool": tool_name, "args": args, "result": result}) + "\n")


def register(ctx):
    ctx.register_hook("pre_tool_call", refuse_destructive)
    ctx.register_hook("post_tool_call", record)
    ctx.register_tool(name="unused", toolset="x", schema={}, handler=lambda p, **k: "")
