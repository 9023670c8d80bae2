"""Claims as code: every checkable sentence of the course about PyTorch, one test each (docs/authoring.md)."""
