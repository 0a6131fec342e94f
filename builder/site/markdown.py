"""Markdown rendering for recipe guides, preset runbooks and notes.

markdown-it-py (CommonMark + tables + strikethrough), raw HTML shown as text, heading
ids with GitHub-style slugs, unsafe link schemes dropped, remote images turned into
plain links (no external requests at run time), fenced code highlighted by Pygments
at build time.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from html import escape
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

__all__ = ["slugify", "render_markdown", "Slugger", "highlight_code"]

_UNSAFE_SCHEMES = ("javascript:", "vbscript:", "data:", "file:")
_FORMATTER = HtmlFormatter(nowrap=True, classprefix="")
_WS_SPAN = re.compile(r'<span class="w">(\s*)</span>')
_LEXER_ALIASES = {"sh": "bash", "shell": "bash", "console": "bash", "zsh": "bash", "yml": "yaml"}

LinkResolver = Callable[[str], "str | None"]


def slugify(text: str) -> str:
    """GitHub-style heading slug: lower-case, punctuation removed, spaces become '-'."""
    text = unicodedata.normalize("NFKC", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


class Slugger:
    """Hands out unique slugs (``x``, ``x-1``, ``x-2`` …) within one page."""

    def __init__(self, reserved: set[str] | None = None) -> None:
        self.seen: set[str] = set(reserved or ())

    def slug(self, text: str) -> str:
        """Return a unique slug for ``text`` and remember it."""
        base = slugify(text) or "section"
        slug, n = base, 0
        while slug in self.seen:
            n += 1
            slug = f"{base}-{n}"
        self.seen.add(slug)
        return slug


def _safe_url(url: str) -> bool:
    """Reject script-capable and data URLs (after stripping controls and whitespace)."""
    cleaned = re.sub(r"[\x00-\x20]", "", url).lower()
    return not cleaned.startswith(_UNSAFE_SCHEMES)


@functools.lru_cache(maxsize=4096)
def highlight_code(code: str, lang: str) -> str:
    """Return highlighted HTML (spans only) for ``code``; escaped plain text when the language is unknown."""
    name = _LEXER_ALIASES.get(lang.lower(), lang.lower()) if lang else ""
    lexer = _lexer(name) if name else None
    if lexer is not None:
        return _WS_SPAN.sub(r"\1", highlight(code, lexer, _FORMATTER))
    return escape(code, quote=False)


@functools.cache
def _lexer(name: str) -> Lexer | None:
    """The Pygments lexer of a language name (looked up once per build), None when unknown."""
    try:
        return get_lexer_by_name(name)
    except ClassNotFound:
        return None


def _fence(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    lang = (token.info or "").strip().split(maxsplit=1)[0] if token.info else ""
    lang = re.sub(r"[^\w+\-.]", "", lang)
    body = highlight_code(token.content, lang)
    cls = f' class="language-{escape(lang)}"' if lang else ""
    return f'<pre class="code" tabindex="0"><code{cls}>{body}</code></pre>\n'


def _code_block(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    return f'<pre class="code" tabindex="0"><code>{escape(tokens[idx].content, quote=False)}</code></pre>\n'


def _table_open(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    return '<div class="table-wrap"><table>\n'


def _table_close(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    return "</table></div>\n"


def _inline_text(token: Token) -> str:
    return "".join(c.content for c in (token.children or []) if c.type in ("text", "code_inline"))


def _core_rule(state: Any) -> None:
    """Heading ids + anchors, task-list markers, link rewriting, images to links."""
    env = state.env
    slugger: Slugger = env["slugger"]
    resolve: LinkResolver | None = env.get("resolve_link")
    tokens: list[Token] = state.tokens
    for i, tok in enumerate(tokens):
        if tok.type in ("heading_open", "heading_close") and env.get("heading_offset"):
            level = min(6, int(tok.tag[1]) + int(env["heading_offset"]))
            tok.tag = f"h{level}"
        if tok.type == "heading_open" and i + 1 < len(tokens):
            slug = slugger.slug(_inline_text(tokens[i + 1]))
            tok.attrSet("id", slug)
            inline = tokens[i + 1]
            anchor = Token("html_inline", "", 0)
            anchor.content = (
                f' <a class="anchor" href="#{escape(slug)}" aria-label="Link to this section">#</a>'
            )
            if inline.children is not None:
                inline.children.append(anchor)
        if tok.type == "inline" and tok.children:
            _rewrite_inline(tok, resolve, tokens, i)


def _rewrite_inline(tok: Token, resolve: LinkResolver | None, tokens: list[Token], idx: int) -> None:
    children = tok.children or []
    # task list markers "[ ] " / "[x] " at the start of a list item paragraph
    if idx >= 2 and tokens[idx - 2].type == "list_item_open" and children and children[0].type == "text":
        m = re.match(r"^\[([ xX])\]\s+", children[0].content)
        if m:
            children[0].content = children[0].content[m.end():]
            mark = Token("html_inline", "", 0)
            done = m.group(1) != " "
            mark.content = (f'<span class="task" aria-label="{"done" if done else "to do"}" '
                            f'role="img">{"☑" if done else "☐"}</span> ')
            children.insert(0, mark)
    out: list[Token] = []
    dropping = False  # links never nest in Markdown, so one flag is enough
    for child in children:
        if child.type == "link_open":
            href = child.attrGet("href") or ""
            new = _resolve_href(str(href), resolve)
            if new is None:
                dropping = True
                opener = Token("html_inline", "", 0)
                opener.content = '<span class="deadlink">'
                out.append(opener)
                continue
            child.attrSet("href", new)
            if re.match(r"^[a-z][a-z0-9+.-]*:", new, re.I):
                child.attrSet("rel", "noopener")
                child.attrSet("target", "_blank")
            out.append(child)
            continue
        if child.type == "link_close" and dropping:
            dropping = False
            closer = Token("html_inline", "", 0)
            closer.content = "</span>"
            out.append(closer)
            continue
        if child.type == "image":
            src = str(child.attrGet("src") or "")
            alt = "".join(c.content for c in (child.children or [])) or child.content or src
            href = _resolve_href(src, resolve)
            link = Token("html_inline", "", 0)
            if href is None:
                link.content = f'<span class="deadlink">{escape(alt)}</span>'
            else:
                link.content = (f'<a href="{escape(href)}" rel="noopener" target="_blank">Image: '
                                f'{escape(alt)}</a>')
            out.append(link)
            continue
        out.append(child)
    tok.children = out


def _resolve_href(href: str, resolve: LinkResolver | None) -> str | None:
    if not href or not _safe_url(href):
        return None
    if resolve is not None:
        return resolve(href)
    return href


def _make_parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.validateLink = _safe_url  # type: ignore[method-assign]
    md.core.ruler.push("recipe_rewrites", _core_rule)
    md.add_render_rule("fence", _fence)
    md.add_render_rule("code_block", _code_block)
    md.add_render_rule("table_open", _table_open)
    md.add_render_rule("table_close", _table_close)
    return md


_MD = _make_parser()


def render_markdown(
    text: str | None,
    slugger: Slugger | None = None,
    resolve_link: LinkResolver | None = None,
    heading_offset: int = 0,
) -> str:
    """Render Markdown to safe HTML.

    ``slugger`` keeps heading ids unique across several Markdown fragments of one page;
    ``resolve_link`` maps each link target to the href to emit, or ``None`` to drop
    the link (its text stays, unlinked); ``heading_offset`` demotes headings (``#`` → h1+offset).
    """
    if not text:
        return ""
    env = {"slugger": slugger or Slugger(), "resolve_link": resolve_link, "heading_offset": heading_offset}
    return _MD.render(str(text), env)


_PLAIN_MD = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])


def outline(text: str | None) -> tuple[list[str], list[tuple[str, int]]]:
    """Heading texts in order, and every ``#fragment`` link with its 0-based line in ``text``."""
    headings: list[str] = []
    fragments: list[tuple[str, int]] = []
    if not text:
        return headings, fragments
    tokens = _PLAIN_MD.parse(str(text))
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and i + 1 < len(tokens):
            headings.append(_inline_text(tokens[i + 1]))
        if tok.type == "inline":
            line = (tok.map or [0])[0]
            for child in tok.children or []:
                line += child.type in ("softbreak", "hardbreak")
                href = str(child.attrGet("href") or "") if child.type == "link_open" else ""
                if href.startswith("#"):
                    fragments.append((href[1:], line))
    return headings, fragments


def pygments_css() -> str:
    """Token colours are defined in static/site.css; kept for callers that want Pygments' defaults."""
    return _FORMATTER.get_style_defs(".code")
