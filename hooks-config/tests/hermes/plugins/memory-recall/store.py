"""A sibling module the plugin imports: a tiny fixed memory."""

FACTS = {
    "python": "The user writes Python 3.12",
    "deploy": "Deploys go through the staging cluster first",
}


def recall(message: str) -> list:
    words = message.lower().split()
    return [fact for key, fact in FACTS.items() if key in words]
