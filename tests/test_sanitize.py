"""What a submission displays never runs in a page the course writes (autograder/isolation/sanitize.py).

A hand-in that earns full marks also displays a <script>, an `onerror` handler, a `javascript:` link, an SVG
with an `onload` handler and a script of its own, JavaScript output and Markdown with a handler, beside a
table, text and a PNG figure. Its feedback page keeps the learner's text and figures and holds nothing that
runs (read here; opened in Chromium with a console listener in tests/test_browser_sanitize.py). A control
student in the same batch is graded normally.
"""

import csv
import html.parser

import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from autograder.isolation.sanitize import clean_html, clean_notebook
from tests.tiny_course import cli, hand_ins

ATTACKS = {
    "script": "<script>console.log('PWNED-script'); document.title = 'PWNED'</script>",
    "onerror": "<img src=x onerror=\"console.log('PWNED-onerror')\">",
    "link": "<a id='jslink' href=\"javascript:console.log('PWNED-link')\">a link</a>",
    "svg": ("<svg xmlns='http://www.w3.org/2000/svg' width='20' height='20' onload=\"console.log('PWNED-svg')\">"
            "<circle cx='10' cy='10' r='5' fill='red'/><script>console.log('PWNED-svgscript')</script>"
            "<a href=\"javascript:console.log('PWNED-svglink')\"><text>t</text></a></svg>"),
    "iframe": "<iframe src=\"javascript:console.log('PWNED-iframe')\"></iframe>",
    "style": "<style>body { background: url(javascript:console.log('PWNED-css')) }</style>",
}

HOSTILE = '''import base64, io
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from IPython.display import HTML, SVG, Image, Javascript, Markdown, display
display(HTML("<table id='kept-table'><tr><td>learner table</td></tr></table><p>learner text</p>"
             + SCRIPT + ONERROR + LINK + IFRAME + STYLE))
display(SVG(SVGTEXT))
display(Javascript("console.log('PWNED-js')"))
display(Markdown("**learner markdown** <img src=x onerror=\\"console.log('PWNED-md')\\">"))
fig, ax = plt.subplots(figsize=(2, 2))
ax.plot([0, 1], [0, 1])
png = io.BytesIO()
fig.savefig(png, format="png")
display(Image(data=png.getvalue()))
def double(x):
    return 2 * x
'''.replace("SCRIPT", repr(ATTACKS["script"])).replace("ONERROR", repr(ATTACKS["onerror"])).replace(
    "LINK", repr(ATTACKS["link"])).replace("IFRAME", repr(ATTACKS["iframe"])).replace(
    "STYLE", repr(ATTACKS["style"])).replace("SVGTEXT", repr(ATTACKS["svg"]))

REFERENCE_EX1 = "def double(x):\n    return 2 * x\n"


class Live(html.parser.HTMLParser):
    """What a browser would run: script bodies, event handlers, javascript: URLs; and the tags seen."""

    def __init__(self):
        super().__init__()
        self.code, self.tags, self._in_script = [], [], False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self._in_script = tag == "script"
        for name, value in attrs:
            value = (value or "").strip().lower()
            if name.startswith("on") or value.startswith(("javascript:", "data:text/html")):
                self.code.append(f"<{tag} {name}={value}>")

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.code.append(data)


def live_code(page: str) -> list[str]:
    parser = Live()
    parser.feed(page)
    return parser.code


def graded_feedback(tmp):
    """The feedback pages of a class of two: the hostile display and a control."""
    sub = hand_ins(tmp, {"control": REFERENCE_EX1, "shows": HOSTILE})
    out, feedback = tmp / "grades.csv", tmp / "feedback"
    done = cli(tmp, "grade", str(sub), "--out", str(out), "--feedback", str(feedback), "--workers", "1")
    assert done.returncode == 0, done.stderr
    with out.open() as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    assert (rows["control"]["score"], rows["control"]["status"]) == ("5", "ok")
    assert (rows["shows"]["score"], rows["shows"]["status"], rows["shows"]["flags"]) == ("5", "ok", ""), \
        "displaying results is an ordinary answer: full marks, nothing flagged"
    return {s: feedback / s / "junior" / "01_tiny.html" for s in rows}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_clean_html_removes_what_runs(attack):
    cleaned = clean_html("<p>kept</p>" + ATTACKS[attack])
    assert "<p>kept</p>" in cleaned
    assert not live_code(cleaned), cleaned
    assert "<script" not in cleaned and "<iframe" not in cleaned and "<style" not in cleaned


def test_clean_html_keeps_tables_images_links_and_svg_figures():
    page = ("<table class='dataframe'><thead><tr><th>a</th></tr></thead><tr><td style='color: red'>1</td></tr>"
            "</table><img src='data:image/png;base64,iVBORw0KGgo=' alt='fig'><a href='https://pytorch.org'>docs</a>"
            "<svg viewBox='0 0 10 10'><path d='M0 0 L10 10' stroke='black'/><text x='1' y='9'>label</text></svg>")
    cleaned = clean_html(page)
    for kept in ("<th>a</th>", "color: red", "data:image/png;base64,iVBORw0KGgo=", 'href="https://pytorch.org"',
                 '<path d="M0 0 L10 10" stroke="black">', ">label</text>"):
        assert kept in cleaned, (kept, cleaned)


def test_clean_notebook_drops_outputs_that_only_run_and_cleans_the_rest():
    nb = new_notebook(cells=[
        new_markdown_cell("# notes <img src=x onerror=alert(1)>"),
        new_code_cell("x", outputs=[
            new_output("display_data", data={"text/html": ATTACKS["script"] + "<b>kept</b>",
                                             "application/javascript": "alert(1)",
                                             "application/vnd.jupyter.widget-view+json": {"model_id": "m"},
                                             "image/png": "iVBORw0KGgo=", "text/plain": "<kept>"}),
            new_output("stream", text="<script>stays text</script>")])])
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    clean_notebook(nb)
    data = nb.cells[1].outputs[0]["data"]
    assert set(data) == {"text/html", "image/png", "text/plain"}
    assert data["text/html"].endswith("<b>kept</b>") and not live_code(data["text/html"])
    assert "onerror" not in nb.cells[0].source and "notes" in nb.cells[0].source
    assert "widgets" not in nb.metadata


@pytest.mark.kernel
def test_feedback_keeps_the_learners_output_and_runs_none_of_it(tmp_path):
    pages = graded_feedback(tmp_path)
    page = pages["shows"].read_text()
    assert not [c for c in live_code(page) if "PWNED" in c], "a submission's code is live in its feedback"
    for kept in ("learner table", "learner text", "learner markdown", "data:image/svg+xml", "data:image/png;base64,"):
        assert kept in page, f"the learner's {kept!r} is missing from the feedback"
    assert "learner table" not in pages["control"].read_text()
