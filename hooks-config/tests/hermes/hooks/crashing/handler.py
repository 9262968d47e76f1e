"""Raises on every event: hookchain must report where, and go on."""


def handle(event_type, context):
    ratio = len(context["message"]) / 0
    return ratio
