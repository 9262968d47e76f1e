"""Appends each agent event, with its context, to activity.log beside this file."""

import json
from datetime import datetime
from pathlib import Path

LOG = Path(__file__).with_name("activity.log")


async def handle(event_type: str, context: dict):
    line = {"at": datetime.now().isoformat(), "event": event_type, **context}
    with open(LOG, "a") as log:
        log.write(json.dumps(line) + "\n")
