"""Shell safety of everything the site publishes as a command (issue 11; README "Safe content").

Readers paste our commands into a root shell, so every YAML value that reaches a command is
checked where it is written, with the rules of :mod:`builder.resolver.safety` (one
implementation, shared with the in-browser resolver):

- argument lists (``args``, ``extra_args``, ``vllm_args``, ``base_args``, ``advanced_options``,
  ``json_args`` flag names): flags and positionals are printed unquoted, flag values are
  quoted (§10.4) and only refuse invisible characters;
- env mappings (``env``, ``extra_env``, ``base_env``): names and values are printed unquoted;
- ``model_id``, ``docker_image`` and preset ``image`` values, ``docker_source.mount_path``;
- values interpolated into generated commands (``omni.serve_binary``, task ``endpoint``,
  router ``policy`` / ``port`` / ``intra_node_data_parallel_size``);
- authored shell (``command``, ``install``, ``curl``): the script rule;
- Mooncake config templates, written into an unquoted heredoc.

Every problem is an error located in the YAML; the build exits 1.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from builder.content.fieldpaths import join_path
from builder.content.problems import Problem
from builder.resolver import safety
from builder.resolver.families import image_keys

Locator = Callable[[str], tuple[str, int]]
"""Field path -> (file, line) of the document being checked."""

ARG_KEYS = frozenset({"args", "extra_args", "vllm_args", "base_args"})
ENV_KEYS = frozenset({"env", "extra_env", "base_env"})
SCRIPT_KEYS = frozenset({"command", "install", "curl"})
ROUTER_WORDS = frozenset({"policy", "intra_node_data_parallel_size"})
WORD_KEYS = frozenset({"serve_binary", "endpoint", "port"})
HEREDOC_PATHS = ("mooncake_store_config.config", "mooncake_vllm_config.template")
DOCKERFILE_MARK = "# Dockerfile"


def arg_list_problems(path: str, args: list[Any]) -> Iterator[tuple[str, str]]:
    """Flags and positionals (unquoted) and flag values (quoted) of one argument list.

    A non-flag item is a flag's value when the previous non-empty item of the same list is a
    flag (dedupe and line grouping keep such pairs together); otherwise it may be printed as
    a positional, so it is held to the positional rule.
    """
    previous_is_flag = False
    for i, token in enumerate(args):
        if not isinstance(token, str):
            continue  # the schema reports non-strings
        if token == "":
            continue  # dropped before rendering (§9)
        if token.startswith("-"):
            problem = safety.shell_flag_problem(token)
            previous_is_flag = True
        else:
            check = safety.shell_value_problem if previous_is_flag else safety.shell_positional_problem
            problem = check(token)
            previous_is_flag = False
        if problem:
            yield join_path(path, i), problem


def env_problems(path: str, env: dict[Any, Any]) -> Iterator[tuple[str, str]]:
    """Names and values of one env mapping."""
    for name, value in env.items():
        field = join_path(path, str(name))
        problem = safety.env_name_problem(name) or safety.env_value_problem(value)
        if problem:
            yield field, problem


def heredoc_problems(path: str, value: Any) -> Iterator[tuple[str, str]]:
    """Keys and string values of a config written into an unquoted heredoc."""
    if isinstance(value, dict):
        for key, inner in value.items():
            field = join_path(path, str(key))
            problem = safety.heredoc_text_problem(str(key))
            if problem:
                yield field, problem
            yield from heredoc_problems(field, inner)
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            yield from heredoc_problems(join_path(path, i), inner)
    elif isinstance(value, str):
        problem = safety.heredoc_text_problem(value)
        if problem:
            yield path, problem


def _image_values(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    """String leaves of a ``docker_image`` value (brand and CUDA maps)."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _image_values(inner, join_path(path, str(key)))
    elif value is not None:
        yield path, value


def _script_problem(text: str, path: str) -> str | None:
    if path.startswith("platforms[") and text.startswith(DOCKERFILE_MARK):
        problem = safety.hidden_char_problem(text)  # a Dockerfile, shown as such, not pasted
        return f"Dockerfile {problem}" if problem else None
    return safety.shell_script_problem(text)


def field_problems(data: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(field path, message) for every shell-safety problem in one YAML document."""
    if isinstance(data, list):
        for i, item in enumerate(data):
            yield from field_problems(item, join_path(path, i))
        return
    if not isinstance(data, dict):
        return
    for key, value in data.items():
        key = str(key)
        field = join_path(path, key)
        if field.endswith(HEREDOC_PATHS):
            yield from heredoc_problems(field, value)
        elif key in ARG_KEYS and isinstance(value, list):
            yield from arg_list_problems(field, value)
        elif key == "advanced_options" and isinstance(value, list):
            for i, entry in enumerate(value):
                if isinstance(entry, list):
                    yield from arg_list_problems(join_path(field, i), entry)
                else:
                    yield from field_problems(entry, join_path(field, i))
        elif key in ENV_KEYS and isinstance(value, dict):
            yield from env_problems(field, value)
        elif key == "json_args" and isinstance(value, dict):
            for flag in value:
                problem = safety.shell_flag_problem(str(flag))
                if problem:
                    yield join_path(field, str(flag)), problem
        elif key == "model_id" and value is not None:
            problem = safety.model_id_problem(value)
            if problem:
                yield field, problem
        elif key == "docker_image" or (key == "image" and path.startswith("presets.")):
            for leaf, image in _image_values(value, field):
                if leaf.endswith(".pip") or "].pip[" in leaf:
                    continue
                problem = safety.image_problem(image)
                if problem:
                    yield leaf, problem
        elif key == "mount_path" and path.endswith("docker_source"):
            problem = safety.mount_path_problem(value)
            if problem:
                yield field, problem
        elif key in SCRIPT_KEYS and isinstance(value, str):
            problem = _script_problem(value, field)
            if problem:
                yield field, problem
        elif key == "install" and isinstance(value, dict):
            for sub, inner in value.items():
                sub_field = join_path(field, str(sub))
                if sub in image_keys() and isinstance(inner, str):  # brand-keyed kv_store install
                    problem = safety.shell_script_problem(inner)
                    if problem:
                        yield sub_field, problem
                else:
                    yield from field_problems(inner, sub_field)
        elif (key in WORD_KEYS or (key in ROUTER_WORDS and path.endswith("router"))) \
                and value is not None and not isinstance(value, (dict, list)):
            problem = safety.shell_words_problem(value, key)
            if problem:
                yield field, problem
        else:
            yield from field_problems(value, field)


def document_problems(data: Any, where: Locator) -> list[Problem]:
    """Located errors of one YAML document (a recipe or a vocabulary file)."""
    out = []
    for field, message in field_problems(data):
        file, line = where(field)
        out.append(Problem(file, line, field, message))
    return out
