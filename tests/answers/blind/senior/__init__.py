"""Blind sets: answers written from the student release alone (see tests/answers/load_blind)."""
