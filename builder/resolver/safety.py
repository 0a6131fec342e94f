"""What the renderers print without quotes must be safe to paste (project rule, README
"Safe content"; the resolver spec's §10 quoting is kept byte for byte).

Each check returns None or the message of a build error; ``builder.shell_safety`` applies
them to the YAML, the paste test proves the result on every published command.
"""

from __future__ import annotations

import re
from typing import Any

from .shell import SHELL_SAFE, SHELL_VAR
from .values import js_str

SAFE_CHARS = "letters, digits and _ . / = : @ , + % -"
_HIDDEN = re.compile(
    r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]")
_FLAG_WITH_VALUE = re.compile(r"(-[A-Za-z0-9_./=:@,+%-]*) ([A-Za-z0-9_./=:@,+%-]+)")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MODEL_ID = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+|(?:/[A-Za-z0-9_.+-]+)+")
_IMAGE_REF = re.compile(
    r"(?:[A-Za-z0-9.-]+(?::[0-9]+)?/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
    r"(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?"
    r"(?:@sha256:[0-9a-f]{64})?")
_VAR_REF = re.compile(r"\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\})")
_CAT_SUBST = re.compile(r"\$\(cat [A-Za-z0-9_][A-Za-z0-9_./-]*\)")  # a relative file
_UNQUOTED_BAD = set(";()`{}*?[]!~^\\")
_PIPE_INTO = re.compile(r"\|[ ]*(?:jq|base64)[ ]")  # decoding a JSON answer, as our omni examples do
_REDIRECT_TO = re.compile(r">[ ]*[A-Za-z0-9_][A-Za-z0-9_.-]*(?=[ \n]|$)")  # a file in the current folder


def hidden_char_problem(text: str) -> str | None:
    """A control, zero-width or bidi character (other than a newline) anywhere in ``text``."""
    m = _HIDDEN.search(text)
    return None if m is None else f"contains the control/invisible character U+{ord(m.group()):04X}"


def shell_flag_problem(token: str) -> str | None:
    """A flag item (``--x``, ``--x=v``) is printed unquoted: safe characters only.

    One space between a flag and a value (``--max-model-len auto``, in the upstream corpus)
    is tolerated: bash splits it into those two words and runs nothing else.
    """
    if SHELL_SAFE.fullmatch(token) or _FLAG_WITH_VALUE.fullmatch(token):
        return None
    return (f"flag {token!r} is printed unquoted: only {SAFE_CHARS} are allowed "
            f"(give a value as the next list item: values are quoted)")


def shell_positional_problem(token: str) -> str | None:
    """A positional argument (a non-flag item not after a flag) is printed unquoted, on a line of its own:
    safe characters only, and not ``::`` first (a CI runner would read that line as a workflow command)."""
    if token.startswith("::"):
        return (f"positional argument {token!r} starts with '::': printed on its own line, a CI log reads it "
                "as a command")
    if SHELL_SAFE.fullmatch(token):
        return None
    return f"positional argument {token!r} is printed unquoted: only {SAFE_CHARS} are allowed"


def shell_value_problem(token: str) -> str | None:
    """A flag value is quoted (§10.4); only invisible characters are refused."""
    problem = hidden_char_problem(token)
    return None if problem is None else f"value {token!r} {problem}"


def env_name_problem(name: Any) -> str | None:
    """Env names are printed as ``export NAME=`` / ``-e NAME=``."""
    if isinstance(name, str) and _ENV_NAME.fullmatch(name):
        return None
    return f"env name {name!r} must match [A-Za-z_][A-Za-z0-9_]*"


def env_value_problem(value: Any) -> str | None:
    """Env values are printed unquoted (``export K=V``, ``-e K=V``, ``-v V:V:ro`` mounts).

    Allowed: numbers, booleans, null, the empty string, safe characters, or one bare
    upper-case ``$VAR`` (expanded by the reader's shell, like a §10.4 placeholder).
    """
    if value is None or isinstance(value, (bool, int, float)):
        return None
    if isinstance(value, str) and (value == "" or SHELL_SAFE.fullmatch(value) or SHELL_VAR.fullmatch(value)):
        return None
    return (f"env value {value!r} is printed unquoted: only {SAFE_CHARS} or one $UPPER_CASE "
            f"variable are allowed")


def model_id_problem(model_id: Any) -> str | None:
    """Model ids are printed unquoted (``vllm serve <id>``, docker mounts)."""
    if isinstance(model_id, str) and _MODEL_ID.fullmatch(model_id):
        return None
    return (f"model id {model_id!r} must be org/repo (letters, digits, _ . -) or an absolute "
            f"path of letters, digits and _ . + - /")


_MOUNT_PATH = re.compile(r"(?:/[A-Za-z0-9_.+-]+)+")


def mount_path_problem(path: Any) -> str | None:
    """A host folder bind-mounted into a container (``-v P:P:ro``, ``-e PYTHONPATH=P``) is printed
    unquoted."""
    if isinstance(path, str) and _MOUNT_PATH.fullmatch(path) and ".." not in path.split("/"):
        return None
    return f"mount path {path!r} must be an absolute path of letters, digits and _ . + - / (no ..)"


def image_problem(image: Any) -> str | None:
    """Docker images are printed unquoted: a docker reference (``docker pull <ref>`` tolerated)."""
    if isinstance(image, str):
        ref = image[len("docker pull "):] if image.startswith("docker pull ") else image
        if _IMAGE_REF.fullmatch(ref):
            return None
    return f"docker image {image!r} must be a docker image reference ([registry/]name[:tag][@sha256:digest])"


def shell_words_problem(text: Any, what: str) -> str | None:
    """Values interpolated into generated commands (serve binary, router policy, endpoint...)."""
    words = js_str(text).split(" ")
    if all(SHELL_SAFE.fullmatch(w) for w in words):
        return None
    return f"{what} {text!r} is printed unquoted: only {SAFE_CHARS} (and single spaces) are allowed"


def shell_script_problem(text: Any) -> str | None:
    """Authored shell (install commands, companion/master commands, curl examples).

    The rule is as strict as the upstream corpus and our recipes allow: commands are joined by
    newlines or ``&&`` only; outside quotes no ``; & < ( ) ` { } * ? [ ] ! ~ ^`` nor backslashes
    except a line continuation; ``|`` only into ``jq`` or ``base64``; ``>`` only to a file name
    of the current folder; ``$`` only as ``$NAME`` / ``${NAME}``; inside double quotes the same
    expansions plus ``$(cat <path>)``; single quotes hold anything; ``#`` comments; every
    quote closed; no control or invisible character; no line that a CI log reads as a workflow command
    (``::`` or ``##[`` first).
    """
    if not isinstance(text, str):
        return f"shell command {text!r} must be a string"
    problem = hidden_char_problem(text)
    if problem:
        return f"shell command {problem}"
    for number, line in enumerate(text.split("\n"), 1):
        if line.strip().startswith(("::", "##[")):
            return (f"shell command line {number} starts with {line.strip()[:3]!r}: a CI log reads it as a "
                    "command")
    i, n, quote, word_start = 0, len(text), "", True

    def where(k: int) -> str:
        line = text.count("\n", 0, k) + 1
        return f"line {line}, column {k - (text.rfind(chr(10), 0, k) + 1) + 1}"

    while i < n:
        ch = text[i]
        if quote == "'":
            quote = "" if ch == "'" else quote
            i += 1
            continue
        if quote == '"':
            if ch == '"':
                quote, i = "", i + 1
            elif ch == "\\":
                i += 2
            elif ch in "`!":
                return f"shell command: {ch!r} inside double quotes at {where(i)} is not allowed"
            elif ch == "$":
                m = _CAT_SUBST.match(text, i) or _VAR_REF.match(text, i)
                if m is None:
                    return (f"shell command: '$' at {where(i)} must start $NAME, ${{NAME}} or "
                            f"$(cat <path>)")
                i = m.end()
            else:
                i += 1
            continue
        if ch in "'\"":
            quote, word_start, i = ch, False, i + 1
        elif ch == "#" and word_start:
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif ch == "\\" and text[i + 1:i + 2] == "\n":
            i += 2
        elif ch == "&" and text[i + 1:i + 2] == "&":
            word_start, i = True, i + 2
        elif ch == "$":
            m = _VAR_REF.match(text, i)
            if m is None:
                return f"shell command: '$' at {where(i)} must start $NAME or ${{NAME}}"
            word_start, i = False, m.end()
        elif ch == "|" and _PIPE_INTO.match(text, i):
            word_start, i = True, i + 1
        elif ch == ">" and (target := _REDIRECT_TO.match(text, i)) is not None:
            word_start, i = False, target.end()
        elif ch in _UNQUOTED_BAD or ch in "&|<>":
            return (f"shell command: {ch!r} outside quotes at {where(i)} is not allowed "
                    f"(join commands with a newline or &&)")
        else:
            word_start, i = ch in " \n", i + 1
    return f"shell command: unterminated {quote} quote" if quote else None


def heredoc_text_problem(text: str) -> str | None:
    """Strings written into the unquoted Mooncake ``<<EOF`` heredocs (only ``$NAME`` expands)."""
    for m in re.finditer(r"[`\\$]", text):
        if m.group() != "$" or not _VAR_REF.match(text, m.start()):
            return (f"{text!r} is written into an unquoted heredoc: no backtick or backslash, "
                    f"'$' only as $NAME or ${{NAME}}")
    return None


