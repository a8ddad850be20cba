#!/usr/bin/env python3
"""Fails when a link in the built book (docs/book/) or in README.md points nowhere: a relative
link to a page that was not built, or an #anchor that no element of its page has. mdbook itself
only warns about some of these, so CI runs this after `mdbook build`. Stdlib only.

    scripts/check-book-links.py [BOOK_DIR]   (default: docs/book)
"""

import html.parser
import os
import re
import sys
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.links = set(), []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])


def parse(path):
    page = Page()
    with open(path, encoding="utf-8") as f:
        page.feed(f.read())
    return page


def external(href):
    return bool(urllib.parse.urlsplit(href).scheme) or href.startswith("//")


def check_book(book):
    broken, pages = [], {}
    for folder, _, files in os.walk(book):
        for name in files:
            if name.endswith(".html"):
                path = os.path.join(folder, name)
                pages[os.path.normpath(path)] = parse(path)
    for path, page in pages.items():
        # mdbook's own chrome (print page, 404, search) links by its own rules.
        if os.path.basename(path) in ("print.html", "404.html", "toc.html"):
            continue
        for href in page.links:
            if external(href) or href.startswith("mailto:"):
                continue
            target, _, anchor = href.partition("#")
            target_path = os.path.normpath(os.path.join(os.path.dirname(path), urllib.parse.unquote(target))) if target else path
            if os.path.isdir(target_path):
                target_path = os.path.join(target_path, "index.html")
            if target_path not in pages:
                if not os.path.exists(target_path):
                    broken.append(f"{os.path.relpath(path, book)}: {href} (no such page)")
                continue
            if anchor and anchor not in pages[target_path].ids:
                broken.append(f"{os.path.relpath(path, book)}: {href} (no #{anchor} there)")
    return broken, len(pages)


def check_readme():
    """README.md's relative links must name files that exist in the repository."""
    broken = []
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    for href in re.findall(r"\]\(([^)\s]+)\)", text):
        if external(href) or href.startswith("#"):
            continue
        target = os.path.join(ROOT, urllib.parse.unquote(href.partition("#")[0]))
        if not os.path.exists(target):
            broken.append(f"README.md: {href} (no such file)")
    return broken


def main():
    book = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "docs", "book")
    if not os.path.isdir(book):
        sys.exit(f"no built book at {book}: run `mdbook build docs` first")
    broken, count = check_book(book)
    broken += check_readme()
    for line in broken:
        print("broken link:", line)
    if broken:
        sys.exit(1)
    print(f"book links: {count} pages, every relative link and anchor resolves; README links too")


if __name__ == "__main__":
    main()
