"""python -m autograder {check,reset,solution,progress,interview,review,grade,lint,release,build,refresh,export,coverage,dashboard,lab-settings}.

Long because every verb's arguments are parsed here and nowhere else; each verb's work lives in its module.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from autograder.course import GradingInputError


def cmd_check(args) -> int:
    if args.format == "github-classroom":
        return _check_for_github_classroom(args)
    from autograder.learner import check_client

    options = dict(as_json=args.json, record=args.record, timeout=args.timeout, finish=args.finish,
                   progress=_progress_lines if args.progress else None)
    if args.json or args.progress:  # a program reads the answer: nothing else on stdout
        got = _graded(args.notebook, options)
    else:  # make check: the self-check's live line (running cell, seconds) while it grades
        with check_client.terminal_line(args.notebook) as progress:
            got = _graded(args.notebook, dict(options, progress=progress))
    code, out, err = got
    sys.stdout.write(out)
    sys.stderr.write(err)
    return code


def _graded(notebook: str, options: dict) -> tuple[int, str, str]:
    import shutil

    from autograder.learner import check_client, check_server

    got = check_client.ask(notebook, **options) if check_client.wanted() else None
    if got is None:
        from autograder.isolation import sandbox, zygote

        if sandbox.enabled() and shutil.which("unshare"):
            zygote.prestart()  # its imports run while nbgrader's load here
        got = check_server.run(notebook, **options)
    return got


def _check_for_github_classroom(args) -> int:
    from autograder.classroom import github_classroom, verdicts
    from autograder.pipeline.check import grade_notebook

    try:
        report = grade_notebook(Path(args.notebook), timeout=args.timeout)
    except GradingInputError as e:
        print(github_classroom.encode(github_classroom.runner_result(verdicts.unreadable(Path(args.notebook), str(e)))))
        print(f"cannot grade: {e}", file=sys.stderr)
        return 2
    print(github_classroom.encode(github_classroom.runner_result(verdicts.from_report(report, Path(report.source).stem))))
    return 0 if report.score >= report.max_score else 1


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
    print(f"reset: blank again: {', '.join(done)} (the file as it was: {args.notebook}.bak). A notebook open in "
          "JupyterLab follows it within seconds, keeping your unsaved edits to other cells")
    return 0


def cmd_solution(args) -> int:
    from autograder.learner.reveal import Refused, solution

    try:
        print(solution(Path(args.notebook), args.exercise))
    except (GradingInputError, ValueError, Refused) as e:
        print(f"solution: {e}", file=sys.stderr)
        return 2 if not isinstance(e, Refused) else 1
    return 0


def cmd_interview(args) -> int:
    from autograder.learner.interview import start

    topics = [t for t in (args.topics or "").replace(" ", ",").split(",") if t]
    start(Path(args.dir), args.level, args.minutes, topics, args.seed, args.count, warm=not args.no_warm)
    return 0


def cmd_review(args) -> int:
    from autograder.learner.review import start

    start(Path(args.dir), args.max, warm=not args.no_warm)
    return 0


def _progress_lines(event: dict) -> None:
    """`check --progress`: one JSON object per line on stderr as each phase and cell starts (the self-check
    cell reads them to show which cell runs)."""
    print("ptlab-progress " + json.dumps(event), file=sys.stderr, flush=True)


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
    from autograder.learner.labsettings import install_extension, write_learner_config, write_overrides

    overrides, extension, learner = write_overrides(), install_extension(), write_learner_config()
    if args.learner_dir:  # for `make lab`: JUPYTER_CONFIG_PATH=$(python -m autograder lab-settings --learner-dir)
        print(learner)
        return 0
    print(f"lab-settings: wrote {overrides}\nlab-settings: linked {extension}\n"
          f"lab-settings: wrote {learner} (make lab's config: nbgrader's instructor tools off)")
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
                           gradebook=args.gradebook, timeout=args.timeout, scheduler=args.scheduler,
                           assignment=args.assignment, students=args.student, force=args.force,
                           autograded=Path(args.autograded) if args.autograded else None,
                           roster=Path(args.roster) if args.roster else None)
    except GradingInputError as e:
        print(f"cannot grade: {e}", file=sys.stderr)
        return 2


def cmd_lint(args) -> int:
    from autograder.authoring.lint import lint_paths

    problems = lint_paths([Path(p) for p in args.notebooks] or None)
    if not args.notebooks:  # the whole course: also prove that interviews and reviews give nothing away
        from autograder.learner.interview import course_problems

        problems += course_problems()
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
    from autograder.learner import live_line

    with live_line.step("release", "regenerating the student notebooks in release/ with nbgrader"):
        generate()  # about 15 s on 2 cores: make lab runs it every time, so it says it is alive (issue 36)
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


def cmd_bundle(args) -> int:
    from autograder.classroom import github_classroom, gradescope, prairielearn

    if (args.dry_run or args.wheels) and args.platform != "gradescope":
        print("bundle: --dry-run and --wheels are Gradescope's", file=sys.stderr)
        return 2
    if args.platform == "gradescope":
        names = gradescope.bundle(args.tier, args.notebooks, args.visibility, Path(args.out),
                                  Path(args.wheels) if args.wheels else None)
    elif args.platform == "prairielearn":
        names = prairielearn.bundle(args.tier, args.notebooks, Path(args.out))
    else:
        github_classroom.write_template(args.tier, args.notebooks, Path(args.out))
        names = [s.stem for s in github_classroom.expected_sources(args.tier, args.notebooks)]
    print(f"bundle: {args.platform} for {len(names)} {args.tier} notebook(s) -> {args.out}")
    if args.dry_run:
        for name, res in gradescope.dry_run(Path(args.out), Path(args.dry_run)):
            print(f"\n== {name}: {res['score']:g} / {sum(t['max_score'] for t in res.get('tests', [])):g}")
            print(res.get("output", ""))
            for test in res.get("tests", []):
                print(f"  {test['status']:6} {test['score']:g}/{test['max_score']:g} {test['name']}: {test['output']}")
    return 0


def cmd_grade_in(args) -> int:
    from autograder.classroom import gradescope, prairielearn

    if args.platform == "gradescope":
        out = gradescope.run(Path(args.root), args.tier, args.notebooks, args.visibility, args.timeout)
    else:
        out = prairielearn.run(Path(args.root), args.tier, args.notebooks, args.timeout)
    print(f"grade-in: {out}")
    return 0


def cmd_lms(args) -> int:
    from autograder.classroom.lms import export

    given = {}
    for item in args.column or []:
        ours, sep, theirs = item.partition("=")
        if not sep or not ours.strip() or not theirs.strip():
            print(f"lms: --column {item!r}: write ASSIGNMENT=CANVAS_COLUMN, e.g. week1='Week 1 (12345)'",
                  file=sys.stderr)
            return 2
        given[ours.strip()] = theirs.strip()
    unmatched, filled = export(Path(args.grades), Path(args.canvas or args.moodle), Path(args.out),
                               "canvas" if args.canvas else "moodle", args.per_notebook, given)
    for student in unmatched:
        print(f"lms: {student} is in {args.grades} but not in the roster: not exported", file=sys.stderr)
    for ours, theirs in filled.items():
        print(f"lms: {ours} -> " + (f"fills the existing Canvas column {theirs!r}" if theirs != ours else
                                    "a new Canvas column (no column of that name in the export: Canvas will "
                                    "create an assignment; --column NAME=COLUMN picks an existing one)"),
              file=sys.stderr)
    print(f"lms: wrote {args.out}" + (f"; {len(unmatched)} student(s) not exported (listed above)" if unmatched else ""))
    return 0


def cmd_report(args) -> int:
    from autograder.classroom.report_page import write_report

    page = write_report(Path(args.grades), Path(args.out), roster=Path(args.roster) if args.roster else None,
                        submitted=Path(args.submitted) if args.submitted else None)
    print(f"report: wrote {page}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m autograder", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("check", help="grade one notebook against its full test suite (visible + hidden)")
    p.add_argument("notebook")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.add_argument("--timeout", type=int, default=None, help="seconds per cell (default: nbgrader_config.py)")
    p.add_argument("--record", action="store_true", help="also remember the result for `progress`")
    p.add_argument("--format", choices=["table", "github-classroom"], default="table",
                   help="github-classroom: the base64 runner result GitHub Classroom's autograding reporter reads")
    p.add_argument("--progress", action="store_true",
                   help="report each cell as it starts: lines 'ptlab-progress {json}' on stderr")
    p.add_argument("--finish", action="store_true", help="an interview: end it and write the scorecard")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("interview", help="a mock interview: drawn exercises, no hints, a deadline (work/interviews/)")
    p.add_argument("--level", choices=["junior", "mid", "senior"], default="mid")
    p.add_argument("--minutes", type=int, default=45)
    p.add_argument("--topics", default="", help="syllabus ids (M31,M32) or a track: llm, vision, training, "
                                                "fundamentals")
    p.add_argument("--seed", type=int, default=None, help="the same seed (and history) draws the same exercises")
    p.add_argument("--count", type=int, default=None, help="number of exercises (default: from --minutes)")
    p.add_argument("--dir", default="work")
    p.add_argument("--no-warm", action="store_true", help="do not run the reference now (the first check will)")
    p.set_defaults(func=cmd_interview)

    p = sub.add_parser("review", help="the exercises due for review today, blank, with hints (work/review/)")
    p.add_argument("--max", type=int, default=5)
    p.add_argument("--dir", default="work")
    p.add_argument("--no-warm", action="store_true", help="do not run the reference now (the first check will)")
    p.set_defaults(func=cmd_review)

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

    p = sub.add_parser("lab-settings", help="JupyterLab settings for the course: no news prompt, frequent autosave, "
                                            "the Save and check extension, the learner's config (no nbgrader tools)")
    p.add_argument("--learner-dir", action="store_true", help="print only the learner's config directory")
    p.set_defaults(func=cmd_lab_settings)

    p = sub.add_parser("grade", help="grade a class: SUBMITTED/<student>/<assignment>/<notebook>.ipynb")
    p.add_argument("submitted")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", default="grades.csv")
    p.add_argument("--feedback", default=None, help="write feedback HTML per student here")
    p.add_argument("--gradebook", default=None, help="also record grades in this nbgrader gradebook (sqlite:///...)")
    p.add_argument("--timeout", type=int, default=None)
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="grade on a Dask cluster: tcp://HOST:PORT or a scheduler file (one task per notebook; "
                        "--workers is then the cluster's business)")
    p.add_argument("--assignment", default=None, metavar="NAME",
                   help="only this assignment (a tier, or one that assignments.yaml defines)")
    p.add_argument("--student", action="append", default=None, metavar="NAME",
                   help="only this student (repeatable): a regrade on request, with --force")
    p.add_argument("--force", action="store_true", help="grade again even notebooks already graded unchanged")
    p.add_argument("--autograded", default=None, metavar="DIR",
                   help="write nbgrader's autograded notebooks here (default with --gradebook: beside SUBMITTED)")
    p.add_argument("--roster", default=None, metavar="CSV",
                   help="with --gradebook: the class list (Canvas's or Moodle's export, or id,first_name,last_name,"
                        "email) whose names formgrader shows instead of 'None, None'")
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

    p = sub.add_parser("refresh", help="bring the fixed cells of source notebooks up to date (the derived cell with _observe and _by_hand; the self-check cells at the end)")
    p.add_argument("notebooks", nargs="*", help="default: every source notebook")
    p.set_defaults(func=cmd_refresh)

    p = sub.add_parser("export", help="print a notebook in the text format")
    p.add_argument("notebook")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("coverage", help="syllabus topics covered by graded cells")
    p.add_argument("--strict", action="store_true")
    p.set_defaults(func=cmd_coverage)

    p = sub.add_parser("bundle", help="package the grader for a platform: a Gradescope zip, a PrairieLearn "
                                      "course folder, or a GitHub Classroom workflow")
    p.add_argument("platform", choices=["gradescope", "prairielearn", "github-classroom"])
    p.add_argument("--tier", required=True, choices=["junior", "mid", "senior"])
    p.add_argument("--notebooks", nargs="+", action="extend", default=None,
                   help="only these notebooks of the tier (01 or 01_tensors_and_memory); default all")
    p.add_argument("--visibility", choices=["visible", "after_due_date", "after_published", "hidden"],
                   default="visible", help="Gradescope: when students see each cell's result")
    p.add_argument("--out", required=True, help="the zip (gradescope) or folder (the others) to write")
    p.add_argument("--dry-run", metavar="HANDINS", default=None,
                   help="gradescope: then run the zip's own run_autograder on each hand-in of this folder (its "
                        ".ipynb files, or one subfolder per student) and print the results")
    p.add_argument("--wheels", metavar="DIR", default=None,
                   help="gradescope: put DIR's wheels in the zip; setup.sh then installs from them offline")
    p.set_defaults(func=cmd_bundle)

    p = sub.add_parser("grade-in", help="inside a platform's grading job: grade the submission folder and "
                                        "write the platform's results.json (run_autograder calls this)")
    p.add_argument("platform", choices=["gradescope", "prairielearn"])
    p.add_argument("--root", required=True, help="/autograder (Gradescope) or /grade (PrairieLearn)")
    p.add_argument("--tier", required=True, choices=["junior", "mid", "senior"])
    p.add_argument("--notebooks", nargs="+", action="extend", default=None)
    p.add_argument("--visibility", choices=["visible", "after_due_date", "after_published", "hidden"],
                   default="visible")
    p.add_argument("--timeout", type=int, default=None)
    p.set_defaults(func=cmd_grade_in)

    p = sub.add_parser("lms", help="grades.csv -> a file Canvas's or Moodle's gradebook import takes")
    p.add_argument("grades")
    roster = p.add_mutually_exclusive_group(required=True)
    roster.add_argument("--canvas", metavar="ROSTER", help="Canvas gradebook export (Student, ID, SIS User ID, ...)")
    roster.add_argument("--moodle", metavar="ROSTER", help="Moodle participants or grades export")
    p.add_argument("--out", required=True)
    p.add_argument("--per-notebook", action="store_true", help="one column per notebook instead of per assignment")
    p.add_argument("--column", action="append", metavar="ASSIGNMENT=COLUMN",
                   help="Canvas: fill this existing column of the export with this assignment's grades (repeat "
                        "per assignment); without it a column named like the assignment is filled")
    p.set_defaults(func=cmd_lms)

    p = sub.add_parser("report", help="a class report from grades.csv: distributions, most-failed cells, "
                                      "topic mastery, faults and flags, missing hand-ins")
    p.add_argument("grades")
    p.add_argument("--out", default="report")
    p.add_argument("--roster", default=None, help="a CSV of the class (a student, login or id column): "
                                                  "who has not submitted")
    p.add_argument("--submitted", default=None, help="or the submitted/ folder: its student folders")
    p.set_defaults(func=cmd_report)

    args = ap.parse_args(argv)
    try:
        return args.func(args)
    except GradingInputError as e:  # input a verb cannot use: one line that says why, never a traceback
        print(f"{args.cmd}: {e}", file=sys.stderr)
        return 2
