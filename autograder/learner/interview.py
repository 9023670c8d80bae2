"""Interview mode: a few exercises the learner did not pick, no hints, a clock, follow-up questions.

    python -m autograder interview [--level mid] [--minutes 45] [--topics M31,M32 | --topics llm] [--seed 7]

The draw: exercises of the level that stand alone (exercises.py), in notebooks an interview can run on one
machine; preferring exercises on topics not mastered yet (the learner's history, mastery.py), then exercises
not passed, then exercises not drawn in the last interviews, then chosen at random by the seed. The same seed on the same
history gives the same draw. One notebook under work/interviews/, its composed source in the course's cache
(compose.py). Each check (`check` on the file, or its check cell) records the time and which exercises passed;
the scorecard (scorecard.py) is written beside the notebook at the end.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from autograder.course import GradingInputError, syllabus
from autograder.learner import compose, live_line
from autograder.learner.leaks import leaks
from autograder.learner.exercises import Exercise, catalogue

# Minutes an interviewer gives one exercise of a level (with its follow-up).
MINUTES_PER_EXERCISE = {"junior": 10, "mid": 15, "senior": 15}
# Notebooks whose exercises cannot run inside one short interview kernel: several processes, Triton, compiles.
NOT_DRAWN = {"senior/04_compile_and_export", "senior/05_distributed_data_parallel", "senior/06_sharding_and_parallelism",
             "senior/20_triton_kernels", "senior/22_scale_arithmetic_and_sharding"}
RECENT = 3  # interviews whose exercises are not drawn again when others are left
# Named tracks: the notebooks an interview for that kind of role draws from (any level).
TRACKS = {
    "llm": ["mid/12_llm_building_blocks", "mid/13_decoding_strategies", "mid/16_llama_block_and_tiny_lm",
            "mid/17_tokenization_and_retrieval", "mid/18_cross_and_linear_attention",
            "senior/11_memory_efficient_attention", "senior/13_kv_cache_and_speculative_decoding",
            "senior/14_adapters_routing_and_preferences", "senior/16_rl_for_llms",
            "senior/18_latent_attention_and_state_spaces", "senior/21_low_bit_weights_and_prefix_caching"],
    "vision": ["junior/11_first_cnn", "mid/05_transfer_learning", "mid/14_conv_and_recurrent_from_scratch",
               "mid/19_vision_transformer_and_conv_variants", "senior/17_diffusion_and_flow_matching"],
    "training": ["junior/04_losses_and_optimizers", "junior/05_training_loop", "mid/01_training_loop_validation",
                 "mid/06_accumulation_and_clipping", "mid/09_debugging_training", "senior/08_optimizers_and_stability"],
    "fundamentals": ["junior/01_tensors_and_memory", "junior/02_autograd_basics", "junior/03_modules",
                     "mid/10_autograd_deeper", "mid/11_tensor_algorithms", "senior/19_backprop_and_memory_by_hand"],
}
INTERVIEW_DIR = "interviews"


def candidates(level: str | None, topics: list[str] | None) -> list[Exercise]:
    """Exercises an interview may draw: standalone, runnable here, of the level, on the topics or track."""
    notebooks: set[str] | None = None
    wanted: set[str] = set()
    for t in topics or []:
        if t.lower() in TRACKS:
            notebooks = (notebooks or set()) | set(TRACKS[t.lower()])
        elif t.upper() in syllabus():
            wanted.add(t.upper())
        else:
            raise GradingInputError(f"--topics: {t} is neither a syllabus topic id (J01, M31, ...) nor a track "
                                    f"({', '.join(TRACKS)})")
    track_only = notebooks is not None and not level
    out = []
    for ex in catalogue(None if track_only else level):
        name = f"{ex.tier}/{ex.notebook}"
        if not ex.standalone or name in NOT_DRAWN:
            continue
        if notebooks is not None and name not in notebooks:
            continue
        if wanted and not wanted & set(ex.topics):
            continue
        out.append(ex)
    return out


def draw(level: str | None, minutes: int, topics: list[str] | None, seed: int, count: int | None = None
         ) -> list[Exercise]:
    """The exercises of one interview, in course order. Reproducible: same arguments, same history, same draw."""
    from autograder.learner.mastery import passed_keys

    pool = candidates(level, topics)
    if not pool:
        raise GradingInputError("no exercise fits that level and those topics")
    per = MINUTES_PER_EXERCISE.get(level or "mid", 15)
    n = min(len(pool), count or max(1, minutes // per))
    recent = {k for m in compose.all_meta("interview")[-RECENT:] for k in m.get("keys", [])}
    passed = passed_keys()
    course = catalogue(level) if level else catalogue()
    # A topic is mastered once every exercise of it (of the level) has passed somewhere.
    open_topics = {t for ex in course if ex.key not in passed for t in ex.topics}
    rng = random.Random(seed)
    # Rank: an exercise on a topic not mastered first, then one not passed, then one not drawn recently, then
    # the seed's order; one per notebook while notebooks are left, so that an interview covers several subjects.
    order = sorted(pool, key=lambda ex: (not open_topics & set(ex.topics), ex.key in passed, ex.key in recent,
                                         rng.random()))
    chosen, used = [], set()
    for ex in order:
        if len(chosen) < n and ex.notebook not in used:
            chosen.append(ex)
            used.add(ex.notebook)
    for ex in order:
        if len(chosen) < n and ex not in chosen:
            chosen.append(ex)
    course = {ex.key: i for i, ex in enumerate(pool)}
    return sorted(chosen, key=lambda ex: course[ex.key])


def _clock(t: float) -> str:
    return time.strftime("%H:%M %Z", time.localtime(t))


def header(level: str, minutes: int, exercises: list[Exercise], started: float | None, seed: int) -> str:
    """The first cell. The composed source's has no times (grading never reads this cell, and the reference
    run is cached under the source's bytes); the learner's says when the clock started and when it stops."""
    pts = sum(ex.points for ex in exercises)
    clock = "" if started is None else (
        f"**Started** {time.strftime('%Y-%m-%d', time.localtime(started))} at {_clock(started)}. "
        f"**Deadline** {_clock(started + minutes * 60)}. ")
    return (f"# Mock interview: {level}, {minutes} minute{'' if minutes == 1 else 's'}\n\n"
            f"{clock}{len(exercises)} exercise(s), {pts:g} points (seed {seed}).\n\n"
            "**Rules.** Work as in an interview: this notebook has no hints and no reference solutions, and the "
            "course notebooks stay closed (PyTorch's documentation is fair game, as most interviewers allow). "
            "Write each answer in its answer cell; the visible tests under it show the basics, the check at the "
            "end grades against hidden tests too. Save (Ctrl+S) and run the check as often as you like: it says "
            "how much time is left. What passes after the deadline is recorded as over time and does not raise "
            "your score. Answer each follow-up in a few sentences in its cell: an interviewer would ask it. "
            "When you are done, run the last cell: your scorecard (beside this notebook, and on the progress "
            "dashboard) shows per exercise what passed, when, after how many checks, and the follow-ups' model "
            "answers.")


def start(work: Path, level: str = "mid", minutes: int = 45, topics: list[str] | None = None,
          seed: int | None = None, count: int | None = None, warm: bool = True, log=None) -> Path:
    """Compose and write an interview notebook; returns its path. `warm`: run the reference first, so that the
    first check is as fast as the later ones; the clock starts when the notebook is written, after that. A live
    line on stdout says what runs meanwhile; `log`: where the lines that stay go (printed above the live line)."""
    with live_line.step("interview", "drawing the exercises") as step:
        return _start(step, log or step.print, work, level, minutes, topics, seed, count, warm)


def _start(step, log, work: Path, level: str, minutes: int, topics: list[str] | None, seed: int | None,
           count: int | None, warm: bool) -> Path:
    t0 = time.perf_counter()
    seed = seed if seed is not None else random.SystemRandom().randrange(10_000)
    exercises = draw(level, minutes, topics, seed, count)
    step.doing(f"composing {len(exercises)} exercise(s) into one notebook")
    ident = compose.new_id("interview")
    source = compose.compose(exercises, header(level, minutes, exercises, None, seed), "interview",
                             hints=False, finish=True)
    learner = compose.student_version(source, ident, "interview")
    problems = leaks(learner)
    if problems:
        raise GradingInputError("the composed interview would give answers away: " + "; ".join(problems))
    target = Path(work) / INTERVIEW_DIR / f"{ident}.ipynb"
    meta = {"id": ident, "mode": "interview", "level": level, "minutes": minutes, "seed": seed,
            "topics": topics or [], "keys": [ex.key for ex in exercises],
            "exercises": compose.describe(exercises, source), "checks": [], "notebook": str(target)}
    src_path = compose.store(ident, source, meta)
    composed = time.perf_counter() - t0
    if warm:
        log("interview: preparing the grader's expectations for this interview (once, before the clock starts)")
        step.doing("running the reference solution once, before the clock starts")
        compose.prepare(src_path)
    started = time.time()
    meta.update(started=started, deadline=started + minutes * 60)
    compose.save_meta(ident, meta)
    learner.cells[0].source = header(level, minutes, exercises, started, seed)
    compose.write(learner, target)
    log(f"interview: {target} ({len(exercises)} exercise(s): {', '.join(ex.key for ex in exercises)}); "
        f"composed in {composed:.1f} s; deadline {_clock(meta['deadline'])}")
    return target


def course_problems() -> list[str]:
    """`autograder lint`'s proof for interviews and reviews: every exercise an interview may draw, composed
    into one notebook as an interview (no hints) and as a review (with hints), gives nothing away, and each
    one composed alone carries the code it refers to (reference_problems)."""
    drawable = candidates(None, None)
    found = []
    for mode, hints in (("interview", False), ("review", True)):
        source = compose.compose(drawable, "# lint", mode, hints=hints, finish=mode == "interview")
        learner = compose.student_version(source, f"{mode}-00000000-000000-000000", mode)
        found += [f"{mode} notebooks: {p}" for p in leaks(learner, allow_hints=hints)]
    return found + reference_problems(drawable)


def _dangling(markdown: str, code_follows: bool) -> bool:
    """A paragraph that ends in ':' with nothing it could introduce after it: no list, table, formula (`y = ...`),
    code block or quote in the next paragraph, and no code cell after the last one."""
    paragraphs = [p.rstrip() for p in markdown.split("\n\n") if p.strip()]
    for n, para in enumerate(paragraphs):
        if not para.endswith(":"):
            continue
        if n + 1 == len(paragraphs):
            return not code_follows
        following = paragraphs[n + 1]
        if following.startswith("    "):  # an indented code block
            continue
        first = following.lstrip()
        formula = first.startswith("`") and "=" in first[1:].split("`", 1)[0]  # `y = x / rms(x) * weight`
        if not formula and not first.startswith(("-", "*", "+", "|", "$", ">", "```", "<")) and not first[:1].isdigit():
            return True
    return False


def reference_problems(exercises: list[Exercise] | None = None) -> list[str]:
    """`autograder lint`'s proof that a composed exercise stands alone: each drawable exercise composed on its own
    (as an interview and as a review) defines every name its visible tests and answer stubs read, and every name
    its statement quotes that its notebook defines; a statement that ends in ':' is followed by code."""
    from autograder.course import SOURCE_DIR
    from autograder.authoring.hints import in_cell
    from autograder.learner.exercises import _BUILTINS, _fixed_names, _names, _read, attributes, defs, quoted

    found: list[str] = []
    for ex in candidates(None, None) if exercises is None else exercises:
        code = [c.source for c in _read(SOURCE_DIR / ex.tier / f"{ex.notebook}.ipynb").cells if c.cell_type == "code"]
        home, attrs = set().union(*map(defs, code)), set().union(*map(attributes, code))
        for mode, hints in (("interview", False), ("review", True)):
            source = compose.compose([ex], "# lint", mode, hints=hints, finish=False)
            learner = compose.student_version(source, f"{mode}-00000000-000000-000000", mode)
            parsed = [_names(c.source) or (set(), set()) for c in source.cells if c.cell_type == "code"]
            defined = set(_fixed_names()) | _BUILTINS | set().union(*(b for b, _ in parsed))
            where = f"{ex.key} ({mode})"
            for c in learner.cells:
                if c.cell_type == "code" and compose.kind(c) in ("solution", "test"):
                    missing = sorted(((_names(c.source) or (set(), set()))[1]) - defined)
                    found += [f"{where}: {compose.grade_id(c)} uses `{n}`, which the composed notebook does not "
                              "define" for n in missing]
            for i, c in enumerate(learner.cells[4:], 4):
                if c.cell_type != "markdown" or c.source.startswith("## Check") or in_cell(c):
                    continue  # a hint may name an earlier exercise's answer as a way to go
                found += [f"{where}: its statement quotes `{n}`, which the composed notebook does not show"
                          for n in sorted(quoted(c.source, home, attrs) - defined)]
                after = learner.cells[i + 1] if i + 1 < len(learner.cells) else None
                if _dangling(c.source, after is not None and after.cell_type == "code"):
                    found.append(f"{where}: a statement ends in ':' and no code follows it")
    return list(dict.fromkeys(found))

