"""One notebook graded, as a chain of small steps (check.py reads it top to bottom):

    cells (identify the source) -> assemble (the learner's answers into the source's cells) -> tamper (scan)
    -> expected (the reference's reports) -> execute (in a sandboxed kernel) -> faults -> score (+ observe)

Used by learner/ (self-check, progress) and classroom/ (a class). May import isolation/ and course.py only:
never learner/, classroom/ or authoring/.
"""

import sys

# nbformat validates with jsonschema, which imports rfc3987_syntax for its "iri" format where it is installed:
# over a second of grammar building in every grading process, about a third of a junior self-check on two
# cores, for a format no notebook schema uses. Marked absent here, jsonschema leaves that one format unchecked.
sys.modules.setdefault("rfc3987_syntax", None)
