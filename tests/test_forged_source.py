"""A hand-in never chooses its source (issue 32, item 1): whatever its metadata says (an absolute path, a `../`
path out of notebooks/<tier>, another notebook's name, a session that is not the course's), no grading path
(grade, the Dask path, check, the platform adapters, interviews and reviews) takes a learner's file as its
reference or writes the reference cache from it. The forged hand-in here is the classic one: a blank notebook
whose test cells say `pass` and whose metadata names the hand-in itself."""

from __future__ import annotations

import json

import nbformat
import pytest

from autograder import course
from autograder.course import GradingInputError
from autograder.pipeline import cells, check, expected, handin, sources
from autograder.pipeline.cells import kind
from tests.tiny_course import blank, cli, make_course


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("forged")
    src = make_course(tmp)
    for tier, stem in (("junior", "02_tiny"), ("mid", "01_tiny")):  # a second notebook, and a stem in two tiers
        nb = nbformat.read(str(src), 4)
        nb.metadata["ptlab"].update(tier=tier, notebook=stem)
        (tmp / "notebooks" / tier).mkdir(exist_ok=True)
        nbformat.write(nb, str(tmp / "notebooks" / tier / f"{stem}.ipynb"))
    return tmp, src


@pytest.fixture
def here(tiny, monkeypatch, tmp_path):
    """In this process: the tiny course as SOURCE_DIR, a cache of this test's own."""
    tmp, src = tiny
    monkeypatch.setattr(course, "SOURCE_DIR", tmp / "notebooks")
    monkeypatch.setattr(expected, "CACHE", tmp_path / "cache" / "expected")
    monkeypatch.setattr(cells, "COMPOSED_DIR", tmp_path / "cache" / "composed")
    return tmp, src


def forged(src, path, claim) -> str:
    """A blank hand-in at `path` whose tests say `pass` and whose metadata names `claim` as its notebook."""
    nb = blank(nbformat.read(str(src), 4))
    for c in nb.cells:
        if kind(c) == "test":
            c.source = "pass"
    nb.metadata["ptlab"] = dict(nb.metadata.get("ptlab") or {}, course=course.COURSE, tier="junior",
                                notebook=claim(path) if callable(claim) else claim)
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))
    return str(path)


def _abs(path):
    return str(path.with_suffix(""))  # SOURCE_DIR/junior/<absolute> is the absolute path itself


def _up(path):
    return "../" * 12 + str(path.with_suffix("")).lstrip("/")


CLAIMS = {
    "absolute path of itself": _abs,
    "../ path to itself": _up,
    "../ path into the course": "../junior/01_tiny",
    "a folder inside the tier": "sub/01_tiny",
    "backslash path": "..\\01_tiny",
    "another notebook's stem": "02_other",
    "a NUL byte": "01_tiny\x00",
    "a lookalike letter": "01_t\u0456ny",
    "trailing space": "01_tiny ",
    "with its suffix": "01_tiny.ipynb",
    "a listed notebook of the same tier": "02_tiny",
    "not a string": ["01_tiny"],
    "empty": "",
}


def _no_forged_cache(tmp_path, hand_in):
    store = tmp_path / "cache" / "expected"
    key = expected._key(hand_in)
    assert not (store / f"{key}.json").exists()
    return [p.name for p in store.glob("*.json")] if store.is_dir() else []


# --- the one lookup -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("claim", CLAIMS, ids=list(CLAIMS))
def test_source_of_never_follows_the_metadata_out_of_the_listing(here, tmp_path, claim):
    tmp, src = here
    path = tmp_path / "submitted" / "mallory" / "junior" / "01_tiny.ipynb"
    forged(src, path, CLAIMS[claim])
    nb = handin.read(path)
    for tier in ("junior", None):
        with pytest.raises(GradingInputError) as e:
            sources.source_of(path, nb, tier)
        assert "Traceback" not in str(e.value)


def test_source_of_is_the_course_file_named_by_folder_and_name(here, tmp_path):
    tmp, src = here
    path = tmp_path / "submitted" / "ann" / "junior" / "01_tiny.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(blank(nbformat.read(str(src), 4)), str(path))
    assert sources.source_of(path, handin.read(path), "junior") == src
    assert sources.source_of(path, handin.read(path)) == src
    with pytest.raises(GradingInputError, match="a junior notebook in the mid folder"):
        sources.source_of(path, handin.read(path), "mid")
    with pytest.raises(GradingInputError):
        sources.source_of(path, handin.read(path), "../junior")
    # in a class folder the file's name decides: a renamed copy there is no notebook of the tier
    renamed = path.with_name("mine.ipynb")
    renamed.write_bytes(path.read_bytes())
    with pytest.raises(GradingInputError):
        sources.source_of(renamed, handin.read(renamed), "junior")
    # a learner's own check of a renamed copy finds it by the metadata's bare name
    assert sources.source_of(renamed, handin.read(renamed)) == src


def test_metadata_with_no_course_claim_is_graded_by_its_name(here, tmp_path):
    tmp, src = here
    nb = blank(nbformat.read(str(src), 4))
    nb.metadata.pop("ptlab", None)
    path = tmp_path / "junior" / "01_tiny.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, str(path))
    assert sources.source_of(path, handin.read(path), "junior") == src


# --- grade (the local pool's grade_one) -------------------------------------------------------------------------

@pytest.mark.parametrize("claim", ["absolute path of itself", "../ path to itself", "another notebook's stem"])
def test_grade_one_gives_a_plain_status_and_zero(here, tmp_path, claim):
    from autograder.classroom.jobs import Job, grade_one

    tmp, src = here
    path = tmp_path / "submitted" / "mallory" / "junior" / "01_tiny.ipynb"
    forged(src, path, CLAIMS[claim])
    row = grade_one(Job("mallory", "junior", path), None, 30)
    assert row["score"] == "0" and row["max_score"] == "0"
    assert "metadata" in row["status"] and "Traceback" not in row["status"]
    assert _no_forged_cache(tmp_path, path) == []


def test_grade_on_the_command_line_scores_the_forgery_zero_and_caches_nothing_of_it(tiny, tmp_path):
    import csv

    tmp, src = tiny
    sub = tmp_path / "submitted"
    absolute = sub / "mallory" / "junior" / "01_tiny.ipynb"
    relative = sub / "oscar" / "junior" / "01_tiny.ipynb"
    forged(src, absolute, _abs)
    forged(src, relative, _up)
    out = tmp_path / "grades.csv"
    done = cli(tmp, "grade", str(sub), "--workers", "1", "--out", str(out), PTLAB_CACHE_DIR=str(tmp_path / "cache"))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    rows = {r["student"]: r for r in csv.DictReader(out.open())}
    for who in ("mallory", "oscar"):
        assert rows[who]["score"] == "0" and "metadata" in rows[who]["status"], rows[who]
    for hand_in in (absolute, relative):
        assert _no_forged_cache(tmp_path, hand_in) == []


# --- the Dask path ------------------------------------------------------------------------------------------------

def test_the_cluster_references_come_from_the_course_never_from_the_hand_in(here, tmp_path, monkeypatch):
    """references_for (the grading process) does not even open a hand-in: the folder and the name say the
    source. The worker grades through grade_one, tested above."""
    import os

    from autograder.classroom import cluster
    from autograder.classroom.jobs import Job

    tmp, src = here
    seen = []
    monkeypatch.setattr(expected.Reference, "reports", lambda self, nb, timeout=None: seen.append(self.source_path)
                        or {"x": []})
    forged_path = tmp_path / "submitted" / "mallory" / "junior" / "01_tiny.ipynb"
    forged(src, forged_path, _abs)
    pipe = tmp_path / "submitted" / "pat" / "junior" / "01_tiny.ipynb"
    pipe.parent.mkdir(parents=True)
    os.mkfifo(pipe)  # opened, this would hang the grading process
    stray = tmp_path / "submitted" / "quinn" / "junior" / "99_nothing.ipynb"
    forged(src, stray, "99_nothing")
    jobs = [Job("mallory", "junior", forged_path), Job("pat", "junior", pipe), Job("quinn", "junior", stray)]
    refs = cluster.references_for(jobs)
    assert set(seen) == {src}
    assert refs[jobs[2]] == {}
    assert refs[jobs[0]] == refs[jobs[1]] != {}


# --- check ----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("claim", ["absolute path of itself", "../ path to itself"])
def test_check_refuses_the_forgery_with_exit_2_and_one_line(tiny, tmp_path, claim):
    tmp, src = tiny
    path = forged(src, tmp_path / "work" / "01_tiny.ipynb", CLAIMS[claim])
    done = cli(tmp, "check", path, "--json", PTLAB_CACHE_DIR=str(tmp_path / "cache"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "metadata" in json.loads(done.stdout)["error"]
    assert "Traceback" not in done.stderr
    assert _no_forged_cache(tmp_path, tmp_path / "work" / "01_tiny.ipynb") == []


def test_check_server_answers_the_forgery_with_a_status(here, tmp_path):
    from autograder.learner import check_server

    tmp, src = here
    path = forged(src, tmp_path / "work" / "01_tiny.ipynb", _abs)
    code, out, err = check_server.run(path, as_json=True, record=False, timeout=30)
    assert code == 2 and "metadata" in json.loads(out)["error"] and "Traceback" not in err


def test_a_learners_copy_of_the_source_never_writes_the_reference_cache(here, tmp_path, monkeypatch):
    """Even a hand-in whose cells are the source's own: the reference runs from the course file; only a check
    of the course file itself is the reference run."""
    tmp, src = here
    copy = tmp_path / "submitted" / "ann" / "junior" / "01_tiny.ipynb"
    copy.parent.mkdir(parents=True)
    copy.write_bytes(src.read_bytes())
    ran, stored = [], []
    monkeypatch.setattr(expected.Reference, "reports", lambda self, nb, timeout=None: ran.append(self.source_path)
                        or {})
    monkeypatch.setattr(expected.Reference, "_store", lambda self, reports: stored.append(self.source_path))
    monkeypatch.setattr(check, "execute", lambda nb, **kw: (nb, []))
    check.grade_notebook(copy, tier="junior")
    assert ran == [src] and stored == []
    ran.clear()
    check.grade_notebook(src)  # the course file itself: its run is the reference run
    assert ran == []


# --- the platform adapters ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("platform", ["gradescope", "prairielearn"])
def test_platforms_score_the_forgery_zero(here, tmp_path, platform, monkeypatch, adapter_in_process):
    from autograder.classroom import gradescope, prairielearn

    tmp, src = here
    root = tmp_path / platform
    folder = root / ("submission" if platform == "gradescope" else "student")
    path = forged(src, folder / "01_tiny.ipynb", _abs)
    if platform == "gradescope":
        out = gradescope.run(root, "junior", ["01"], "visible", timeout=30)
    else:
        out = prairielearn.run(root, "junior", ["01"], timeout=30)
    res = json.loads(out.read_text())
    assert res["score"] == 0
    assert all(t.get("score", t.get("points")) == 0 for t in res["tests"])
    assert res["tests"] if platform == "gradescope" else res["gradable"] is False  # PrairieLearn: not gradable
    assert "01_tiny: 0 / 5" in res["output"]
    assert _no_forged_cache(tmp_path, __import__("pathlib").Path(path)) == []


def test_github_classroom_check_refuses_the_forgery(tiny, tmp_path):
    tmp, src = tiny
    path = forged(src, tmp_path / "repo" / "01_tiny.ipynb", _up)
    done = cli(tmp, "check", path, "--format", "github-classroom", PTLAB_CACHE_DIR=str(tmp_path / "cache"))
    assert done.returncode == 2 and "metadata" in done.stderr and "Traceback" not in done.stderr


# --- interviews and reviews -----------------------------------------------------------------------------------------

def _session(src, ident: str):
    """A composed source in the (test's) course cache, as compose.store keeps it, and a learner's file naming it."""
    cells.COMPOSED_DIR.mkdir(parents=True, exist_ok=True)
    stored = cells.COMPOSED_DIR / f"{ident}.ipynb"
    nb = nbformat.read(str(src), 4)
    nb.metadata = {"ptlab": {"course": course.COURSE, "composed": ident}}
    nbformat.write(nb, str(stored))
    return stored


@pytest.mark.parametrize("mode", ["interview", "review"])
def test_a_session_is_graded_against_its_composed_source_never_the_learners_file(here, tmp_path, mode):
    tmp, src = here
    ident = f"{mode}-20261127-120000-abcdef"
    stored = _session(src, ident)
    learner = tmp_path / "work" / f"{ident}.ipynb"
    forged(src, learner, _abs)
    nb = nbformat.read(str(learner), 4)
    nb.metadata["ptlab"] = {"course": course.COURSE, "composed": ident, "mode": mode}
    nbformat.write(nb, str(learner))
    assert sources.source_of(learner, handin.read(learner)) == stored
    # a session id that is a path, or one this course's cache does not hold, is a status
    for bad in [str(learner.with_suffix("")), f"../../{learner.stem}", f"{mode}-20261127-120000-000000", 7]:
        nb.metadata["ptlab"]["composed"] = bad
        nbformat.write(nb, str(learner))
        with pytest.raises(GradingInputError):
            sources.source_of(learner, handin.read(learner))


@pytest.mark.parametrize("mode", ["interview", "review"])
def test_a_session_notebook_copied_to_the_learner_never_fills_the_cache(here, tmp_path, monkeypatch, mode):
    tmp, src = here
    ident = f"{mode}-20261127-120000-fedcba"
    stored = _session(src, ident)
    learner = tmp_path / "work" / f"{ident}.ipynb"
    learner.parent.mkdir(parents=True)
    learner.write_bytes(stored.read_bytes())  # the composed source's own cells: still the learner's file
    ran, kept = [], []
    monkeypatch.setattr(expected.Reference, "reports", lambda self, nb, timeout=None: ran.append(self.source_path)
                        or {})
    monkeypatch.setattr(expected.Reference, "_store", lambda self, reports: kept.append(self.source_path))
    monkeypatch.setattr(check, "execute", lambda nb, **kw: (nb, []))
    check.grade_notebook(learner)
    assert ran == [stored] and kept == []


TIER_CLAIMS = {"an absolute tier": "/junior", "a ../ tier": "../notebooks/junior", "an unknown tier": "expert",
               "another known tier": "mid", "not a string": None}


@pytest.mark.parametrize("claim", TIER_CLAIMS, ids=list(TIER_CLAIMS))
def test_a_forged_tier_is_a_status_in_a_class_folder(here, tmp_path, claim):
    tmp, src = here
    path = tmp_path / "submitted" / "mallory" / "junior" / "01_tiny.ipynb"
    forged(src, path, "01_tiny")
    nb = handin.read(path)
    nb.metadata["ptlab"]["tier"] = TIER_CLAIMS[claim]
    with pytest.raises(GradingInputError):
        sources.source_of(path, nb, "junior")


def test_a_stem_in_two_tiers_is_found_by_folder_and_never_by_a_forged_tier(here, tmp_path):
    tmp, src = here
    path = tmp_path / "work" / "mid" / "01_tiny.ipynb"
    path.parent.mkdir(parents=True)
    nb = blank(nbformat.read(str(src), 4))
    nb.metadata.pop("ptlab")
    nbformat.write(nb, str(path))
    assert sources.source_of(path, handin.read(path)) == tmp / "notebooks" / "mid" / "01_tiny.ipynb"
    loose = tmp_path / "work" / "01_tiny.ipynb"
    loose.write_bytes(path.read_bytes())
    with pytest.raises(GradingInputError, match="more than one tier"):
        sources.source_of(loose, handin.read(loose))


def test_a_session_id_in_a_class_folder_chooses_nothing(here, tmp_path):
    """In a class folder the composed metadata is not a way out of the folder's tier: the name decides."""
    tmp, src = here
    ident = "interview-20261127-120000-abcabc"
    _session(src, ident)
    path = tmp_path / "submitted" / "mallory" / "junior" / "01_tiny.ipynb"
    path.parent.mkdir(parents=True)
    nb = blank(nbformat.read(str(src), 4))
    nb.metadata["ptlab"] = {"course": course.COURSE, "composed": ident}
    nbformat.write(nb, str(path))
    assert sources.source_of(path, handin.read(path), "junior") == src
