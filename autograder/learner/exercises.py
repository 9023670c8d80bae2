"""The course's exercises, one by one: what an interview or a review can lift out of its notebook.

An exercise is one autograded test cell with its answer cell(s): the statement above them (hints and folded
answers left out), the hints, the plain or locked code cells of its notebook it needs to run (found by the
names its code uses and the functions its statement quotes, transitively), the code cells its statement
shows (between its heading and its answer: the bug hunt's broken model), the cells between answer and test,
and its follow-up question with the model answer. It *stands alone* when every name its cells use or its
statement quotes comes from the course's fixed cells, from Python, or from such context cells; one that needs a
name only another exercise's answer or test defines builds on that exercise and is never drawn (its code would
have to carry that exercise's solution). A follow-up that asks about another exercise's answer is left out.

Long because finding what one exercise needs is one walk over its notebook, with the name analysis it uses.
"""

from __future__ import annotations

import ast
import builtins
import functools
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from nbformat import NotebookNode

from autograder.authoring import template
from autograder.authoring.hints import in_cell
from autograder.learner.parsed import kept
from autograder.pipeline.cells import grade_id, kind, points, topics

FOLLOW_UP = "**Follow-up.**"
DETAILS = re.compile(r"<details>\s*<summary>(.*?)</summary>(.*?)</details>", re.S)
_BUILTINS = set(dir(builtins)) | {"__file__", "__name__", "get_ipython", "display", "In", "Out"}


@dataclass
class Exercise:
    key: str  # tier/notebook/test grade_id: stable across releases, the review queue's key
    tier: str
    notebook: str
    test_id: str
    title: str
    points: float
    topics: list[str]
    statement: list[NotebookNode] = field(default_factory=list)
    hints: list[NotebookNode] = field(default_factory=list)
    context: list[NotebookNode] = field(default_factory=list)
    # the statement as the notebook shows it: its Markdown with the code cells between the exercise's heading
    # and its answer ("This MLP runs, but it is broken:" and the broken MLP), which the statement refers to
    layout: list[NotebookNode] = field(default_factory=list)
    body: list[NotebookNode] = field(default_factory=list)  # answer cell(s), cells in between, the test cell
    follow_up: str = ""
    follow_up_answer: str = ""
    needs: list[str] = field(default_factory=list)  # extra pip packages of its notebook's setup cell
    builds_on: str = ""  # why it does not stand alone; "" when it does

    @property
    def standalone(self) -> bool:
        return not self.builds_on

    @property
    def prefix(self) -> str:
        return f"{self.tier[0]}{self.notebook[:2]}"


@functools.lru_cache(maxsize=4096)
def _names(source: str) -> tuple[set[str], set[str]] | None:
    """(names a cell binds anywhere, names it reads), or None when it is not plain Python (a magic)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    bound, used = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (used if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
    return bound, used


# `name` or `name(...)` in Markdown: a statement quoting code
CODE_REF = re.compile(r"`([A-Za-z_]\w*)")


@functools.lru_cache(maxsize=4096)
def _tree(source: str) -> ast.Module:
    """A cell's syntax tree; an empty one when it is not plain Python (a magic)."""
    try:
        return ast.parse(source)
    except SyntaxError:
        return ast.Module(body=[], type_ignores=[])


def defs(source: str) -> frozenset[str]:
    """The functions and classes a cell defines at its top level: what a statement quotes by name."""
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return frozenset(n.name for n in _tree(source).body if isinstance(n, kinds))


def attributes(source: str) -> frozenset[str]:
    """The attribute names a cell reads (`F.cross_entropy` gives `cross_entropy`)."""
    return frozenset(n.attr for n in ast.walk(_tree(source)) if isinstance(n, ast.Attribute))


def quoted(text: str, defined: set[str] | frozenset[str], attrs: set[str] | frozenset[str] = frozenset()) -> set[str]:
    """The functions and classes of `defined` that Markdown quotes; one its notebook also reads as an attribute
    (`softmax`, `cross_entropy`: torch.softmax, F.cross_entropy) is left out: the text may as well mean that."""
    return {n for n in CODE_REF.findall(text) if n in defined and n not in attrs}


def _named(index: int, cell: NotebookNode) -> tuple:
    """(index, cell, names it binds, names it reads); a cell that is not plain Python binds and reads none."""
    return (index, cell, *(_names(cell.source) or (set(), set())))


@functools.lru_cache(maxsize=1)
def _fixed_names() -> frozenset[str]:
    got: set[str] = set()
    for src in (template.setup([]), template.PARAMETERS, template.DERIVED):
        got |= _names(src)[0]
    return frozenset(got)


def _needs(setup_source: str) -> list[str]:
    m = re.search(r"^NEEDS = (\{.*\})$", setup_source, re.M)
    if not m:
        return []
    base = set(template.BASE_NEEDS)
    return [k for k in ast.literal_eval(m.group(1)) if k not in base]


def _is_hint(cell: NotebookNode) -> bool:
    return bool(in_cell(cell))


def _section_start(cell: NotebookNode) -> bool:
    return cell.cell_type == "markdown" and (cell.source.lstrip().startswith("## ") or _is_hint(cell))


def _without_details(text: str) -> str:
    return DETAILS.sub("", text).strip()


def _follow_up(cell: NotebookNode) -> tuple[str, str]:
    answer = "\n\n".join(body.strip() for summary, body in DETAILS.findall(cell.source)
                         if "hint" not in summary.lower())
    return _without_details(cell.source), answer


def _title(statement: list[NotebookNode], test_id: str) -> str:
    for c in statement:
        for line in c.source.splitlines():
            if line.startswith("#"):
                return re.sub(r"^#+\s*(\d+[a-z]?\.\s*)?", "", line).strip()
    return test_id


def _resolve(needed: set[str], earlier: list[tuple[int, NotebookNode, set, set]]) -> tuple[list[int], str]:
    """Indices of the earlier context cells the names need (transitively), or why they cannot be met."""
    fixed = _fixed_names() | _BUILTINS
    todo, take = set(needed) - fixed, set()
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        seen.add(name)
        provider = next((e for e in reversed(earlier) if name in e[2]), None)
        if provider is None:
            return [], f"uses `{name}`, which no earlier cell defines"
        i, cell, _, used = provider
        if kind(cell) in ("solution", "test", "manual"):
            return [], f"builds on {grade_id(cell)} (`{name}`)"
        if i not in take:
            take.add(i)
            todo |= (used - fixed) - seen
    return sorted(take), ""


def _shown(cells: list[NotebookNode], block: list[int]) -> list[int]:
    """The plain or locked code cells of an exercise's statement: after its heading, before its answer."""
    heads = [j for j in block if cells[j].cell_type == "markdown" and cells[j].source.lstrip().startswith("#")]
    return [j for j in block if (not heads or j > heads[-1]) and cells[j].cell_type == "code"
            and kind(cells[j]) in ("plain", "readonly") and _names(cells[j].source) is not None
            and grade_id(cells[j]) not in template.SELFCHECK_IDS]


def _read(path: Path) -> NotebookNode:
    """A course source, trusted: no schema validation (nbformat's takes most of the time of a catalogue)."""
    from nbformat.v4 import reads

    return reads(Path(path).read_text(encoding="utf-8"))


def of_notebook(path: Path) -> list[Exercise]:
    nb = _read(path)
    tier, stem = path.parent.name, path.stem
    start = next(i for i, c in enumerate(nb.cells) if c.source.startswith("# Derived from the parameters")) + 1
    needs = _needs(nb.cells[1].source) if len(nb.cells) > 1 else []
    attrs = set().union(*(attributes(c.source) for c in nb.cells if c.cell_type == "code"))
    cells = nb.cells[start:]
    out: list[Exercise] = []
    code: list[tuple[int, NotebookNode, set, set]] = []  # every earlier code cell: (index, cell, bound, used)
    block: list[int] = []
    i = 0
    while i < len(cells):
        cell = cells[i]
        k = kind(cell)
        if k != "solution":
            if cell.cell_type == "code":
                code.append(_named(i, cell))
            block.append(i)
            i += 1
            continue
        body = []
        while i < len(cells) and kind(cells[i]) != "test":
            if kind(cells[i]) == "manual" or _section_start(cells[i]):
                break
            body.append(i)
            i += 1
        if i >= len(cells) or kind(cells[i]) != "test":
            code += [_named(j, cells[j]) for j in body if cells[j].cell_type == "code"]
            block = []
            continue
        body.append(i)
        test = cells[i]
        i += 1
        tail: list[int] = []
        while i < len(cells) and kind(cells[i]) in ("plain", "readonly") and not _section_start(cells[i]) \
                and grade_id(cells[i]) not in template.SELFCHECK_IDS:
            tail.append(i)
            i += 1
            if FOLLOW_UP in cells[tail[-1]].source:
                break
        statement = [cells[j] for j in block if cells[j].cell_type == "markdown" and not _is_hint(cells[j])]
        shown = _shown(cells, block)
        ex = Exercise(f"{tier}/{stem}/{grade_id(test)}", tier, stem, grade_id(test), _title(statement, grade_id(test)),
                      points(test), topics(test), needs=needs)
        ex.statement = statement
        ex.layout = [cells[j] for j in block if j in shown or (cells[j].cell_type == "markdown" and not _is_hint(cells[j]))]
        ex.hints = [cells[j] for j in block if _is_hint(cells[j])]
        fu = next((cells[j] for j in tail if FOLLOW_UP in cells[j].source), None)
        if fu is not None:
            ex.follow_up, ex.follow_up_answer = _follow_up(fu)
        ex.body = [cells[j] for j in body]
        parsed = [_names(c.source) for c in ex.body if c.cell_type == "code"]
        if any(p is None for p in parsed):
            ex.builds_on = "a cell is not plain Python"
        else:
            bound = set().union(*(p[0] for p in parsed))
            used = set().union(*(p[1] for p in parsed))
            earlier = [e for e in code if e[0] < body[0]]
            # a function or class the statement quotes is needed as much as one the code calls
            known = set().union(*(defs(e[1].source) for e in earlier))
            said = quoted(" ".join(DETAILS.sub("", c.source) for c in statement), known, attrs) - bound
            take, why = _resolve((used - bound) | said, earlier)
            # one a hint quotes comes along when a plain cell defines it (a hint may name an earlier answer)
            hinted, not_plain = _resolve(quoted(" ".join(c.source for c in ex.hints), known, attrs) - bound - said, earlier)
            take = take if not_plain else sorted(set(take) | set(hinted))
            for j in shown:  # what the statement shows must run too, with the cells it needs
                bound_j, used_j = _names(cells[j].source)
                more, also = _resolve(used_j - bound_j, [e for e in code if e[0] < j])
                take = sorted(set(take) | set(more))
                why = why or (f"its statement shows a cell that {also}" if also else "")
            # a follow-up that asks about another exercise's answer (`tiled_attention` as written) belongs to
            # that exercise: left out here; one that quotes a plain cell's function brings that cell along
            asked = quoted(ex.follow_up, known, attrs) - bound
            more, off_topic = _resolve(asked, earlier)
            if off_topic:
                ex.follow_up = ex.follow_up_answer = ""
            else:
                take = sorted(set(take) | set(more))
            ex.builds_on = why
            ex.context = [cells[j] for j in take if j not in shown]
        out.append(ex)
        code += [_named(j, cells[j]) for j in body + tail if cells[j].cell_type == "code"]
        block = []
    return out


@functools.lru_cache(maxsize=8)
def _catalogue(source_dir: str, tier: str | None) -> tuple[Exercise, ...]:
    from autograder.course import source_notebooks

    # keyed by this module's code too: a pickle of an older Exercise lacks the fields added since
    what = "exercises-" + hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]
    return tuple(ex for p in source_notebooks(tier) for ex in kept(p, what, of_notebook))


def catalogue(tier: str | None = None) -> list[Exercise]:
    """Every exercise of the course (or of one tier), in course order."""
    from autograder.course import SOURCE_DIR

    return list(_catalogue(str(SOURCE_DIR), tier))


def by_key(keys: list[str]) -> list[Exercise]:
    tiers = {k.split("/", 1)[0] for k in keys}
    known = {ex.key: ex for t in tiers for ex in catalogue(t)}
    missing = [k for k in keys if k not in known]
    if missing:
        from autograder.course import GradingInputError

        raise GradingInputError(f"no such exercise in the course: {', '.join(missing)}")
    return [known[k] for k in keys]

