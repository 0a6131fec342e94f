"""tools/wrap_long_lines.py: long lines wrapped in the house style, the code unchanged."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def load_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("wrap_long_lines", ROOT / "tools" / "wrap_long_lines.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["wrap_long_lines"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


TOOL = load_tool()
PAD = "x" * 60


def wrapped(tmp_path: Path, source: str, name: str = "module.py") -> tuple[str, list[int]]:
    path = tmp_path / name
    path.write_text(source)
    left = TOOL.fix_file(str(path))
    return path.read_text(), left


def test_a_call_breaks_after_a_comma_aligned_under_its_first_argument(tmp_path: Path) -> None:
    source = f"result = compute({PAD}, second_argument, third_argument_name)\n"
    text, left = wrapped(tmp_path, source)
    assert text == (f"result = compute({PAD}, second_argument,\n"
                    "                 third_argument_name)\n")
    assert left == []


def test_a_long_string_splits_into_pieces_of_the_same_value(tmp_path: Path) -> None:
    message = "word " * 30
    source = f"def f(x):\n    raise ValueError(f\"{{x}}: {message}\")\n"
    text, left = wrapped(tmp_path, source)
    assert left == []
    assert all(len(line) <= 110 for line in text.splitlines())
    assert ast.dump(ast.parse(text)) == ast.dump(ast.parse(source))
    # the pieces after the first hold no field: plain strings, not f-strings
    assert text.splitlines()[2].lstrip().startswith('"word')


def test_a_statement_level_expression_is_parenthesised_before_its_loosest_operator(tmp_path: Path) -> None:
    source = f"value = first_choice_{PAD} if condition_holds else second_choice_name_long\n"
    text, _ = wrapped(tmp_path, source)
    assert text == (f"value = (first_choice_{PAD} if condition_holds\n"
                    "         else second_choice_name_long)\n")


def test_a_trailing_comment_moves_above_its_line(tmp_path: Path) -> None:
    source = f"LIMIT = 3  # {'why ' * 25}\n"
    text, _ = wrapped(tmp_path, source)
    assert text.splitlines()[-1] == "LIMIT = 3"
    assert all(line.startswith("# why") for line in text.splitlines()[:-1])


def test_a_published_docstring_keeps_its_value(tmp_path: Path) -> None:
    folder = tmp_path / "builder" / "content" / "schemas"
    folder.mkdir(parents=True)
    source = f'class A:\n    x: int = 1\n    """{"Words of a field description. " * 4}"""\n'
    text, left = wrapped(folder, source, "model.py")
    assert left == []
    assert text.splitlines()[2].endswith("\\")
    assert ast.dump(ast.parse(text)) == ast.dump(ast.parse(source))


@pytest.mark.parametrize("line", [f"value = {'a' * 120}", f"# https://example.org/{'a' * 120}"])
def test_what_cannot_be_wrapped_is_reported_and_left(tmp_path: Path, line: str) -> None:
    text, left = wrapped(tmp_path, line + "\n")
    assert left == [1]
    assert text == line + "\n"
