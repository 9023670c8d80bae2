"""Known-wrong and alternative answers for the senior tier."""


def edited(answer: str, old: str, new: str = "") -> str:
    """`answer` with its one occurrence of `old` replaced: a known-wrong answer that differs from a correct one by
    exactly the slip it names (a stale `old` fails here, not as a wrong answer that passes for the wrong reason)."""
    assert answer.count(old) == 1, f"{old!r} occurs {answer.count(old)} times"
    return answer.replace(old, new)
