"""Hostile output made harmless: what a submission displays must never run in a page the course writes.

Every HTML page the course writes (feedback, the progress dashboard, the class report) passes what came out
of a learner's kernel through here first. Scripts, event handlers, `javascript:` URLs and SVG handlers go;
the learner's text, tables and figures stay.

An allow-list, not a block-list (bleach, the HTML5 parser browsers use): only the tags and attributes that
display something are kept, so whatever a browser would run (a <script>, an `on*` handler, a `javascript:`
or `data:text/html` link, an <iframe>, <object>, <embed>, <base>, <form>, <style>, <meta>, SVG's <script>,
<foreignObject>, <use> and <animate>) is dropped, and the text inside a dropped tag stays as text. Outputs
that only run (JavaScript, widget views) are removed; PNG, JPEG, plain text, LaTeX and JSON pass as they
are; HTML, Markdown and SVG are cleaned.
"""

from __future__ import annotations

import functools

from bleach.css_sanitizer import ALLOWED_CSS_PROPERTIES, CSSSanitizer

HTML_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "caption", "center", "code", "col", "colgroup", "dd", "del", "details",
    "div", "dl", "dt", "em", "figcaption", "figure", "font", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img",
    "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "s", "samp", "small", "span", "strike", "strong", "sub",
    "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "tt", "u", "ul", "var",
}
# What a figure is drawn with (matplotlib's SVG backend, hand-written SVG); never <script>, <foreignObject>
# (HTML inside SVG), <use> (pulls in other documents) or the animation elements (they can set attributes).
SVG_TAGS = {
    "svg", "g", "path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "text", "tspan", "defs",
    "clippath", "lineargradient", "radialgradient", "stop", "title", "desc", "symbol", "marker", "pattern",
    "mask", "metadata",
}
COMMON = {"class", "id", "style", "title", "lang", "dir", "align", "valign", "width", "height"}
HTML_ATTRS = {
    "a": {"href", "name", "target", "rel"}, "img": {"src", "alt", "border"}, "td": {"colspan", "rowspan", "nowrap"},
    "th": {"colspan", "rowspan", "scope", "nowrap"}, "col": {"span"}, "colgroup": {"span"},
    "ol": {"start", "type"}, "font": {"color", "size", "face"}, "table": {"border", "cellpadding", "cellspacing"},
    "details": {"open"},
}
SVG_ATTRS = {
    "viewbox", "xmlns", "version", "preserveaspectratio", "x", "y", "x1", "x2", "y1", "y2", "cx", "cy", "r", "rx",
    "ry", "d", "points", "transform", "fill", "fill-opacity", "fill-rule", "stroke", "stroke-width",
    "stroke-linecap", "stroke-linejoin", "stroke-dasharray", "stroke-dashoffset", "stroke-opacity",
    "stroke-miterlimit", "opacity", "font-family", "font-size", "font-weight", "font-style", "text-anchor",
    "dominant-baseline", "clip-path", "clip-rule", "clippathunits", "offset", "stop-color", "stop-opacity",
    "gradientunits", "gradienttransform", "patternunits", "markerwidth", "markerheight", "refx", "refy", "orient",
    "mask", "dx", "dy", "visibility", "display",
}
# Links go to web pages; images may also be inline PNG/JPEG/GIF (data:image/...), never a document.
LINK_PROTOCOLS = ("http", "https", "mailto")
IMAGE_PREFIXES = ("data:image/png", "data:image/jpeg", "data:image/gif", "data:image/webp", "http:", "https:")

KEEP = {"text/plain", "text/latex", "image/png", "image/jpeg", "image/gif", "application/json"}
CLEAN = {"text/html", "text/markdown", "image/svg+xml"}


def _attribute(tag: str, name: str, value: str) -> bool:
    name = name.lower()
    if name.startswith("on"):
        return False
    if tag == "img" and name == "src":
        return value.strip().lower().startswith(IMAGE_PREFIXES) or _relative(value)
    if name == "href" and not value.strip().lower().startswith(LINK_PROTOCOLS):
        return value.strip().startswith("#")  # a link within the page, or none
    if tag in SVG_TAGS:
        return name in SVG_ATTRS or name in COMMON
    return name in COMMON or name in HTML_ATTRS.get(tag, set())


def _relative(url: str) -> bool:
    """A path beside the page (a figure the course wrote next to it): no scheme, so nothing but a file."""
    head = url.strip().split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
    return bool(url.strip()) and ":" not in head and not url.strip().startswith("//")


@functools.lru_cache(maxsize=1)
def _cleaner():
    import bleach

    return bleach.sanitizer.Cleaner(tags=HTML_TAGS | SVG_TAGS, attributes=_attribute, protocols=(*LINK_PROTOCOLS, "data"),
                                    strip=True, strip_comments=True,
                                    css_sanitizer=CSSSanitizer(allowed_css_properties=ALLOWED_CSS_PROPERTIES))


def clean_html(html: str) -> str:
    """HTML with nothing that can run: no <script>, no on* attributes, no javascript: URLs."""
    if not isinstance(html, str):
        html = "".join(html) if isinstance(html, list) else str(html)
    return _cleaner().clean(html)


def clean_notebook(nb):
    """Every output of every cell cleaned in place (HTML, SVG, JavaScript, widget views); returns nb."""
    nb.get("metadata", {}).pop("widgets", None)  # saved widget state: nbconvert would embed its scripts
    for cell in nb.get("cells", []):
        if cell.get("cell_type") in ("markdown", "raw"):
            cell["source"] = clean_html(cell.get("source", ""))
        for out in cell.get("outputs", []):
            data = out.get("data")
            if not isinstance(data, dict):
                continue
            for mime in list(data):
                if mime in CLEAN:
                    data[mime] = clean_html(data[mime])
                elif mime not in KEEP:
                    del data[mime]  # JavaScript, widget views, anything a page could run
    return nb
