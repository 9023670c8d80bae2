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

Cleaning a notebook before it is rendered is not enough: the renderer makes links of Markdown
(`[x](javascript:...)`, `<javascript:...>`), in an answer's text or in a name the page quotes. So every page
the course writes is cleaned again as a whole, as rendered (`clean_page`): parsed as a browser parses it, its
body through the same allow-list, and of its <style> elements only the ones the course itself writes kept
(matched by their exact text: a learner's style never is). No script survives, the page's own neither.
"""

from __future__ import annotations

import functools
import html as _html
from collections.abc import Iterable

from bleach.css_sanitizer import ALLOWED_CSS_PROPERTIES, CSSSanitizer

HTML_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "caption", "center", "code", "col", "colgroup", "dd", "del", "details",
    "div", "dl", "dt", "em", "figcaption", "figure", "font", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img",
    "ins", "kbd", "li", "main", "mark", "ol", "p", "pre", "q", "s", "samp", "small", "span", "strike", "strong", "sub",
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
# An SVG in an <img> runs nothing (no script, no outside load), so nbconvert's data:image/svg+xml figures stay.
IMAGE_PREFIXES = ("data:image/png", "data:image/jpeg", "data:image/gif", "data:image/webp", "data:image/svg+xml",
                  "http:", "https:", "attachment:")  # attachment: a notebook's own image, resolved by the renderer

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
    """A path beside the page (a figure the course wrote next to it): no scheme, so nothing but a file. A
    browser drops tabs and newlines inside a URL and reads a backslash as a slash, so neither is allowed."""
    url = url.strip()
    if not url or any(c in url for c in "\\\t\n\r") or any(ord(c) < 32 or ord(c) == 127 for c in url):
        return False
    head = url.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
    return ":" not in head and not url.startswith("//")


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
    """Every output of every cell cleaned in place (HTML, SVG, JavaScript, widget views); returns nb.
    Markdown that a renderer would turn into a live link becomes the HTML it renders to, cleaned
    (`clean_markdown`): formgrader and nbgrader's own feedback render the notebook as it is saved."""
    nb.get("metadata", {}).pop("widgets", None)  # saved widget state: nbconvert would embed its scripts
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "markdown":
            cell["source"] = clean_markdown(cell.get("source", ""))
        elif cell.get("cell_type") == "raw":
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


def clean_markdown(source) -> str:
    """Markdown with nothing that runs once rendered. Rendered as nbconvert renders it (formgrader and
    `nbgrader generate_feedback` use it; JupyterLab reads the same syntax): when the HTML holds nothing the
    allow-list would remove, the Markdown stays exactly as written; otherwise (a script, a handler, a
    `[x](javascript:...)`, `<javascript:...>` or entity-encoded link) it becomes that HTML, cleaned, as one
    line of HTML, which a Markdown renderer shows as it is."""
    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    if not isinstance(source, str):
        source = "".join(source) if isinstance(source, list) else str(source)
    if not any(c in source for c in "<&:"):
        return source  # no tag, no entity, no scheme: nothing a renderer could make run
    rendered = markdown2html_mistune(source)
    if not _removes(rendered):
        return source
    flat = clean_html(rendered).strip().replace("\r", "").replace("\n", "&#10;")
    return f'<div class="ptlab-cleaned-markdown">{flat}</div>'


def _removes(html: str) -> bool:
    """Whether the allow-list would remove anything of this fragment (a tag, an attribute, a link)."""
    html5lib = _html5lib()

    root = html5lib.parseFragment(html, treebuilder="etree", namespaceHTMLElements=False)
    for el in root.iter():
        if not isinstance(el.tag, str) or el is root:
            continue
        tag = _local(el.tag)
        if tag not in HTML_TAGS | SVG_TAGS:
            return True
        if any(not _attribute(tag, _local(name), value) for name, value in el.attrib.items()):
            return True
    return False


# What a page's body may carry on <body> itself (nbconvert's theme switches); nothing else of the frame.
BODY_ATTRS = ("class", "data-jp-theme-light", "data-jp-theme-name")
_DROPPED_WHOLE = {"script", "style", "template", "noscript"}  # their text would only show as clutter


def _html5lib():
    """The HTML5 parser (WHATWG's parsing rules, as browsers apply them): bleach's own copy, as bleach is already
    a dependency; the html5lib package where a bleach no longer carries one."""
    try:
        from bleach._vendor import html5lib
    except ImportError:
        import html5lib
    return html5lib


def _local(tag) -> str:
    return tag.rsplit("}", 1)[-1].lower() if isinstance(tag, str) else ""


def _drop(parent, child) -> None:
    """Removes an element of an ElementTree, keeping the text that followed it."""
    if child.tail:
        siblings = list(parent)
        i = siblings.index(child)
        if i:
            siblings[i - 1].tail = (siblings[i - 1].tail or "") + child.tail
        else:
            parent.text = (parent.text or "") + child.tail
    parent.remove(child)


def clean_page(page: str, own_styles: Iterable[str] = ()) -> str:
    """A whole page as the browser will read it, with nothing that runs: parsed with an HTML5 parser (the one
    bleach uses), its <body> through the allow-list of `clean_html` (so no script, no on* handler, no
    javascript:, vbscript: or data: link, whatever its case, spacing or entities), its <title> as text, and
    of its <style> elements only those whose text is one of `own_styles` (the course's own), moved to
    <head> in their order. Every other thing in <head> (scripts, links, meta) goes."""
    html5lib = _html5lib()

    if not isinstance(page, str):
        page = "".join(page) if isinstance(page, list) else str(page)
    own = set(own_styles)
    root = html5lib.parse(page, treebuilder="etree", namespaceHTMLElements=False)
    parents = {child: parent for parent in root.iter() for child in parent}
    kept, title = [], ""
    for el in list(root.iter()):
        name = _local(el.tag)
        if name == "title" and not title:
            title = "".join(el.itertext())
        if name in _DROPPED_WHOLE:
            if name == "style" and (el.text or "") in own and (el.text or "") not in kept:
                kept.append(el.text or "")
            if el in parents:
                _drop(parents[el], el)
    body = root.find("body")
    inner = html5lib.serialize(body, tree="etree", omit_optional_tags=False, quote_attr_values="always") \
        if body is not None else ""
    lang = root.get("lang", "en") if _local(root.tag) == "html" else "en"
    attrs = "".join(f' {a}="{_html.escape(body.get(a), quote=True)}"' for a in BODY_ATTRS
                    if body is not None and body.get(a) is not None)
    styles = "".join(f"<style>{css}</style>" for css in kept if "</style" not in css.lower())
    return (f'<!DOCTYPE html>\n<html lang="{_html.escape(lang, quote=True)}"><head><meta charset="utf-8">'
            f"<title>{_html.escape(title)}</title>{styles}</head>\n<body{attrs}>{clean_html(inner)}</body></html>\n")


def styles_of(page: str) -> list[str]:
    """The text of every <style> element of a page (the course's own template, read once by its writer)."""
    html5lib = _html5lib()

    root = html5lib.parse(page, treebuilder="etree", namespaceHTMLElements=False)
    return [el.text or "" for el in root.iter() if _local(el.tag) == "style"]
