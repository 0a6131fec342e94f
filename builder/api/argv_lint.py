"""The vLLM CLI lint of every published argv, and where in a recipe a flag comes from."""

from __future__ import annotations

from typing import Any

from builder.checks import vllm_lint
from builder.content.fieldpaths import join_path
from builder.content.model import RecipeFile
from builder.content.problems import Problem
from builder.content.recipe_lints import arg_lists


class ArgvLint:
    """Checks every published argv against vLLM's CLI; one warning per (recipe, flag, reason)."""

    def __init__(self) -> None:
        self.recipe: RecipeFile | None = None
        self.found: dict[tuple[str, str], list[str]] = {}
        self.values: dict[tuple[str, str], str | None] = {}  # the argv item at fault, to locate it

    def start(self, recipe: RecipeFile) -> None:
        self.recipe, self.found, self.values = recipe, {}, {}

    def record(self, record: dict[str, Any], preset: str | None = None) -> list[vllm_lint.Finding]:
        """Lint one rendering record; remember which selection produced each problem."""
        findings = vllm_lint.lint_record(record)
        for finding in findings:
            selection = (
                f"hardware {record.get('hardware')}, variant {record.get('variant')}, "
                f"strategy {record.get('strategy')}" + (f", {preset}" if preset else "")
            )
            self.found.setdefault((finding.flag, finding.reason), []).append(selection)
            self.values.setdefault((finding.flag, finding.reason), finding.value)
        return findings

    def problems(self) -> list[Problem]:
        """Located warnings for the current recipe."""
        assert self.recipe is not None
        out = []
        for (flag, reason), selections in self.found.items():
            field = arg_origin(self.recipe.data, flag, self.values.get((flag, reason)))
            file, line = self.recipe.where(field)
            more = f" (+{len(selections) - 1} more renderings)" if len(selections) > 1 else ""
            message = f"{flag}: {reason} [vLLM {vllm_lint.VLLM_VERSION}; {selections[0]}{more}]"
            out.append(Problem(file, line, field, message, warning=True))
        return out


def arg_origin(data: dict[str, Any], flag: str, value: str | None = None) -> str:
    """The field path of the first recipe argument list item that writes ``flag``.

    With ``value`` (the argv item at fault), the first item that writes ``flag`` with that value
    wins, so a flag given in several places is located where the bad value is.
    """
    if value is not None:
        for path, args in arg_lists(data):
            for i, token in enumerate(args):
                if (token == f"{flag}={value}"
                    or (token == flag and i + 1 < len(args) and args[i + 1] == value)):
                    return join_path(path, i)
    for path, args in arg_lists(data):
        for i, token in enumerate(args):
            if isinstance(token, str) and (token == flag or token.startswith((flag + "=", flag + " "))):
                return join_path(path, i)
    return ""
