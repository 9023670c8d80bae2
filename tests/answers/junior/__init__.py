"""Known-wrong and alternative answers for the junior tier."""
