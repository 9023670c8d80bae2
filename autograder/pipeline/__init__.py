"""One notebook graded, as a chain of small steps (check.py reads it top to bottom):

    cells (identify the source) -> assemble (the learner's answers into the source's cells) -> tamper (scan)
    -> expected (the reference's reports) -> execute (in a sandboxed kernel) -> faults -> score (+ observe)

Used by learner/ (self-check, progress) and classroom/ (a class). May import isolation/ and course.py only:
never learner/, classroom/ or authoring/.
"""
