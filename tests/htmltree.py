"""A small HTML tree (from the standard library's parser) for tests of rich displays."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = {"br", "img", "hr", "meta", "link", "input"}


@dataclass
class Node:
    tag: str
    attrs: dict[str, str] = field(default_factory=dict)
    children: list = field(default_factory=list)  # Nodes and strings

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def find_all(self, tag: str) -> list[Node]:
        found = []
        for c in self.children:
            if isinstance(c, Node):
                if c.tag == tag:
                    found.append(c)
                found.extend(c.find_all(tag))
        return found

    def rows(self) -> list[list[str]]:
        """The text of the cells of every row of this table (headers included)."""
        return [[cell.text() for cell in row.children
                 if isinstance(cell, Node) and cell.tag in ("td", "th")]
                for row in self.find_all("tr")]


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("root")
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        assert self.stack[-1].tag == tag, f"</{tag}> closes <{self.stack[-1].tag}>"
        self.stack.pop()

    def handle_data(self, data):
        self.stack[-1].children.append(data)


def parse(html: str) -> Node:
    """The tree of ``html``; fails on mismatched tags (so the markup is well formed)."""
    b = _Builder()
    b.feed(html)
    b.close()
    assert len(b.stack) == 1, f"unclosed <{b.stack[-1].tag}>"
    return b.root
