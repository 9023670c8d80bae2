"""Hostile output made harmless: what a submission displays must never run in a page the course writes.

Every HTML page the course writes (feedback, the progress dashboard, the class report) passes what came out
of a learner's kernel through here first. Scripts, event handlers, `javascript:` URLs and SVG handlers go;
the learner's text, tables and figures stay.

PLACEHOLDER (issue 26 fills it in): the interface below is fixed so that other modules can call it now.
"""

from __future__ import annotations


def clean_html(html: str) -> str:
    """HTML with nothing that can run: no <script>, no on* attributes, no javascript: URLs."""
    return html


def clean_notebook(nb):
    """Every output of every cell cleaned in place (HTML, SVG, JavaScript, widget views); returns nb."""
    return nb
