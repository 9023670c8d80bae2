"""The committed student release is what nbgrader generates now, and gives nothing away."""

import json
import re

import pytest

from autograder.authoring.release import stale
from autograder.course import RELEASE_DIR, colab_url, release_path, source_notebooks

SOURCES = source_notebooks()
IDS = [f"{p.parent.name}/{p.stem}" for p in SOURCES]


def test_release_is_fresh():
    assert stale() == [], "release/ is stale against notebooks/: run `make release` and commit"


@pytest.mark.parametrize("source", SOURCES, ids=IDS)
def test_release_holds_no_solutions_markers_or_hidden_tests(source):
    release = json.loads(release_path(source).read_text())
    text = json.dumps(release)
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"):
        assert marker not in text, f"{marker} leaked into the release"
    src = json.loads(source.read_text())
    regions = re.compile(r"### BEGIN (SOLUTION|HIDDEN TESTS)\n(.*?)### END (SOLUTION|HIDDEN TESTS)", re.S)
    bodies = ["".join(c["source"]) for c in src["cells"]]
    public = "\n".join(regions.sub("", b) for b in bodies)  # what the learner may see anyway
    for body in bodies:
        for region in (m.group(2) for m in regions.finditer(body)):
            for line in (ln.strip() for ln in region.splitlines()):
                if len(line) > 25 and not line.startswith("#") and line not in public:
                    assert json.dumps(line)[1:-1] not in text, f"solution or hidden-test text leaked: {line!r}"


@pytest.mark.parametrize("source", SOURCES, ids=IDS)
def test_colab_badge_points_at_the_release_file(source):
    release = json.loads(release_path(source).read_text())
    url = colab_url(source.parent.name, source.stem)
    assert url in "".join(release["cells"][0]["source"])
    assert url.endswith("/" + str(release_path(source).relative_to(RELEASE_DIR.parent)))
    assert release["metadata"]["accelerator"] == "GPU" and release["metadata"]["colab"]["gpuType"]
