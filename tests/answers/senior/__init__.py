"""Known-wrong and alternative answers for the senior tier."""

from tests.answers import edited, reference  # noqa: F401  (the tier's answer modules import them from here)
