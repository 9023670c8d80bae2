"""How a test cell's reports are compared with the reference's (no kernel needed)."""

from nbformat.v4 import new_code_cell, new_output

from autograder.pipeline.observe import MIME, collect, disagreement


def report(label, value, rtol=1e-4, atol=1e-6):
    return {"label": label, "value": value, "rtol": rtol, "atol": atol}


def tensor(values):
    return {"shape": [len(values)], "l1": sum(abs(v) for v in values), "values": values}


REF = [report("grads on a new batch", tensor([0.5, -1.25, 3.0]))]


def test_a_matching_report_agrees_within_the_reference_tolerance():
    assert disagreement(REF, [report("grads on a new batch", tensor([0.5 + 1e-7, -1.25, 3.0]))]) == ""


def test_a_wrong_value_disagrees_and_names_the_check():
    msg = disagreement(REF, [report("grads on a new batch", tensor([0.5, -1.25, 3.1]))])
    assert "'grads on a new batch' disagrees with the reference" in msg


def test_a_report_cannot_loosen_the_tolerance():
    forged = report("grads on a new batch", tensor([0.0, 0.0, 0.0]), rtol=1e9, atol=1e9)
    assert disagreement(REF, [forged])


def test_a_missing_report_means_the_cell_did_not_finish():
    assert "never reported" in disagreement(REF, [report("something else", 1.0)])


def test_several_guesses_for_one_check_fail():
    right = report("grads on a new batch", tensor([0.5, -1.25, 3.0]))
    assert "2 answers" in disagreement(REF, [right, report("grads on a new batch", tensor([0.0, 0.0, 0.0]))])


def test_types_and_shapes_must_match():
    assert disagreement([report("flag", True)], [report("flag", 1)])  # a bool is not a number here
    assert disagreement([report("n", 3)], [report("n", 3.0)]) == ""  # but 3 and 3.0 are the same number
    assert disagreement([report("shape", [2, 3])], [report("shape", [2, 3, 1])])
    assert disagreement([report("nan", "nan")], [report("nan", "nan")]) == ""
    assert disagreement([report("d", {"a": 1})], [report("d", {"a": 1, "b": 2})])


def test_a_cell_without_expected_reports_is_left_to_nbgraders_rule():
    assert disagreement([], []) == ""


def test_reports_are_read_from_display_outputs_only():
    cell = new_code_cell("x", outputs=[
        new_output("display_data", data={"text/plain": "", MIME: report("a", 1.0)}),
        new_output("stream", name="stdout", text=str({MIME: report("b", 2.0)})),
        new_output("display_data", data={MIME: "not a dict"}),
    ])
    found = collect(cell)
    assert [f.get("label") for f in found] == ["a", None]
    assert type(found[0]) is dict  # as plain as the cached reference, so types compare


def test_a_report_read_back_from_a_notebook_matches_the_cached_reference():
    nested = report("t", tensor([1.0, 2.0]))
    cell = new_code_cell("x", outputs=[new_output("display_data", data={"text/plain": "", MIME: nested})])
    assert disagreement([nested], collect(cell)) == ""


def test_the_notebook_side_turns_answers_into_plain_json(monkeypatch):
    import json

    import IPython.display
    import numpy as np
    import torch

    from autograder.authoring import template

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda data, raw: shown.append(data))
    ns = {"DEVICE": "cpu", "FAST": True, "SEED": 0}
    exec(template.DERIVED, ns)
    ns["_observe"]("mixed", [torch.arange(6.0).reshape(2, 3), np.float32(0.5), float("nan"), torch.float16,
                             {"k": (1, True)}, object()])
    ns["_observe"]("big", torch.ones(10_000))
    mixed, big = (json.loads(json.dumps(d[MIME])) for d in shown)  # plain JSON, NaN included
    t, half, nan, dtype, nested, other = mixed["value"]
    assert t == {"shape": [2, 3], "l1": 15.0, "values": [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]}
    assert half["values"] == [0.5] and nan == "nan" and dtype == "torch.float16"
    assert nested == {"k": [1, True]} and other == "<object>"
    assert big["value"]["l1"] == 10_000 and len(big["value"]["values"]) < 2048
