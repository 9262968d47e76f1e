"""Records each slash command in commands.jsonl beside this file (a plain def handler)."""

import json
from pathlib import Path

LOG = Path(__file__).with_name("commands.jsonl")


def handle(event_type: str, context: dict):
    entry = {
        "event": event_type,
        "command": context.get("command"),
        "args": context.get("args"),
        "platform": context.get("platform"),
        "user": context.get("user_id"),
    }
    with open(LOG, "a") as log:
        log.write(json.dumps(entry) + "\n")
