"""Known-wrong and alternative answers for the senior tier."""
