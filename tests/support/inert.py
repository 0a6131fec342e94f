"""Whether text from recipes stayed inert where it lands: a GitHub Actions job log, or a comment that
GitHub renders as Markdown (CommonMark with raw HTML, rendered here by markdown-it-py)."""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.token import Token

# What the diff's Markdown may hold as raw HTML: its <details> blocks, a summary with <code> in it.
DETAILS_OPEN = re.compile(r"<details><summary>[^<>]*(?:<code>[^<>]*</code>[^<>]*)*</summary>\n")
# Text GitHub turns into a live mention, issue link or link when it is not in code.
LIVE_TEXT = re.compile(r"@[A-Za-z0-9]|#[0-9]|://|www\.|<|>|!\[|\]\(|^#", re.M)


def log_commands(log: str) -> list[str]:
    """The lines of ``log`` the runner would take for a workflow command, or that hold an escape."""
    return [line for line in log.splitlines() if line.strip().startswith(("::", "##[")) or "\x1b" in line]


def _walk(tokens: list[Token]) -> list[Token]:
    out: list[Token] = []
    for token in tokens:
        out.append(token)
        out.extend(_walk(token.children or []))
    return out


def markdown_tokens(markdown: str) -> list[Token]:
    """Every token (children included) of ``markdown`` as CommonMark with raw HTML parses it."""
    return _walk(MarkdownIt("commonmark", {"html": True}).parse(markdown))


def live_markup(markdown: str) -> list[str]:
    """What in ``markdown`` is live beyond the report's own structure: images, links, raw HTML other than
    its ``<details>``/``<summary>``/``<code>``, text outside code that GitHub links (mentions, #123, URLs)."""
    found: list[str] = []
    for token in markdown_tokens(markdown):
        if token.type in ("image", "link_open", "html_inline"):
            found.append(f"{token.type}: {token.content or token.attrs}")
        elif token.type == "html_block":
            if not (DETAILS_OPEN.fullmatch(token.content) or token.content == "</details>\n"):
                found.append(f"html_block: {token.content!r}")
            elif LIVE_TEXT.search(re.sub(r"<code>[^<>]*</code>|</?(?:details|summary)>", "", token.content)):
                found.append(f"live text in html_block: {token.content!r}")
        elif token.type == "text" and LIVE_TEXT.search(token.content):
            found.append(f"live text: {token.content!r}")
    return found


def headings(markdown: str) -> list[str]:
    """The headings of ``markdown`` as a reader sees them (code spans as their content)."""
    tokens = MarkdownIt("commonmark", {"html": True}).parse(markdown)
    return ["".join(child.content for child in tokens[i + 1].children or [])
            for i, token in enumerate(tokens) if token.type == "heading_open"]
