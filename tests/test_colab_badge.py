"""The Colab badge's target is set once (autograder/course.py), agrees with the repository's own GitHub remote when
there is one, and has the shape Colab opens: /github/<owner>/<repo>/blob/<branch>/<path in the repository>."""

from __future__ import annotations

import json
import re
import subprocess
from urllib.parse import urlsplit

import pytest

from autograder import course
from autograder.course import ROOT, colab_badge, colab_url, release_path, source_notebooks

# GitHub's rules for names: an owner is letters, digits and single hyphens; a repository adds dots and underscores.
OWNER = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$")
REPO = re.compile(r"^[A-Za-z0-9._-]{1,100}$")
GITHUB_REMOTE = re.compile(r"github\.com[:/]([^/]+)/([^/]+?)(?:\.git)?/?$")


def _git(*args: str, root=ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30)


def github_remotes(root=ROOT) -> set[tuple[str, str]]:
    """(owner, repo) of each GitHub remote of the checkout at `root`, in lower case."""
    remotes = _git("remote", "-v", root=root)
    lines = remotes.stdout.splitlines() if remotes.returncode == 0 else []
    return {(m.group(1).lower(), m.group(2).lower()) for line in lines
            for m in [GITHUB_REMOTE.search(line.split()[1])] if m}


def disagreement(root=ROOT) -> str | None:
    """Why the badge's target is not one of the checkout's GitHub remotes; None when it is, or there are none."""
    found = github_remotes(root)
    if not found or (course.COLAB_OWNER.lower(), course.COLAB_REPO.lower()) in found:
        return None
    return (f"the Colab badges open github.com/{course.COLAB_OWNER}/{course.COLAB_REPO}, but this repository's "
            f"GitHub remotes are {sorted(found)}: set COLAB_OWNER and COLAB_REPO in autograder/course.py")


def test_the_target_is_plain_constants_with_valid_names():
    assert OWNER.match(course.COLAB_OWNER), f"{course.COLAB_OWNER!r} is not a GitHub owner name"
    assert REPO.match(course.COLAB_REPO) and course.COLAB_REPO not in (".", ".."), course.COLAB_REPO
    assert course.COLAB_BRANCH and not course.COLAB_BRANCH.startswith("-") and ".." not in course.COLAB_BRANCH
    assert "os.environ" not in (ROOT / "autograder" / "course.py").read_text().split("COLAB_OWNER =")[1].split(
        "\n")[0], "the badge's target is a constant: release/ must not depend on who generated it"


def test_the_target_agrees_with_the_repositorys_github_remote():
    if not github_remotes():
        pytest.skip("this clone has no GitHub remote to compare the badge's target with")
    assert disagreement() is None, disagreement()


def test_a_fork_that_kept_the_old_target_is_told_what_to_set(tmp_path):
    assert _git("init", "-q", root=tmp_path).returncode == 0
    _git("remote", "add", "origin", "git@github.com:someone/their-fork.git", root=tmp_path)
    _git("remote", "add", "up", f"https://github.com/{course.COLAB_OWNER}/{course.COLAB_REPO}.git", root=tmp_path)
    assert github_remotes(tmp_path) == {("someone", "their-fork"),
                                        (course.COLAB_OWNER.lower(), course.COLAB_REPO.lower())}
    assert disagreement(tmp_path) is None  # one remote is the course's own: fine
    _git("remote", "remove", "up", root=tmp_path)
    assert "set COLAB_OWNER and COLAB_REPO" in disagreement(tmp_path)


def test_the_branch_exists_in_this_repository():
    if _git("rev-parse", "--git-dir").returncode != 0:
        pytest.skip("not a git checkout")
    branches = _git("for-each-ref", "--format=%(refname:lstrip=-1)", "refs/heads", "refs/remotes").stdout.split()
    assert course.COLAB_BRANCH in branches, (
        f"the Colab badges open branch {course.COLAB_BRANCH!r}, which this repository does not have ({branches})")


@pytest.mark.parametrize("source", source_notebooks(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_each_badge_opens_its_own_release_file_the_way_colab_reads_it(source):
    url = urlsplit(colab_url(source.parent.name, source.stem))
    assert (url.scheme, url.netloc, url.query, url.fragment) == ("https", "colab.research.google.com", "", "")
    parts = url.path.split("/")
    assert parts[:2] == ["", "github"] and parts[4] == "blob", url.path
    owner, repo, branch, path = parts[2], parts[3], parts[5], "/".join(parts[6:])
    assert (owner, repo, branch) == (course.COLAB_OWNER, course.COLAB_REPO, course.COLAB_BRANCH)
    assert (ROOT / path).resolve() == release_path(source).resolve() and (ROOT / path).is_file()
    first = "".join(json.loads(release_path(source).read_text())["cells"][0]["source"])
    links = re.findall(r"https://colab\.research\.google\.com/github/[^)\s\"]+", first)
    assert links == [colab_url(source.parent.name, source.stem)], (
        f"the release's title cell links {links}: rebuild it (python -m autograder release)")
    assert colab_badge(source.parent.name, source.stem) in first
