"""Wrap the lines over ruff's line-length (E501) with small, behaviour-preserving edits.

Usage (from the repository root; rewrites the files in place), then ``ruff check .`` and the tests:

    python tools/wrap_long_lines.py FILE...
    ruff check --select E501 --output-format concise . | cut -d: -f1 | sort -u | grep '[.]py$' \\
        | xargs python tools/wrap_long_lines.py

(the second form after deleting the E501 ``per-file-ignores`` of pyproject.toml, which hide them).

Per long line, in the house's compact style (no whole-statement reformatting, so diffs stay small):
- code inside brackets breaks after a comma (or before ``and``/``or``/``if``/``else``/``for``), the
  continuation aligned under the bracket's first item, else hanging after the bracket; a one-line
  statement's expression is parenthesised and broken before its loosest operator;
- a one-line string literal splits into implicitly concatenated pieces (parenthesised at statement
  level): its value stays byte-identical; an f-string piece without fields loses its ``f``;
- a trailing comment moves to its own line above; a long own-line comment or docstring line is
  reflowed at spaces (docstrings published as pydantic descriptions keep their value: ``\\``-newline).
Each file's AST is compared before and after (docstrings up to whitespace): a file whose code would
change is left as it was. What it cannot wrap is listed on stderr for a hand edit (exit status 1).
"""

from __future__ import annotations

import ast
import io
import re
import sys
import textwrap
import tokenize
import tomllib
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT: int = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["line-length"]
OPEN, CLOSE = "([{", ")]}"
# modules whose docstrings are published as pydantic field/model descriptions (JSON Schema)
PUBLISHED_DOCSTRINGS = re.compile(r"builder/content/schemas/|site_settings\.py$")
PRAGMA = re.compile(r"\s+#\s*(noqa|type:\s*ignore)[^#]*$")
BREAK_BEFORE = {"and", "or", "if", "else", "for"}


@dataclass
class Tok:
    type: int
    string: str
    start: tuple[int, int]
    end: tuple[int, int]
    depth: int  # bracket depth before this token
    align: int | None  # column of the first item of the innermost open bracket (None at depth 0)
    bracket_line: int | None  # line of the innermost open bracket
    prev: Tok | None = None
    opens: tuple[tuple[int, int], ...] = ()


def scan(source: str) -> list[Tok]:
    toks: list[Tok] = []
    stack: list[list[int | None]] = []  # [line, column, align] of each open bracket
    prev = None
    for raw in tokenize.generate_tokens(io.StringIO(source).readline):
        if raw.type in (tokenize.NL, tokenize.COMMENT, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            toks.append(Tok(raw.type, raw.string, raw.start, raw.end, len(stack),
                            stack[-1][2] if stack else None, stack[-1][0] if stack else None, prev,
                            tuple((b[0], b[1]) for b in stack)))
            if raw.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
                prev = toks[-1]
            continue
        if stack and stack[-1][2] is None:
            stack[-1][2] = raw.start[1]
        if raw.type == tokenize.OP and raw.string in CLOSE and stack:
            stack.pop()
        tok = Tok(raw.type, raw.string, raw.start, raw.end, len(stack),
                  stack[-1][2] if stack else None, stack[-1][0] if stack else None, prev,
                  tuple((b[0], b[1]) for b in stack))
        toks.append(tok)
        prev = tok
        if raw.type == tokenize.OP and raw.string in OPEN:
            stack.append([raw.start[0], raw.start[1], None])
    return toks


def width(text: str) -> int:
    """Columns as ruff counts them (wide East Asian characters take two)."""
    return len(text) + sum(1 for c in text if unicodedata.east_asian_width(c) in "WF")


def too_long(line: str) -> bool:
    """Whether ruff's E501 flags the line (not when it fits without a trailing pragma comment)."""
    pragma = PRAGMA.search(line)
    return width(line[:pragma.start()] if pragma else line) > LIMIT


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def is_docstring(tok: Tok) -> bool:
    return (tok.depth == 0 and (tok.prev is None or tok.prev.type in (tokenize.NEWLINE, tokenize.INDENT,
                                                                       tokenize.DEDENT)))


# --- string splitting ---------------------------------------------------------------------------

STRING_RE = re.compile(r"([rRbBuUfF]*)('|\")(.*)\2$", re.S)


def split_points(prefix: str, body: str) -> list[int]:
    """Indexes i where body[:i] / body[i:] can become two literals of the same kind."""
    fstring, raw = "f" in prefix.lower(), "r" in prefix.lower()
    points, depth, i = [], 0, 0
    while i < len(body):
        c = body[i]
        if depth == 0 and i > 0:
            points.append(i)
        if c == "\\" and not (raw and depth):
            i += 2
            continue
        if fstring and c in "{}":
            if depth == 0 and body[i:i + 2] in ("{{", "}}"):
                i += 2
                continue
            depth += 1 if c == "{" else -1
        i += 1
    return points


def piece(prefix: str, quote: str, body: str) -> str:
    if "f" in prefix.lower() and not re.search(r"(?<!\{)\{(?!\{)", body.replace("{{", "")):
        prefix = prefix.replace("f", "").replace("F", "")
        body = body.replace("{{", "{").replace("}}", "}")
    return f"{prefix}{quote}{body}{quote}"


def _best_cut(body: str, fitting: list[int]) -> int:
    """Where to cut: after a space (not leaving a short last word alone), else after punctuation or
    before a tag, else as far right as it fits."""
    spaced = [i for i in fitting if body[i - 1] == " "]
    if spaced:
        roomy = [i for i in spaced if len(body) - i >= 16]
        return roomy[-1] if roomy else spaced[-1]
    marks = [i for i in fitting if body[i - 1] in ">,;/)" or body[i] == "<"]
    return marks[-1] if marks else fitting[-1]


def string_split(line: str, tok: Tok, cont_col: int, wrap_parens: bool) -> tuple[str, str] | None:
    m = STRING_RE.match(tok.string)
    if not m or m.group(3).startswith(m.group(2) * 2):
        return None  # a triple-quoted or empty string
    prefix, quote, body = m.groups()
    col, end = tok.start[1], tok.end[1]
    before, after = line[:col], line[end:]
    opener = "(" if wrap_parens else ""
    closer = ")" if wrap_parens else ""
    base = len(before) + len(opener) + len(prefix) + 1
    fitting = [i for i in split_points(prefix, body) if base + i + 1 <= LIMIT and body[:i].strip()]
    if not fitting:
        return None
    i = _best_cut(body, fitting)
    head = before + opener + piece(prefix, quote, body[:i])
    tail = " " * cont_col + piece(prefix, quote, body[i:]) + closer + after
    return head.rstrip(), tail.rstrip()


# --- per-line fixing ----------------------------------------------------------------------------


def join_next(lines: list[str], toks: list[Tok], ln: int, comma: Tok, tail: str) -> list[str]:
    """The tail, joined with the next line when that continues the same bracket and both fit."""
    if ln >= len(lines) or "#" in tail:
        return [tail]
    first = next((t for t in toks if t.start[0] == ln + 1 and t.type not in (tokenize.NL, tokenize.INDENT,
                                                                           tokenize.DEDENT)), None)
    if first is None or first.type == tokenize.COMMENT or first.depth != comma.depth \
            or first.bracket_line != comma.bracket_line or first.align != comma.align \
            or not tail.rstrip().endswith(","):
        return [tail]
    joined = tail.rstrip() + " " + lines[ln].strip()
    if width(joined) > LIMIT or any(t.type == tokenize.COMMENT for t in toks if t.start[0] == ln + 1):
        return [tail]
    return [joined, None]  # None: drop the next line


def in_target(on_line: list[Tok], k: int) -> bool:
    """Whether the comma at k separates a ``for`` target or ``lambda`` parameters."""
    depth = on_line[k].depth
    for t in reversed(on_line[:k]):
        if t.depth < depth:
            return False
        if t.depth == depth and t.type == tokenize.NAME and t.string in ("for", "lambda"):
            return True
        if t.depth == depth and (t.type == tokenize.NAME and t.string == "in" or t.string == ":"):
            return False
    return False


Candidate = tuple[tuple[float, int], list[str | None], tuple[int, int] | None]


def candidates(lines: list[str], toks: list[Tok], ln: int) -> Iterator[Candidate]:
    """(score, new lines, (column, shift) of the moved text) for line ln (1-based); a trailing None in
    the new lines means they replace the next line too."""
    line = lines[ln - 1]
    ind = indent_of(line)
    on_line = [t for t in toks if t.start[0] == ln and t.type not in (tokenize.NL, tokenize.NEWLINE,
                                                                        tokenize.INDENT, tokenize.DEDENT)]
    stmt_kw = (line.lstrip().split(" ", 1)[0]
               in ("def", "if", "elif", "while", "for", "with", "async", "class"))
    for k, t in enumerate(on_line):
        nxt = on_line[k + 1] if k + 1 < len(on_line) else None
        if t.type == tokenize.COMMENT:
            continue
        # break after a comma inside brackets
        if t.type == tokenize.OP and t.string == "," and t.depth >= 1 and nxt is not None \
                and nxt.type != tokenize.COMMENT and t.align is not None and not in_target(on_line, k):
            head = line[:t.end[1]].rstrip()
            tail = " " * t.align + line[t.end[1]:].lstrip()
            if width(head) <= LIMIT:
                fits = width(tail) <= LIMIT
                p0 = len(line) - len(line[t.end[1]:].lstrip())
                yield ((100 if fits else 50) - 10 * t.depth, t.end[1]), \
                    [head] + join_next(lines, toks, ln, t, tail), (p0, t.align - p0)
        # break before a boolean/conditional/comprehension keyword inside brackets
        if t.type == tokenize.NAME and t.string in BREAK_BEFORE and t.depth >= 1 and t.align is not None \
                and k > 0 and t.start[1] > t.align:
            head = line[:t.start[1]].rstrip()
            tail = " " * t.align + line[t.start[1]:]
            if width(head) <= LIMIT and head.strip():
                fits = width(tail) <= LIMIT
                yield ((99 if fits else 49) - 10 * t.depth, t.start[1]), [head, tail], \
                    (t.start[1], t.align - t.start[1])
        # hanging break after an open bracket
        if t.type == tokenize.OP and t.string in OPEN and nxt is not None and nxt.type != tokenize.COMMENT \
                and nxt.string not in CLOSE:
            head = line[:t.end[1]]
            hang = ind + (8 if stmt_kw else 4)
            tail = " " * hang + line[t.end[1]:].lstrip()
            if width(head) <= LIMIT:
                fits = width(tail) <= LIMIT
                yield ((95 if fits else 45) - 10 * (t.depth + 1), t.end[1]), [head, tail], \
                    (t.start[1], hang - nxt.start[1])
        # split a long string literal
        one_line = t.start[0] == t.end[0]
        if (t.type == tokenize.STRING and one_line and t.start[1] < LIMIT - 8 < t.end[1]
            and not is_docstring(t)):
            wrap = t.depth == 0
            if wrap and (t.prev is not None and t.prev.type == tokenize.STRING
                         or nxt is not None and nxt.type == tokenize.STRING or line.rstrip().endswith("\\")):
                continue  # part of a backslash-continued concatenation: a hand edit
            cont = t.start[1] + (1 if wrap else 0)
            res = string_split(line, t, cont, wrap)
            if res:
                if nxt is None and not wrap:
                    chained = into_next_piece(lines, toks, ln, t, res[0], res[1][cont:])
                    if chained:
                        yield (85, len(res[0])), chained, None
                        continue
                fits = width(res[1]) <= LIMIT
                score = (75 if fits else 40) if cont <= 60 else 30
                after = line[t.end[1]:].rstrip()
                yield (score, len(res[0])), list(res), (t.end[1], len(res[1]) - len(after) - t.end[1])
    yield from expression_wraps(line, on_line, toks, ln)


def into_next_piece(lines: list[str], toks: list[Tok], ln: int, tok: Tok, head: str,
                    rest: str) -> list[str] | None:
    """When the next line goes on with the concatenation, the cut-off text moves to the front of its
    first literal instead of a line of its own."""
    if ln >= len(lines):
        return None
    first = next((t for t in toks if t.start[0] == ln + 1 and t.type not in (tokenize.NL, tokenize.INDENT,
                                                                           tokenize.DEDENT)), None)
    if first is None or first.type != tokenize.STRING or first.start[0] != first.end[0] \
            or first.depth != tok.depth or first.bracket_line != tok.bracket_line:
        return None
    a, b = STRING_RE.match(rest), STRING_RE.match(first.string)
    if not a or not b or a.group(2) != b.group(2) or b.group(3).startswith(b.group(2) * 2):
        return None
    pa, pb = a.group(1).lower(), b.group(1).lower()
    if set(pa) - {"f"} != set(pb) - {"f"}:
        return None
    moved = a.group(3)
    if "f" in pa and "f" not in pb:
        if re.search(r"\{(?!\{)", moved.replace("{{", "")):
            return None  # it has a field: keep it an f-string of its own
        moved = moved.replace("{{", "{").replace("}}", "}")
    elif "f" in pb and "f" not in pa:
        moved = moved.replace("{", "{{").replace("}", "}}")
    nxt_line = lines[ln]
    col = first.start[1]
    merged = (nxt_line[:col] + b.group(1) + b.group(2) + moved + b.group(3) + b.group(2)
              + nxt_line[first.end[1]:])
    return [head, merged, None]


# lowest precedence first: a statement-level expression breaks before the loosest operator
PRECEDENCE = [{"if", "else"}, {"or"}, {"and"}, {"not"}, {"in", "is", "==", "!=", "<", ">", "<=", ">="},
              {"+", "-"}, {"*", "/", "//", "%", "@"}]
STATEMENT_KW = {"return", "assert", "yield", "if", "elif", "while", "await"}
ASSIGN = {"=", "+=", "-=", "*=", "/=", "//=", "%=", "|=", "&=", "^=", "@=", "**=", ">>=", "<<="}


def expression_wraps(line: str, on_line: list[Tok], toks: list[Tok], ln: int) -> Iterator[Candidate]:
    """A one-line statement's expression in parentheses, broken before its loosest operator."""
    code = [t for t in on_line if t.type != tokenize.COMMENT]
    if not code or code[0].depth != 0 or code[0].prev is not None and code[0].prev.type not in (
            tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
        return
    newline = next((t for t in toks if t.type == tokenize.NEWLINE and t.start >= code[-1].end), None)
    if newline is None or newline.start[0] != ln:
        return  # not a one-line statement
    start_k = None
    if code[0].type == tokenize.NAME and code[0].string in STATEMENT_KW:
        start_k = 1
    else:
        for k, t in enumerate(code):
            if t.depth == 0 and t.type == tokenize.OP and t.string in ASSIGN:
                start_k = k + 1
                break
    if start_k is None or start_k >= len(code):
        return
    end_k = len(code)
    if code[0].string in ("if", "elif", "while") and code[-1].string == ":":
        end_k -= 1
    if code[0].string == "assert":
        comma = next((k for k in range(start_k, end_k) if code[k].depth == 0 and code[k].string == ","), None)
        end_k = comma if comma is not None else end_k
    expr = code[start_k:end_k]
    if (not expr
        or expr[0].string in OPEN and all(t.depth >= 1 for t in expr[1:-1]) and expr[-1].string in CLOSE):
        return  # already in brackets
    ops = []
    for k, t in enumerate(expr):
        if k == 0 or t.depth != 0:
            continue
        prev = expr[k - 1]
        if t.string == "not" and not (k + 1 < len(expr) and expr[k + 1].string == "in"):
            if prev.string != "is":
                ops.append((3, k))
            continue
        if t.string == "in" and prev.string == "not" or t.string == "not" and prev.string == "is":
            continue
        if t.string in ("-", "+") and not (prev.type in (tokenize.NAME, tokenize.NUMBER, tokenize.STRING)
                                           or prev.string in CLOSE):
            continue
        for level, names in enumerate(PRECEDENCE):
            if t.string in names and (t.type == tokenize.OP or t.type == tokenize.NAME):
                ops.append((level, k))
                break
    if not ops:
        return
    level = min(lv for lv, _ in ops)
    e0, e1 = expr[0].start[1], expr[-1].end[1]
    for _, k in [o for o in ops if o[0] == level]:
        b = expr[k].start[1]
        head = line[:e0] + "(" + line[e0:b].rstrip()
        rest = line[e1:]
        tail = " " * (e0 + 1) + line[b:e1] + ")" + (("  " + rest.lstrip()) if rest.lstrip().startswith("#")
                                                    else rest)
        if width(head) <= LIMIT:
            fits = width(tail) <= LIMIT
            yield (101 if fits else 49.5, b), [head, tail], None


def fix_comment(lines: list[str], toks: list[Tok], ln: int) -> list[str] | None:
    line = lines[ln - 1]
    comments = [t for t in toks if t.start[0] == ln and t.type == tokenize.COMMENT]
    if not comments:
        return None
    c = comments[0]
    text = c.string
    if re.match(r"#\s*(noqa|type:|pragma|fmt:)", text):
        return None
    code = line[:c.start[1]].rstrip()
    ind = indent_of(line)
    body = re.sub(r"^#\s?", "", text)
    if not code.strip():  # own-line comment: reflow
        if width(line) <= LIMIT:
            return None
        return textwrap.wrap(body, LIMIT - ind - 2, initial_indent=" " * ind + "# ",
                             subsequent_indent=" " * ind + "# ", break_long_words=False,
                             break_on_hyphens=False)
    if width(code) > LIMIT:
        return None
    above = textwrap.wrap(body, LIMIT - ind - 2, initial_indent=" " * ind + "# ",
                          subsequent_indent=" " * ind + "# ", break_long_words=False, break_on_hyphens=False)
    return above + [code]


def fix_docstring(lines: list[str], toks: list[Tok], ln: int, published: bool) -> list[str] | None:
    """Reflow a long line inside a docstring (multi-line) at spaces."""
    for t in toks:
        if t.type == tokenize.STRING and t.start[0] <= ln <= t.end[0] and is_docstring(t):
            m = STRING_RE.match(t.string)
            if not m or not m.group(3).startswith(m.group(2) * 2):
                return None
            line = lines[ln - 1]
            if ln != t.start[0] and indent_of(line) > t.start[1]:
                return None  # an indented (literal) block: left for a hand edit
            ind = indent_of(line) if ln != t.start[0] else t.start[1]
            lo = t.start[1] + len(m.group(1)) + 3 if ln == t.start[0] else ind
            hi = t.end[1] - 3 if ln == t.end[0] else len(line)
            room = LIMIT - 2 if published else LIMIT
            spaces = [m.start() for m in re.finditer(" ", line) if lo < m.start() <= min(room, hi)]
            spaces = [p for p in spaces if line[:p].count("``") % 2 == 0] or spaces
            if not spaces:
                return None
            p = spaces[-1]
            if published:  # the value is published (pydantic field descriptions): keep it byte-identical
                return [line[:p + 1] + "\\", line[p + 1:]]
            overflow = line[p + 1:]
            if ln < t.end[0]:  # the paragraph goes on: the overflow joins the next line
                following = lines[ln]
                stripped = following.strip()
                if stripped and indent_of(following) == ind and not re.match(r"([-*+] |\d+\. |>>>|\.\. )",
                                                                            stripped) \
                        and not stripped.startswith(('"""', "'''")):
                    return [line[:p].rstrip(), " " * ind + overflow + " " + following[ind:], None]
            return [line[:p].rstrip(), " " * ind + overflow]
    return None


def shift_followers(lines: list[str], toks: list[Tok], ln: int, split_col: int, delta: int) -> None:
    """Re-indent the next lines that sit inside a bracket opened on line ln at or after split_col (it moved
    by delta)."""
    if not delta:
        return
    firsts: dict[int, Tok] = {}
    for t in toks:
        if (t.start[0] > ln
            and t.type not in (tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.NEWLINE)):
            firsts.setdefault(t.start[0], t)
    for number in range(ln + 1, len(lines) + 1):
        t = firsts.get(number)
        if t is None or t.type == tokenize.COMMENT and not t.opens:
            if t is None and number in firsts:
                continue
            if t is None:
                continue
        if not any(line == ln and col >= split_col for line, col in t.opens):
            if t.depth == 0 or t.opens[0][0] != ln and t.opens[0][0] < ln:
                break
            continue
        text = lines[number - 1]
        lead = indent_of(text)
        lines[number - 1] = " " * max(0, lead + delta) + text[lead:]


def _code(source: str, strict: bool) -> str:
    """The AST of a module, with the whitespace of its bare string statements (docstrings) collapsed
    unless strict."""
    tree = ast.parse(source)
    if not strict:
        for node in ast.walk(tree):
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
                    and isinstance(node.value.value, str):
                node.value.value = " ".join(node.value.value.split())
    return ast.dump(tree)


def fix_file(path: str) -> list[int]:
    """Wrap the file's long lines; the lines left long (all of them when the code would change)."""
    with open(path) as fh:
        original = fh.read()
    lines = original.split("\n")
    stuck: set[int] = set()
    published = PUBLISHED_DOCSTRINGS.search(path) is not None
    for _ in range(5000):
        source = "\n".join(lines)
        toks = scan(source)
        long = [i + 1 for i, s in enumerate(lines) if too_long(s) and i + 1 not in stuck]
        if not long:
            break
        ln = long[0]
        new = fix_comment(lines, toks, ln) or fix_docstring(lines, toks, ln, published)
        if new is None:
            pragma = PRAGMA.search(lines[ln - 1])
            if pragma:  # cut it off, wrap, and put it on each resulting line
                lines[ln - 1] = lines[ln - 1][:pragma.start()]
                toks = scan("\n".join(lines))
            cands = sorted(candidates(lines, toks, ln), key=lambda c: c[0], reverse=True)
            new = cands[0][1] if cands else None
            if cands and cands[0][2] is not None:
                shift_followers(lines, toks, ln, *cands[0][2])
            if pragma:
                if new is None:
                    lines[ln - 1] += pragma.group(0)
                else:
                    new = [part if part is None else part + pragma.group(0) for part in new]
        if new is None or new == [lines[ln - 1]]:
            stuck.add(ln)
            continue
        span = 1
        if new[-1] is None:
            new, span = new[:-1], 2
        shift = len(new) - span
        stuck = {s + shift if s > ln else s for s in stuck}
        lines[ln - 1:ln - 1 + span] = new
    wrapped = "\n".join(lines)
    if _code(wrapped, published) != _code(original, published):
        return [i + 1 for i, s in enumerate(original.split("\n")) if too_long(s)]
    with open(path, "w") as fh:
        fh.write(wrapped)
    return sorted(stuck)


def main(paths: list[str]) -> int:
    left = 0
    for path in paths:
        for ln in fix_file(path):
            print(f"{path}:{ln}: left for a hand edit", file=sys.stderr)
            left += 1
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
