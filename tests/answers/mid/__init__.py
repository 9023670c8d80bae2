"""Known-wrong and alternative answers for the mid tier."""
