"""vLLM's own config-file form: ``vllm serve MODEL --config NAME.yaml`` with the arguments as YAML, and
the environment as ``NAME.env`` sourced first.

vLLM 0.33.0 reads the file in ``FlexibleArgumentParser.load_config_file``
(``vllm/utils/argparse_utils.py``): each key becomes ``--key``; ``true`` a bare flag (``false`` its
``--no-`` form, so ``--no-x`` is written as ``no-x: true``, which needs no flag catalogue); a list
``--key a b``; a mapping one JSON value; anything else ``str(value)``. Arguments from the command line
win over the file. A token is kept on the command line, not in the file, when the file can't say it
exactly: a ``$NAME`` placeholder the reader's shell expands (the file is not expanded), a short option
(``-tp``), a flag given twice, or a value that starts with ``--``. ``--key=value`` is written as
``key: value``.
"""

from __future__ import annotations

import json
from typing import Any

from ..shell import arg_units, quote_value
from .placeholders import placeholder_name
from .plan import Plan, Workload
from .types import DeployFile
from .yaml_text import comment_lines, dump

ConfigValue = bool | int | str | list[str] | dict[str, Any]


def _config_value(values: list[str]) -> ConfigValue:
    """A flag's values as the YAML value that :func:`load_config_file` turns back into them."""
    if not values:
        return True
    if len(values) > 1:
        return values
    value = values[0]
    if value.isascii() and value.isdigit() and str(int(value)) == value:
        return int(value)
    if value.startswith("{"):
        try:
            parsed = json.loads(value)
        except ValueError:
            return value
        if isinstance(parsed, dict):
            return parsed
    return value


def _options(tokens: list[str]) -> list[tuple[str, list[str]]]:
    """``[(flag, values)]`` of the tokens after ``vllm serve MODEL``, by the spec's argument units
    (:func:`~builder.resolver.shell.arg_units`); a positional extends the flag before it."""
    out: list[tuple[str, list[str]]] = []
    for unit in arg_units(tokens):
        flag = unit[0]
        if isinstance(flag, str) and flag.startswith("--") and "=" in flag:  # --key=value is --key value
            name, _, value = flag.partition("=")
            out.append((name, [value, *unit[1:]]))
        elif flag is not None:
            out.append((flag, list(unit[1:])))
        elif out:
            out[-1][1].append(unit[1])
        else:
            out.append((unit[1], []))  # a positional before any flag stays on the command line
    return out


def split_argv(argv: list[str]) -> tuple[dict[str, ConfigValue], list[str]]:
    """The config file's mapping and the tokens left on the command line after ``--config FILE``, for one
    ``vllm serve MODEL ...`` argv (the model stays the positional, as vLLM's docs write it)."""
    config: dict[str, ConfigValue] = {}
    options = _options(argv[3:])
    counts: dict[str, int] = {}
    for flag, _ in options:
        counts[flag] = counts.get(flag, 0) + 1
    cli: list[str] = []
    for flag, values in options:
        in_file = (flag.startswith("--") and len(flag) > 2 and counts[flag] == 1
                   and flag[2:] not in config
                   and not any(placeholder_name(v) is not None or "$" in v or v.startswith("--")
                               for v in values))
        if in_file:
            config[flag[2:]] = _config_value(values)
        else:
            cli += [flag, *values]
    return config, cli


def _env_text(env: dict[str, str]) -> str:
    """``KEY=value`` lines a POSIX shell sources (a ``$NAME`` placeholder stays expandable)."""
    lines = []
    for key, value in env.items():
        lines.append(f"{key}={quote_value(value)}")
    return "".join(f"{line}\n" for line in lines)


def _serve_files(workload: Workload, argv: list[str], name: str, notes: list[str]) -> list[DeployFile]:
    config, cli = split_argv(argv)
    config_name, env_name = f"{name}.yaml", f"{name}.env"
    serve = " ".join(
        [*argv[:2], quote_value(argv[2]), "--config", config_name, *(quote_value(t) for t in cli)])
    apply = f"set -a && . ./{env_name} && set +a && {serve}" if workload["env"] else serve
    head = comment_lines([apply, *notes])
    files: list[DeployFile] = [
        {"filename": config_name, "text": "".join(f"# {line}\n" for line in head) + dump(config),
         "documents": [config], "apply": apply}]
    if workload["env"]:
        files.append(
            {"filename": env_name, "text": _env_text(workload["env"]), "documents": [dict(workload["env"])],
             "apply": ""})  # read by the config file's command
    return files


def vllm_config_files(plan: Plan) -> list[DeployFile]:
    """One config file (and env file) per ``vllm serve`` process; helpers are named in a note."""
    helpers = [w for w in plan["workloads"] if w["shell"] is not None]
    notes = [f"{w['role']}: not a vllm serve process; start it with the shell form's command"
             for w in helpers]
    files: list[DeployFile] = []
    for workload in (w for w in plan["workloads"] if w["shell"] is None):
        argvs = [workload["head_argv"], *workload["worker_argvs"]]
        for rank, argv in enumerate(argvs):
            name = workload["name"] if len(argvs) == 1 else f"{workload['name']}-node-{rank}"
            files += _serve_files(workload, argv, name, notes + workload["notes"])
    return files
