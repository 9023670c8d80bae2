"""The project's own syllabus keeps the course's topic ids, and the notebooks cover every one of them."""

import json

from autograder.authoring.lint import coverage
from autograder.course import TIERS, source_notebooks, syllabus

# The seed and canon topics, then the second round's (src: [peers]: J24-J27, M39-M46, S34-S45).
EXPECTED = {"junior": [f"J{i:02d}" for i in range(1, 28)], "mid": [f"M{i:02d}" for i in range(1, 47)],
            "senior": [f"S{i:02d}" for i in range(1, 46)]}


def test_syllabus_has_the_course_topic_ids():
    topics = syllabus()
    for tier in TIERS:
        assert sorted(t for t, v in topics.items() if v["tier"] == tier) == EXPECTED[tier]
    assert all(v["kind"] in ("code", "write") for v in topics.values())


def test_every_topic_is_covered_by_a_graded_cell():
    got = coverage()
    for tier in TIERS:
        assert source_notebooks(tier), f"{tier}: no notebooks"
        missing = [t for t in EXPECTED[tier] if not got[t]["cells"]]
        assert missing == [], f"{tier}: topics without a graded cell: {missing}"


def test_tier_size_targets():
    minimum = {"junior": (8, 45), "mid": (10, 60), "senior": (10, 50)}
    for tier, (n_nb, n_cells) in minimum.items():
        nbs = source_notebooks(tier)

        cells = sum(1 for p in nbs for c in json.loads(p.read_text())["cells"]
                    if c["metadata"].get("nbgrader", {}).get("grade"))
        assert len(nbs) >= n_nb, f"{tier}: {len(nbs)} notebooks, want {n_nb}"
        assert cells >= n_cells, f"{tier}: {cells} graded cells, want {n_cells}"
