#!/usr/bin/env python3
"""Checks a report written by `EXE report`: it parses as HTML, fetches
nothing from anywhere (no script, no external src/href, no @import or url()
other than a fragment), and holds the texts given. The one exception: a
logged image, <img src="data:image/png;base64,..."> (or image/jpeg), whose
bytes decode and start as a PNG (JPEG) does.

    check_report.py FILE [--text TEXT]... [--no-text TEXT]... [--charts N] [--images N] [--max-bytes N]

--text: a text the page shows (its text content, tags removed, whitespace
collapsed); --no-text: one it must not show; --charts N: at least N charts
(<svg class="chart">); --images N: exactly N inline images; --max-bytes: an upper bound on the file's size.
Exit 0 when every check passes, 1 otherwise, with one line per problem."""
import argparse
import base64
import binascii
import html.parser
import re
import sys

# Elements that load something, or run something.
FETCHING = {"script", "iframe", "frame", "object", "embed", "link", "img", "image", "audio", "video", "source",
            "track", "base", "applet", "portal", "use"}
URL_ATTRS = {"src", "href", "xlink:href", "srcset", "action", "formaction", "poster", "data", "background",
             "manifest", "ping", "cite", "longdesc", "usemap", "codebase", "archive"}
DATA_IMAGE = re.compile(r"data:image/(png|jpeg);base64,([A-Za-z0-9+/]*={0,2})\Z")
MAGIC = {"png": b"\x89PNG\r\n\x1a\n", "jpeg": b"\xff\xd8\xff"}
CSS_URL = re.compile(r"url\(\s*(['\"]?)([^)'\"]*)\1\s*\)", re.I)


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems = []
        self.text = []
        self.charts = 0
        self.images = 0
        self.in_style = False
        self.in_title = False
        self.stack = []
        self.doctype = False

    def problem(self, msg):
        line, col = self.getpos()
        self.problems.append("line %d: %s" % (line, msg))

    def check_css(self, css):
        if re.search(r"@import", css, re.I):
            self.problem("CSS @import")
        for m in CSS_URL.finditer(css):
            if not m.group(2).startswith("#"):
                self.problem("CSS url(%s) fetches something" % m.group(2))
        if re.search(r"expression\s*\(|javascript:", css, re.I):
            self.problem("script in CSS")

    def handle_decl(self, decl):
        self.doctype = self.doctype or decl.lower().startswith("doctype html")

    def inline_image(self, tag, attrs):
        """Whether this is an <img> whose only source is a data: URI of a real PNG or JPEG."""
        if tag != "img":
            return False
        srcs = [v or "" for n, v in attrs if n in URL_ATTRS]
        m = DATA_IMAGE.match(srcs[0]) if len(srcs) == 1 and dict(attrs).get("src") else None
        if not m:
            return False
        try:
            data = base64.b64decode(m.group(2), validate=True)
        except (binascii.Error, ValueError):
            self.problem("<img> data: URI is not base64")
            return True
        if not data.startswith(MAGIC[m.group(1)]):
            self.problem("<img> data: URI says image/%s but its bytes are not one" % m.group(1))
        self.images += 1
        return True

    def handle_starttag(self, tag, attrs):
        if self.inline_image(tag, attrs):
            attrs = [(n, v) for n, v in attrs if n != "src"]
        elif tag in FETCHING:
            self.problem("<%s> element" % tag)
        if tag == "meta":
            d = dict(attrs)
            if (d.get("http-equiv") or "").lower() == "refresh":
                self.problem("<meta http-equiv=refresh>")
        for name, value in attrs:
            value = value or ""
            if name.startswith("on"):
                self.problem("event handler attribute %s on <%s>" % (name, tag))
            if name in URL_ATTRS and not value.startswith("#"):
                self.problem("<%s %s=\"%s\"> points elsewhere" % (tag, name, value))
            if name == "style":
                self.check_css(value)
            if re.match(r"\s*(javascript|vbscript|data|file|https?):|\s*//", value, re.I) and name in URL_ATTRS:
                self.problem("<%s %s=\"%s\"> is a URL" % (tag, name, value))
        if tag == "svg" and ("class", "chart") in attrs:
            self.charts += 1
        if tag == "style":
            self.in_style = True
        if tag not in ("br", "meta", "hr", "input", "img", "link", "rect", "line", "path", "circle"):
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if self.stack and self.stack[-1] == tag:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag == "style":
            self.in_style = False
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass

    def handle_data(self, data):
        if self.in_style:
            self.check_css(data)
        else:
            self.text.append(data)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--text", action="append", default=[])
    ap.add_argument("--no-text", action="append", default=[])
    ap.add_argument("--charts", type=int, default=0)
    ap.add_argument("--images", type=int, default=-1)
    ap.add_argument("--max-bytes", type=int, default=0)
    a = ap.parse_args()
    raw = open(a.file, "rb").read()
    problems = []
    try:
        source = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        print("%s: not UTF-8: %s" % (a.file, e))
        return 1
    page = Page()
    page.feed(source)
    page.close()
    problems += page.problems
    if not page.doctype:
        problems.append("no <!DOCTYPE html>")
    if page.stack:
        problems.append("elements left open: %s" % " ".join(page.stack))
    if a.max_bytes and len(raw) > a.max_bytes:
        problems.append("%d bytes, more than %d" % (len(raw), a.max_bytes))
    text = re.sub(r"\s+", " ", " ".join(page.text))
    for t in a.text:
        if re.sub(r"\s+", " ", t) not in text:
            problems.append("missing text: %s" % t)
    for t in a.no_text:
        if re.sub(r"\s+", " ", t) in text:
            problems.append("unexpected text: %s" % t)
    if page.charts < a.charts:
        problems.append("%d charts, expected at least %d" % (page.charts, a.charts))
    if a.images >= 0 and page.images != a.images:
        problems.append("%d inline images, expected %d" % (page.images, a.images))
    for p in problems:
        print("%s: %s" % (a.file, p))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
