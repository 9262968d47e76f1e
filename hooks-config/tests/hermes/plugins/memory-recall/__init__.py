"""Adds what store.py remembers to the user message, once per turn (an async callback)."""

from .store import recall


async def add_memories(session_id, user_message, is_first_turn, **kwargs):
    facts = recall(user_message)
    if not facts:
        return None
    return {"context": "Recalled memories:\n" + "\n".join("- " + f for f in facts)}


def register(ctx):
    ctx.register_hook("pre_llm_call", add_memories)
