"""python -m autograder {check,reset,solution,progress,grade,lint,release,build,refresh,export,coverage,dashboard,lab-settings}."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograder.course import GradingInputError


def cmd_check(args) -> int:
    import shutil

    from autograder.learner import check_server

    got = check_server.ask(args.notebook, args.json, args.record, args.timeout) if check_server.wanted() else None
    if got is None:
        from autograder.isolation import sandbox, zygote

        if sandbox.enabled() and shutil.which("unshare"):
            zygote.prestart()  # its imports run while nbgrader's load here
        got = check_server.run(args.notebook, args.json, args.record, args.timeout)
    code, out, err = got
    sys.stdout.write(out)
    sys.stderr.write(err)
    return code


def cmd_reset(args) -> int:
    from autograder.learner.reset import reset

    try:
        done = reset(Path(args.notebook), args.exercise)
    except (GradingInputError, ValueError) as e:
        print(f"reset: {e}", file=sys.stderr)
        return 2
    if not done:
        print(f"reset: no answer cell to reset in {args.notebook}")
        return 0
    print(f"reset: blank again: {', '.join(done)} (the file as it was: {args.notebook}.bak). In JupyterLab: "
          "File > Reload Notebook from Disk")
    return 0


def cmd_solution(args) -> int:
    from autograder.learner.reveal import Refused, solution

    try:
        print(solution(Path(args.notebook), args.exercise))
    except (GradingInputError, ValueError, Refused) as e:
        print(f"solution: {e}", file=sys.stderr)
        return 2 if not isinstance(e, Refused) else 1
    return 0


def cmd_progress(args) -> int:
    from autograder.learner.progress_views import main_text

    work = Path(args.dir)
    if not work.is_dir():
        print(f"progress: {work} is not a folder (make lab creates work/)", file=sys.stderr)
        return 2
    return main_text(work, args.json, Path(args.png) if args.png else None)


def cmd_workdir(args) -> int:
    from autograder.authoring.release import workdir
    from autograder.learner.dashboard import write_dashboard

    made = workdir(Path(args.dir))
    dash = write_dashboard(Path(args.dir))
    print(f"workdir: {len(made)} new notebook(s) in {args.dir}" + (f", and {dash.name}" if dash else ""))
    return 0


def cmd_dashboard(args) -> int:
    from autograder.learner.dashboard import write_dashboard

    made = write_dashboard(Path(args.dir))
    print(f"dashboard: wrote {made}" if made else f"dashboard: kept your {Path(args.dir) / '00_progress.ipynb'}")
    return 0


def cmd_lab_settings(args) -> int:
    from autograder.learner.labsettings import write_overrides

    print(f"lab-settings: wrote {write_overrides()}")
    return 0


def cmd_refresh(args) -> int:
    from autograder.authoring.build import refresh_file
    from autograder.course import source_notebooks

    paths = [Path(p) for p in args.notebooks] or source_notebooks()
    changed = [p for p in paths if refresh_file(p)]
    for p in changed:
        print(f"refreshed {p}")
    print(f"refresh: {len(changed)} of {len(paths)} notebook(s) changed")
    return 0


def cmd_grade(args) -> int:
    from autograder.classroom.grade import grade_class

    try:
        return grade_class(Path(args.submitted), workers=args.workers, out=Path(args.out),
                           feedback=Path(args.feedback) if args.feedback else None,
                           gradebook=args.gradebook, timeout=args.timeout, scheduler=args.scheduler)
    except GradingInputError as e:
        print(f"cannot grade: {e}", file=sys.stderr)
        return 2


def cmd_lint(args) -> int:
    from autograder.authoring.lint import lint_paths

    problems = lint_paths([Path(p) for p in args.notebooks] or None)
    for p in problems:
        print(p)
    print(f"lint: {len(problems)} problem(s)" if problems else "lint: ok")
    return 1 if problems else 0


def cmd_release(args) -> int:
    from autograder.authoring.release import generate, stale

    if args.check:
        problems = stale()
        for p in problems:
            print(p)
        print("release: stale, run `make release`" if problems else "release: fresh")
        return 1 if problems else 0
    generate()
    print("release: regenerated release/")
    return 0


def cmd_build(args) -> int:
    from autograder.authoring.build import build_file

    for src in args.sources:
        print(build_file(Path(src)))
    return 0


def cmd_export(args) -> int:
    import nbformat

    from autograder.authoring.text_format import export

    sys.stdout.write(export(nbformat.read(args.notebook, as_version=4)))
    return 0


def cmd_coverage(args) -> int:
    from autograder.authoring.lint import coverage
    from autograder.course import syllabus

    got, topics = coverage(), syllabus()
    missing = [t for t, v in got.items() if not v["cells"]]
    for t, v in got.items():
        mark = "ok " if v["cells"] else "---"
        print(f"{mark} {t} {v['cells']:2d} cell(s) {','.join(sorted(v['notebooks'])):40s} {topics[t]['title'][:60]}")
    print(f"coverage: {len(got) - len(missing)}/{len(got)} topics")
    return 1 if missing and args.strict else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m autograder", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("check", help="grade one notebook against its full test suite (visible + hidden)")
    p.add_argument("notebook")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.add_argument("--timeout", type=int, default=None, help="seconds per cell (default: nbgrader_config.py)")
    p.add_argument("--record", action="store_true", help="also remember the result for `progress`")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("reset", help="put blank answer cells back in a notebook (one exercise with --exercise), "
                                     "keeping every other cell")
    p.add_argument("notebook")
    p.add_argument("--exercise", default=None, help="ex3, its answer cell's id or its test cell's id")
    p.set_defaults(func=cmd_reset)

    p = sub.add_parser("solution", help="the reference solution of an exercise you have passed, to compare")
    p.add_argument("notebook")
    p.add_argument("exercise", help="ex3, its answer cell's id or its test cell's id")
    p.set_defaults(func=cmd_solution)

    p = sub.add_parser("progress", help="scores, failing cells and topic mastery over a folder (re-checks what changed)")
    p.add_argument("dir", nargs="?", default="work")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.add_argument("--png", default=None, help="also draw the progress map into this PNG file")
    p.set_defaults(func=cmd_progress)

    p = sub.add_parser("workdir", help="copy the release into DIR (default work/) and add the dashboard; never overwrites")
    p.add_argument("dir", nargs="?", default="work")
    p.set_defaults(func=cmd_workdir)

    p = sub.add_parser("dashboard", help="put the progress dashboard notebook into DIR (never overwrites)")
    p.add_argument("dir", nargs="?", default="work")
    p.set_defaults(func=cmd_dashboard)

    p = sub.add_parser("lab-settings", help="JupyterLab settings for the course: no news prompt, frequent autosave")
    p.set_defaults(func=cmd_lab_settings)

    p = sub.add_parser("grade", help="grade a class: SUBMITTED/<student>/<tier>/<notebook>.ipynb")
    p.add_argument("submitted")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", default="grades.csv")
    p.add_argument("--feedback", default=None, help="write feedback HTML per student here")
    p.add_argument("--gradebook", default=None, help="also record grades in this nbgrader gradebook (sqlite:///...)")
    p.add_argument("--timeout", type=int, default=None)
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="grade on a Dask cluster: tcp://HOST:PORT or a scheduler file (one task per notebook; "
                        "--workers is then the cluster's business)")
    p.set_defaults(func=cmd_grade)

    p = sub.add_parser("lint", help="check the notebook conventions")
    p.add_argument("notebooks", nargs="*")
    p.set_defaults(func=cmd_lint)

    p = sub.add_parser("release", help="generate release/ with nbgrader (or --check that it is fresh)")
    p.add_argument("--check", action="store_true")
    p.set_defaults(func=cmd_release)

    p = sub.add_parser("build", help="build source notebooks from the text format (see autograder/authoring/text_format.py)")
    p.add_argument("sources", nargs="+")
    p.set_defaults(func=cmd_build)

    p = sub.add_parser("refresh", help="add or update the fixed self-check cells at the end of source notebooks")
    p.add_argument("notebooks", nargs="*", help="default: every source notebook")
    p.set_defaults(func=cmd_refresh)

    p = sub.add_parser("export", help="print a notebook in the text format")
    p.add_argument("notebook")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("coverage", help="syllabus topics covered by graded cells")
    p.add_argument("--strict", action="store_true")
    p.set_defaults(func=cmd_coverage)

    args = ap.parse_args(argv)
    return args.func(args)
