"""How the commands' ``$NAME`` placeholders (cluster spec conventions) become cluster wiring.

In a record, an argv token or env value that is exactly ``$UPPER_NAME`` is a placeholder the
reader's shell expands (§10.4 leaves it unquoted); any other ``$`` is literal (it was quoted).
Kubernetes expands ``$(NAME)`` in ``command``/``args``/env values and reads ``$$`` as ``$``;
Compose interpolates ``${NAME}`` and reads ``$$`` as ``$``. Both forms are written here.
"""

from __future__ import annotations

import re

from ..shell import SHELL_VAR

_NODE = re.compile(r"(PREFILL|DECODE)_NODE_([0-9]+)")
_INSTANCE = re.compile(r"VLLM_INSTANCE_([0-9]+)")
LWS_LEADER = "$(LWS_LEADER_ADDRESS)"
LWS_INDEX = "$(LWS_WORKER_INDEX)"
LWS_SIZE = "$(LWS_GROUP_SIZE)"
MOONCAKE_DIR = "/etc/mooncake"
# Values for placeholders that do not name another workload (Compose's ``.env`` suggests the same).
DEFAULTS = {
    "IFACE_NAME": "eth0",
    "ROUTER_HOST": "0.0.0.0",
    "MOONCAKE_CONFIG_PATH": f"{MOONCAKE_DIR}/mooncake_vllm_config.json",
    "MOONCAKE_STORE_CONFIG_PATH": f"{MOONCAKE_DIR}/mooncake_store_config.json",
    "PREFILL_DP_RPC_PORT": "29550",
    "DECODE_DP_RPC_PORT": "29550",
    "VLLM_PORT": "8000",
}


def placeholder_name(value: object) -> str | None:
    """``NAME`` when ``value`` is exactly a ``$NAME`` placeholder."""
    return value[1:] if isinstance(value, str) and SHELL_VAR.fullmatch(value) else None


def names_in(text: str) -> list[str]:
    """The ``$NAME`` references of a shell text, in order, once each."""
    found: list[str] = []
    for match in re.finditer(r"\$\{?([A-Z_][A-Z0-9_]*)", text):
        if match.group(1) not in found:
            found.append(match.group(1))
    return found


def node_of(name: str) -> tuple[str, int] | None:
    """``("prefill", 2)`` for ``PREFILL_NODE_2``."""
    match = _NODE.fullmatch(name)
    return (match.group(1).lower(), int(match.group(2))) if match else None


def instance_of(name: str) -> int | None:
    """``2`` for ``VLLM_INSTANCE_2``."""
    match = _INSTANCE.fullmatch(name)
    return int(match.group(1)) if match else None


def kubernetes_token(value: str, subs: dict[str, str]) -> str:
    """An argv token or env value for Kubernetes: a placeholder becomes ``subs[NAME]`` (else
    ``$(NAME)``), any other ``$`` is escaped as ``$$``."""
    name = placeholder_name(value)
    if name is not None:
        return subs.get(name, f"$({name})")
    return value.replace("$", "$$")


def kubernetes_shell(text: str) -> str:
    """A shell text run by ``sh -c`` in a container: every ``$`` reaches the shell unexpanded."""
    return text.replace("$", "$$")


def compose_token(value: str) -> str:
    """An argv token or env value for Compose: a placeholder becomes ``${NAME}``, any other ``$`` ``$$``."""
    name = placeholder_name(value)
    return f"${{{name}}}" if name is not None else value.replace("$", "$$")


def compose_shell(text: str) -> str:
    """A shell text for Compose: ``$NAME``/``${NAME}`` become ``${NAME}`` (interpolated), other ``$``
    ``$$``."""
    out, index = [], 0
    pattern = re.compile(r"\$(?:([A-Z_][A-Z0-9_]*)|\{([A-Z_][A-Z0-9_]*)\})")
    while index < len(text):
        match = pattern.match(text, index)
        if match:
            out.append(f"${{{match.group(1) or match.group(2)}}}")
            index = match.end()
        else:
            out.append("$$" if text[index] == "$" else text[index])
            index += 1
    return "".join(out)
