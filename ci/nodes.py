"""Which course notebook a test is about, read from its name: the one place that knows how the suite names
them. A pytest node id (`notebooks/mid/17_x.ipynb::Cell 3`, `tests/test_notebooks.py::test_lint[mid/17_x]`)
or JUnit's dotted class name (`notebooks.mid.17_x.ipynb`) all hold `<tier>/<NN_name>` or `<tier>.<NN_name>`.
Used by the suite's scheduler (conftest.py) and by the bench's per-notebook figure (ci/bench.py)."""

from __future__ import annotations

import re

_NOTEBOOK = re.compile(r"(?:^|[/.\[])(junior|mid|senior)[/.](\d\d_\w+?)(?:\.ipynb|\]|$)")


def notebook_named(text: str) -> str | None:
    """'tier/NN_name' of the notebook a node id or JUnit name is about, or None."""
    found = _NOTEBOOK.search(text)
    return f"{found.group(1)}/{found.group(2)}" if found else None
