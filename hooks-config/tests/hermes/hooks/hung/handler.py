"""Sleeps far past any time limit a test gives it."""

import asyncio


async def handle(event_type, context):
    await asyncio.sleep(120)
