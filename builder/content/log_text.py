"""Text from recipes, the Hub or the command line made inert for a terminal and a CI job log.

A line printed to GitHub Actions' log is a workflow command when, once trimmed, it starts with ``::`` or
``##[`` (``::error``, ``::add-mask::``, ``::stop-commands::``), and a terminal obeys escape sequences.
:func:`log_text` turns one untrusted value into one line that does neither: control characters, line and
paragraph separators and bidirectional overrides are shown escaped (``\\n``, ``\\x1b``, ``\\u202e``), and a
line that would start a workflow command is prefixed with a backslash.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\x1b": "\\x1b"}
_COMMAND_START = ("::", "##[")


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def controls_escaped(text: str) -> str:
    """``text`` with control characters, line and paragraph separators and bidirectional overrides shown
    escaped: one line that shows every character (also for Markdown code,
    :mod:`builder.cli.diff.markdown`)."""
    return _UNSAFE.sub(_escaped, text)


def log_text(text: str) -> str:
    """``text`` as one inert line: no control characters, no workflow command at its start."""
    line = controls_escaped(text)
    if line.strip().startswith(_COMMAND_START):
        return "\\" + line
    return line
