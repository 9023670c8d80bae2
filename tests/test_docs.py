"""The documentation's shape (issue 36): the README is a landing page (the two commands, the three ways to use the
course, a few lines on studying, teaching and adding an exercise, and where to read more), and the rest lives in
docs/ by audience. Every page is reachable from the README, every relative link and anchor resolves, and every
`make` target and `python -m autograder` command a page names exists, so a reader who copies one gets a command
that runs. (The teaching pages' commands are run in a fresh shell by tests/test_classroom_commands.py, and the
nbgrader loop as written by tests/test_classroom_readme.py.)"""

from __future__ import annotations

import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from autograder.course import ROOT

README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.rglob("*.md"))]
MOST_LINES = 170  # "about 150 lines": a landing page, not the manual


def _name(page: Path) -> str:
    return str(page.relative_to(ROOT))


def _prose(text: str) -> str:
    """The text without its fenced and indented code blocks: what Markdown renders as links."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return "\n".join(line for line in text.splitlines() if not line.startswith("    "))


def _code(text: str) -> list[str]:
    """Each command a page shows: an indented code block's line (its comment cut off) and each inline code span,
    joined where it wraps a line."""
    blocks = [line.split("  #", 1)[0].strip() for line in text.splitlines() if line.startswith("    ")]
    spans = [" ".join(s.split()) for s in re.findall(r"`([^`]+)`", _prose(text))]
    return blocks + spans


def _links(page: Path) -> list[str]:
    """The targets of the page's Markdown links and images, code aside."""
    prose = re.sub(r"`[^`]*`", "", _prose(page.read_text()))
    return re.findall(r"!?\[[^\]]*\]\(([^)\s]+)\)", prose)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: its rendered text (no backticks or bold marks) in lower case, punctuation
    other than hyphens and underscores dropped, spaces to hyphens."""
    text = re.sub(r"[`*]", "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in _prose(page.read_text()).splitlines():
        match = re.match(r"#{1,6} (.+)", line)
        if match:
            slug = _slug(match.group(1))
            out.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
            seen[slug] = seen.get(slug, 0) + 1
    return out


def test_the_readme_is_a_landing_page():
    text = README.read_text()
    lines = len(text.splitlines())
    assert lines <= MOST_LINES, (f"README.md has {lines} lines; a landing page has about 150 (at most {MOST_LINES}): "
                                 "move the detail to the docs/ page for its audience and link it")
    first_block = text.split("\n\n    ", 1)[1].split("\n\n", 1)[0]
    for command in ("make lab", "make test"):
        assert command in first_block, f"the README's first code block shows the two commands; {command!r} is missing"
    for mode, words in {"self-study in JupyterLab": ("JupyterLab", "make lab"),
                        "classes via nbgrader": ("nbgrader", "make grade", "make teach"),
                        "Colab links on a GPU": ("Colab", "GPU")}.items():
        missing = [w for w in words if w not in text]
        assert not missing, f"the README no longer says how to use the course for {mode}: {missing} missing"


@pytest.mark.parametrize("section, page", [("## Studying", "docs/studying.md"), ("## Teaching", "docs/teaching.md"),
                                           ("## Adding an exercise", "docs/authoring.md")])
def test_each_landing_section_leads_to_its_page(section, page):
    text = README.read_text()
    assert f"\n{section}\n" in text, f"the README has no section {section!r}"
    body = text.split(f"\n{section}\n", 1)[1].split("\n## ", 1)[0]
    assert f"({page})" in body, f"the README's {section!r} section does not link {page}, where its detail lives"


def test_every_docs_page_is_linked_from_the_readme():
    linked = {link.split("#", 1)[0] for link in _links(README)}
    pages = {_name(p) for p in sorted(DOCS.glob("*.md"))}
    assert pages <= linked, f"the README does not link these pages, so nobody finds them: {sorted(pages - linked)}"


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_relative_link_resolves(page):
    broken = []
    for link in _links(page):
        if re.match(r"[a-z]+:", link):
            continue
        path, _, anchor = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        if not target.exists():
            broken.append(f"{link} (no file {target.relative_to(ROOT) if target.is_relative_to(ROOT) else target})")
        elif anchor and target.suffix == ".md" and anchor not in _anchors(target):
            broken.append(f"{link} (no heading with the anchor #{anchor} in {_name(target)})")
    assert not broken, f"{_name(page)} links to what is not there: {broken}"


@cache
def _make_targets() -> set[str]:
    return set(re.findall(r"^([a-z][a-z-]*):", (ROOT / "Makefile").read_text(), flags=re.M))


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_make_target_named_exists(page):
    named = {m for code in _code(page.read_text()) for m in re.findall(r"(?:^|[;&|(] *)make ([a-z][a-z-]*)", code)}
    missing = sorted(named - _make_targets())
    assert not missing, f"{_name(page)} names make targets the Makefile lacks: {missing}"


def _help(*verb: str) -> str:
    done = subprocess.run([sys.executable, "-m", "autograder", *verb, "--help"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, f"`python -m autograder {' '.join(verb)} --help` failed:\n{done.stderr[-2000:]}"
    return done.stdout


@cache
def _verbs() -> set[str]:
    listed = re.search(r"\{([a-z,-]+)\}", _help())
    assert listed, "`python -m autograder --help` no longer lists its commands in braces"
    return set(listed.group(1).split(","))


@cache
def _options(verb: str) -> set[str]:
    return set(re.findall(r"(--[a-z][a-z-]*)", _help(verb)))


def _autograder_commands(page: Path) -> list[tuple[str, list[str]]]:
    """(command, its --options as written) for each `python -m autograder COMMAND ...` the page shows."""
    out = []
    for code in _code(page.read_text()):
        # A command ends at `;`, `&`, `#` or a pipe with a space after it (`junior|mid` is one argument's choices).
        for match in re.finditer(r"python -m autograder ([a-z][a-z-]*)((?:[^;&|#]|\|(?! ))*)", code):
            out.append((match.group(1), re.findall(r"(--[a-z][a-z-]*)", match.group(2))))
    return out


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_autograder_command_named_exists(page):
    wrong = []
    for verb, options in _autograder_commands(page):
        if verb not in _verbs():
            wrong.append(f"`python -m autograder {verb}`: no such command (the CLI has {sorted(_verbs())})")
            continue
        unknown = sorted(set(options) - _options(verb))
        if unknown:
            wrong.append(f"`python -m autograder {verb}` has no option {unknown} (its --help)")
    assert not wrong, f"{_name(page)} shows commands that do not run as written: {wrong}"


# Where a file sends a reader to a README section by its title: `README.md ("GPU users")`, `(README, "Studying")`.
POINTER = re.compile(r"README(?:\.md)?,? \(?\"([^\"]+)\"")


def _pointers() -> list[tuple[str, str]]:
    files = subprocess.run(["git", "ls-files", "docs", "autograder", "ci", "*.md", "*.yml", "*.toml", "Makefile"],
                           cwd=ROOT, capture_output=True, text=True, timeout=60).stdout.split()
    out = []
    for name in files:
        path = ROOT / name
        if path.suffix in (".py", ".md", ".yml", ".yaml", ".toml", "") and path.is_file():
            out += [(name, title) for title in POINTER.findall(path.read_text(errors="replace"))]
    return out


def test_every_pointer_to_a_readme_section_finds_it():
    """A message or page that names a README section names one the README still has (the README shrank to a
    landing page in issue 36; what moved is in docs/)."""
    headings = [line.lstrip("#").strip() for line in README.read_text().splitlines() if line.startswith("#")]
    stale = [f"{name}: README \"{title}\"" for name, title in _pointers()
             if not any(title.lower() in h.lower() for h in headings)]
    assert not stale, ("these point to a README section that is no longer there; point them to the docs/ page "
                       f"that holds the text now (the README's 'Read more' table says which): {stale}")
