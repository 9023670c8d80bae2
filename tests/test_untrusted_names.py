"""Names are data, never trusted (issue 32, item 2): a class folder whose student and notebook names are
spreadsheet formulas (=HYPERLINK, +cmd|, @SUM, -1+1), start with a tab or a carriage return, hold a newline,
are 255 bytes long, are TeX (`$\\frac{a`), HTML (`<img onerror>`), a Markdown `javascript:` link, bytes that
are not UTF-8 or a symbolic link, graded end to end: one row per hand-in and the batch complete, every cell
of grades.csv and of the LMS files safe in a spreadsheet (numbers still numbers), no page the course writes
holding a live script link (whatever the case, spacing or entities), the class report drawn, and names on
the terminal escaped. A written answer with `javascript:`, `vbscript:` and `data:` links (plain and
entity-encoded) shows as text, never as a link.
"""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.classroom import scores
from autograder.classroom.feedback import _template_styles
from autograder.classroom.summary import printable
from autograder.course import COURSE
from autograder.classroom.report_page import STYLE
from autograder.isolation.sanitize import clean_notebook, clean_page
from tests.tiny_course import ROOT, cli, make_course, with_answer

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
HOSTILE = ['=HYPERLINK("http:evil.example","click")', "+cmd|' -c calc'!A0", "@SUM(1+1)", "-1+1", "\tTAB", "\rCR",
           "new\nline", "$\\frac{a", "<img src=x onerror=alert(1)>", "[x](javascript:alert(1))",
           "\x1b[31mred"]
LONG = "n" * 249  # + ".ipynb": 255 bytes, the longest name a file may have
LONG_STUDENT = "s" * 255
MARKDOWN_ATTACKS = ("[plain](javascript:alert('md1')) [caps](JaVaScRiPt:alert('md2')) "
                    "[ent](jav&#x61;script:alert('md3')) [colon](javascript&#58;alert('md4')) "
                    "[tab](java&#9;script:alert('md5')) <javascript:alert('md6')> [vb](vbscript:msgbox('md7')) "
                    "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==) "
                    "![img](javascript:alert('md8')) <a href=' &#106;avascript:alert(9)'>raw</a> "
                    "<a href=\"data:text/html,<script>alert(10)</script>\">rawdata</a> written answer kept")
URL_ATTRS = {"href", "src", "xlink:href", "action", "formaction", "srcset", "poster", "background", "data",
             "codebase", "cite", "longdesc", "dynsrc", "lowsrc", "ping"}


def _url(value: str) -> str:
    """A URL as a browser reads its scheme: spaces and control characters gone, lower case."""
    return "".join(c for c in value if ord(c) > 32 and ord(c) != 127).lower()


def live(page: str) -> list[str]:
    """What a browser would run in a page, read by an HTML5 parser: scripts, on* handlers, javascript:,
    vbscript: and data: URLs (an <img> may show a data:image/ figure)."""
    from bleach._vendor import html5lib

    root = html5lib.parse(page, treebuilder="etree", namespaceHTMLElements=False)
    found = []
    for el in root.iter():
        tag = str(el.tag).rsplit("}", 1)[-1].lower()
        if tag in ("script", "iframe", "object", "embed", "base", "form"):
            found.append(f"<{tag}>")
        if tag == "meta" and "refresh" in str(el.get("http-equiv", "")).lower():
            found.append("<meta refresh>")
        for name, value in el.attrib.items():
            name = str(name).rsplit("}", 1)[-1].lower()
            url = _url(value)
            if name.startswith("on"):
                found.append(f"<{tag} {name}>")
            elif (name in URL_ATTRS or name == "href") and url.startswith(("javascript:", "vbscript:", "data:")):
                if not (tag == "img" and name == "src" and url.startswith("data:image/")):
                    found.append(f"<{tag} {name}={value[:40]}>")
    return found


def unsafe_cells(path: Path) -> list[str]:
    with path.open(newline="", encoding="utf-8") as f:
        return [c for r in csv.reader(f) for c in r if c.startswith(FORMULA_START) and not NUMBER.fullmatch(c)]


def test_csv_cell_quotes_formulas_keeps_numbers_and_reads_back():
    for name in [*HOSTILE, "'=already", "''@x", "'plain", "plain", "-3.5", "+2", "1e-3", "-", "=", "", "\udcffbad"]:
        cell = scores.csv_cell(name)
        assert not cell.startswith(FORMULA_START) or NUMBER.fullmatch(cell), (name, cell)
        assert scores.from_csv_cell(cell) == scores.as_text(name), (name, cell)
    assert scores.csv_cell("-3.5") == "-3.5" and scores.csv_cell(-2) == "-2" and scores.csv_cell(0.5) == "0.5"
    assert scores.csv_cell("\udcffbad") == "\\udcffbad"  # a file name's non-UTF-8 byte, as text


def test_printable_escapes_control_characters_only():
    assert printable("\x1b[31mred\r\n\t\u202eevil\udcff") == "\\x1b[31mred\\x0d\\x0a\\x09\\u202eevil\\udcff"
    assert printable("Zoë $x$ <b>") == "Zoë $x$ <b>"


def test_platform_messages_show_names_escaped(tmp_path):
    """What Gradescope, PrairieLearn and GitHub Classroom print about a file names it with its control
    characters escaped (a log or a terminal would act on an escape sequence or a new line)."""
    from autograder.classroom import verdicts

    src = make_course(tmp_path)
    folder = tmp_path / "submission"
    folder.mkdir()
    (folder / "\x1b[2J\n::error::evil\r.ipynb").write_text("not json")
    found, strays = verdicts.grade_folder(folder, [src])
    text = "\n".join(strays + [line for v in found for line in v.summary()])
    assert "\x1b" not in text and "\r" not in text and "\n::error" not in text and "evil" in text
    shown = "\n".join(verdicts.unreadable(folder / "\x1b[31mx\n.ipynb", "x\n.ipynb: bad \x07").summary())
    assert not any(ch in shown for ch in "\x1b\x07") and shown.count("\n") == 1


def test_clean_page_keeps_the_courses_style_and_no_live_link():
    own = "body{color:#222}"
    page = (f"<!DOCTYPE html><html><head><title>t</title><style>{own}</style><style>body{{display:none}}</style>"
            "<script>alert(1)</script></head><body class='c'><p>kept</p><style>p{color:red}</style>"
            "<a href='JaVa&#x09;ScRiPt&colon;alert(1)'>a</a><a href=' vbscript:x'>v</a><a href='data:text/html,x'>d</a>"
            "<svg><a xlink:href='javascript:alert(2)'><text>s</text></a></svg><form action='javascript:1'>"
            "<button formaction='javascript:2'>b</button></form><img src='x' onerror='alert(3)'>"
            "<img src='data:image/png;base64,AAAA'><a href='https://pytorch.org'>ok</a></body></html>")
    cleaned = clean_page(page, [own])
    assert not live(cleaned), live(cleaned)
    assert f"<style>{own}</style>" in cleaned and "display:none" not in cleaned and "color:red" not in cleaned
    assert "alert" not in cleaned and "<p>kept</p>" in cleaned and 'href="https://pytorch.org"' in cleaned
    assert "data:image/png;base64,AAAA" in cleaned and "<title>t</title>" in cleaned


def test_saved_markdown_renders_no_live_link_anywhere():
    """The autograded notebook (formgrader and `nbgrader generate_feedback` render it with nbconvert) keeps no
    Markdown that renders to a link that runs; Markdown without one is kept as it was written."""
    from nbconvert import HTMLExporter
    from nbformat.v4 import new_markdown_cell, new_notebook

    benign = "## Answer\n\nThe data: a *tensor* [docs](https://pytorch.org) & `x < y`, $x^2$.\n\n```\ncode\n\nmore\n```"
    defined = "[x][ref] and [y]\n\n[ref]: javascript:alert('def')\n[y]: <JAVASCRIPT\\:alert('esc')>"
    nb = new_notebook(cells=[new_markdown_cell(MARKDOWN_ATTACKS), new_markdown_cell(defined),
                             new_markdown_cell(benign)])
    clean_notebook(nb)
    assert nb.cells[2].source == benign
    page, _ = HTMLExporter().from_notebook_node(nb)
    body = page.split("<body", 1)[1]
    assert not live(body), live(body)
    assert "written answer kept" in body and "<pre><code>code\n\nmore" in body.replace("&#10;", "\n")


def test_report_draws_figures_of_any_name(tmp_path):
    """A grades.csv whose notebook names mathtext cannot parse: the report and its figures are drawn."""
    grades = tmp_path / "grades.csv"
    with grades.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student", "assignment", "notebook", "score", "max_score", "status", "failed", "cells", "flags"])
        for name in [*HOSTILE, "$\\frac{a$", "$x^{$", "a$b$c$", "\\", LONG, "nul\0name", "../../../etc/passwd"]:
            w.writerow([scores.csv_cell(name), "junior", scores.csv_cell(name), "1", "2", "ok", "c1", "c1=0 c2=1", ""])
        w.writerow(["s", "$x^{", "n", "1", "2", "ok", "", "c1=1", ""])  # an assignment no figure name can take
    out = tmp_path / "r"
    done = subprocess.run([sys.executable, "-m", "autograder", "report", str(grades), "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    page = (out / "report.html").read_text()
    assert not live(page), live(page)
    assert "not drawn" not in page, "every figure should draw: names are plain text"
    assert "scores_junior.png" in page and len(list(out.glob("scores_*.png"))) == 2
    assert f"<style>{STYLE}</style>" in page, "the report's own style is kept, as a style"
    assert "$\\frac{a" in page and "&lt;img src=x onerror=alert(1)&gt;" in page


def _hand_in(path: Path, nb) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(os.fsencode(path), "w", encoding="utf-8") as f:
        nbformat.write(nb, f)


def _class(tmp: Path) -> tuple[Path, int]:
    """A class folder of hostile names; returns it and how many hand-ins it holds."""
    ref = nbformat.read(str(make_course(tmp)), 4)
    answer = with_answer(ref, "ex1_double", "def double(x):\n    return 2 * x\n")
    written = with_answer(answer, "ex3_explain", MARKDOWN_ATTACKS)
    sub = tmp / "submitted"
    count = 0
    for name in [*HOSTILE, LONG_STUDENT]:  # hostile student names, each with a proper hand-in
        _hand_in(sub / name / "junior" / "01_tiny.ipynb", written)
        count += 1
    for name in [*HOSTILE, LONG]:  # hostile notebook names, one student
        _hand_in(sub / "names" / "junior" / f"{name}.ipynb", answer)
        count += 1
    (sub / "names" / "junior" / "linked.ipynb").symlink_to(sub / "names" / "junior" / f"{LONG}.ipynb")
    count += 1
    try:  # a student folder whose name is not UTF-8, where the file system allows it
        bad = os.fsencode(sub) + b"/bad\xff\xfe"
        os.makedirs(bad + b"/junior")
        _hand_in(Path(os.fsdecode(bad + b"/junior/01_tiny.ipynb")), written)
        count += 1
    except (OSError, UnicodeError):
        pass
    return sub, count


@pytest.mark.kernel
def test_a_class_of_hostile_names_is_graded_whole_and_safely(tmp_path):
    sub, count = _class(tmp_path)
    out, feedback, db = tmp_path / "grades.csv", tmp_path / "feedback", tmp_path / "gradebook.db"
    done = cli(tmp_path, "grade", str(sub), "--out", str(out), "--feedback", str(feedback), "--workers", "2",
               "--gradebook", f"sqlite:///{db}")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "stay out of the gradebook" in done.stderr, "formgrader shows gradebook ids: only plain ones go in"
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{db}", course_id=COURSE) as gb:
        assert not {s.id for s in gb.students} - {"names"}, "no hostile name in the gradebook"
    assert not unsafe_cells(out), unsafe_cells(out)
    with out.open(newline="", encoding="utf-8") as f:
        rows = [{k: scores.from_csv_cell(v) for k, v in r.items()} for r in csv.DictReader(f)]
    assert len(rows) == count, f"one row per hand-in: {len(rows)} of {count}"
    by_student = {}
    for r in rows:
        by_student.setdefault(r["student"], []).append(r)
    for name in [*HOSTILE, LONG_STUDENT]:
        assert [(r["notebook"], r["status"]) for r in by_student[name]] == [("01_tiny", "ok")], name[:40]
        assert by_student[name][0]["cells"].startswith("ex1_double_test=2 "), by_student[name]
    assert all(r["status"] == "ok" for s, rs in by_student.items() if s.startswith("bad\\u") for r in rs)
    stems = {r["notebook"]: r["status"] for r in by_student["names"]}
    assert set(stems) == {*HOSTILE, LONG, "linked"}, "each hand-in its row, whatever its name"
    assert "grading error" not in " ".join(stems.values()), stems
    assert "\x1b[31m" not in done.stderr, "an escape sequence in a name reached the terminal"

    pages = [p for p in feedback.rglob("*.html")]
    assert len(pages) >= len(HOSTILE), "every graded hand-in has its page"
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert not live(text), (page, live(text))
        assert "jp-Cell" in text and text.count("<style>") == len(_template_styles()), "nbconvert's styles stay"
    shown = (feedback / "[x](javascript:alert(1))" / "junior" / "01_tiny.html").read_text()
    assert "written answer kept" in shown and "<a>plain</a>" in shown and "<a>ent</a>" in shown, \
        "the written answer shows, its links as text"

    roster = tmp_path / "roster.csv"
    with roster.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section"])
        for i, name in enumerate(HOSTILE):
            w.writerow([scores.csv_cell(name), str(100 + i), f"S{i}", scores.csv_cell(name), "A"])
    for lms in ("--canvas", "--moodle"):
        exported = tmp_path / f"lms{lms}.csv"
        args = [str(out), lms, str(roster), "--out", str(exported)]
        if lms == "--moodle":
            with roster.open("w", newline="") as f:
                w = csv.writer(f)
                w.writerow(["Username", "ID number", "Email address"])
                w.writerows([scores.csv_cell(n), str(i), f"u{i}@x"] for i, n in enumerate(HOSTILE))
        done = subprocess.run([sys.executable, "-m", "autograder", "lms", *args], cwd=ROOT, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert not unsafe_cells(exported), (lms, unsafe_cells(exported))
        assert "\x1b[31m" not in done.stderr + done.stdout
        with exported.open(newline="", encoding="utf-8") as f:
            assert len(list(csv.reader(f))) >= len(HOSTILE), f"{lms}: the hostile names matched their rows"

    report = tmp_path / "report"
    done = subprocess.run([sys.executable, "-m", "autograder", "report", str(out), "--out", str(report),
                           "--submitted", str(sub)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    page = (report / "report.html").read_text()
    assert not live(page) and "not drawn" not in page and f"<style>{STYLE}</style>" in page

    again = cli(tmp_path, "grade", str(sub), "--out", str(out), "--feedback", str(feedback), "--workers", "1")
    assert again.returncode == 0, again.stderr[-3000:]
    assert f"resuming: {count - 1} notebook(s) already graded, 0 to go" in again.stderr, \
        "a hostile name reads back from the CSV as it was written: nothing is graded twice"


@pytest.mark.kernel
def test_the_cluster_grades_every_name_each_on_its_own_row(tmp_path):
    """On a Dask cluster too: a student folder whose name is not UTF-8 once cancelled every task of the batch
    (its name was in the task's key, which the scheduler's messages could not carry)."""
    from ci.bench_cluster import local_cluster

    ref = nbformat.read(str(make_course(tmp_path)), 4)
    sub = tmp_path / "submitted"
    names = ['=HYPERLINK("http:evil.example","click")', "new\nline"]
    for name in names:
        _hand_in(sub / name / "junior" / "01_tiny.ipynb", ref)
    try:
        os.makedirs(os.fsencode(sub) + b"/bad\xff/junior")
        _hand_in(Path(os.fsdecode(os.fsencode(sub) + b"/bad\xff/junior/01_tiny.ipynb")), ref)
        names.append("bad\\udcff")
    except (OSError, UnicodeError):
        pytest.skip("this file system takes only UTF-8 names")
    (tmp_path / "tmp").mkdir()
    env = dict(os.environ, PTLAB_SOURCE_DIR=str(tmp_path / "notebooks"), TMPDIR=str(tmp_path / "tmp"))
    out, feedback = tmp_path / "grades.csv", tmp_path / "feedback"
    with local_cluster(1, env) as sched_file:
        done = cli(tmp_path, "grade", str(sub), "--out", str(out), "--feedback", str(feedback),
                   "--scheduler", str(sched_file))
    assert done.returncode == 0, done.stderr[-3000:]
    assert not unsafe_cells(out), unsafe_cells(out)
    with out.open(newline="", encoding="utf-8") as f:
        rows = {scores.from_csv_cell(r["student"]): r for r in csv.DictReader(f)}
    assert {s: r["status"] for s, r in rows.items()} == {n: "ok" for n in names}
    assert all(not live(p.read_text(encoding="utf-8")) for p in feedback.rglob("*.html"))
