"""Posts to the URL in alert_url.txt (beside this file) when a turn reaches STEPS steps."""

import asyncio
import json
import urllib.request
from pathlib import Path

STEPS = 3
URL_FILE = Path(__file__).with_name("alert_url.txt")


def post(url: str, body: dict) -> int:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.status


async def handle(event_type: str, context: dict):
    if context.get("iteration") != STEPS or not URL_FILE.exists():
        return
    tools = ", ".join(context.get("tool_names", []))
    text = f"Step {context['iteration']} of one turn; tools this step: {tools}"
    await asyncio.get_running_loop().run_in_executor(
        None, post, URL_FILE.read_text().strip(), {"chat_id": "ops", "text": text}
    )
