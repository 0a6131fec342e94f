"""Where the interactive builder deliberately differs from the reference builder (the upstream Next.js
app this site replaces), as data: what, where, why, and the recipe field, engine fact or spec item
that justifies it.

``tests/resolver/test_reference_replay.py`` replays the click sequences of ``../shared/interactive``
through our builder and compares every command tab with the reference's; a difference passes only
when a row below whose condition holds turns our text into the reference's. Each row says how:

- ``rewrite``: ``(pattern, replacement)`` regular expressions applied, in order, to our text;
- ``normalise``: a named comparison the replay test implements where a regular expression can't say
  it (``sorted_args``: the same argument lines in another order; ``docker_mode_text``: this mode is
  compared through our Docker mode's text; ``summary_tp``: "TP=<GPUs per node>" for the strategy name;
  ``verified_badge``: our summary where the reference shows its "Verified on" badge);
- ``when``: the condition the replay test checks before applying the row (``host_network``, ``tpu``,
  ``multi_node``, ``cluster``, ``kv_or_pd``, ``docker_source``, ``omni``, ``feature_clicked``,
  ``single_node_not_tp``, ``multi_gpu_profile``); a row without ``rewrite`` or ``normalise`` is a
  behaviour no recorded click path shows, listed so that it is not silent.

ARCHITECTURE.md ("Differences from the reference builder") links this table.
"""

from __future__ import annotations

from typing import Literal, TypedDict

Mode = Literal["serve", "docker", "summary", "pill"]


class Deviation(TypedDict):
    """One deliberate difference from the reference builder."""

    id: str
    what: str  # the difference, as a reader sees it
    where: str  # which states show it
    why: str  # what it buys the reader
    justified_by: str  # the recipe field, engine fact or spec item behind it
    modes: tuple[Mode, ...]  # what it changes: a command tab in pip / Docker mode, the summary, a pill label
    when: str  # the condition the replay test checks (module docstring)
    rewrite: tuple[tuple[str, str], ...]  # regular expressions turning our text into the reference's
    normalise: str | None  # or a named comparison (module docstring)


DEVIATIONS: tuple[Deviation, ...] = (
    {
        "id": "host-network",
        "what": "`--network host` instead of `-p 8000:8000` in the `docker run` line",
        "where": "multi-node, PD, Mooncake and companion (LMCache server) containers",
        "why": "a bridged container publishes one port: NCCL/Gloo peers, NIXL side channels, PD pools on "
               "8001/8002, the Mooncake master and the LMCache server on localhost:5555 are "
               "unreachable from it",
        "justified_by": "site-features GAP-12 (publish the real ports or use host networking); vLLM's "
                        "--master-addr/--nnodes rendezvous and NIXL side channels listen on "
                        "ports of their own",
        "modes": ("serve", "docker"),
        "when": "host_network",
        "rewrite": ((r"--privileged --ipc=host --network host", "--privileged --ipc=host -p 8000:8000"),),
        "normalise": None,
    },
    {
        "id": "tpu-run-flags",
        "what": "`--ipc=host` alone after the TPU device flags, where the reference repeats `--privileged` "
                "and adds `-p 8000:8000`",
        "where": "every TPU `docker run`",
        "why": "the TPU device flags already say `--privileged --network host`; `-p` is ignored (and warned "
               "about) beside `--network host`",
        "justified_by": "taxonomy: TPU profiles (generation tpu) get `--privileged --network host -v "
                        "/dev/shm:/dev/shm` (single-node §12.3); Docker discards published "
                        "ports in host mode",
        "modes": ("serve", "docker"),
        "when": "tpu",
        "rewrite": ((r"(?m)^  --ipc=host \\$", r"  --privileged --ipc=host -p 8000:8000 \\"),),
        "normalise": None,
    },
    {
        "id": "export-blank-line",
        "what": "a blank line between a tab's `export` lines and its command",
        "where": "every tab with env exports (pip / uv mode)",
        "why": "the exports are a prelude shown dimmed above the command; the copy text keeps the same "
               "separation",
        "justified_by": "site-features CMD-04 (copy = export lines + a blank line + the command) and CMD-05",
        "modes": ("serve",),
        "when": "always",
        "rewrite": ((r"(?m)^(export [^\n]*)\n\n(?!#)", r"\1\n"),),
        "normalise": None,
    },
    {
        "id": "multi-node-footer",
        "what": "the multi-node footer on two comment lines",
        "where": "Head / Node tabs of a multi-node command",
        "why": "the reference joins its two comment lines into one line with a stray `— #` in the middle",
        "justified_by": "shell: a `#` comment ends at the line's end",
        "modes": ("serve", "docker"),
        "when": "multi_node",
        "rewrite": ((r"—\n# they differ only", "— # they differ only"),),
        "normalise": None,
    },
    {
        "id": "explanatory-comments",
        "what": "extra comment lines: which Mooncake instance a tab is (`# Instance 1 of 2: runs on "
                "$VLLM_INSTANCE_1`), a DEP pool's DP size and local ranks, a multi-node pool's node rank",
        "where": "Mooncake instance tabs, PD Prefill / Decode tabs",
        "why": "the tabs differ only by those values; saying so tells the reader where each one runs",
        "justified_by": "cluster §7.9 pool metadata (dpSize, dpLocal, currentNode, startRank) "
                        "and §9.2 instances",
        "modes": ("serve", "docker"),
        "when": "kv_or_pd",
        "rewrite": ((r"(?m)^# Instance \d+ of \d+: runs on \$VLLM_INSTANCE_\d+\n", ""),
                    (r" \(DP size \d+, \d+ local ranks per node\)", ""),
                    (r"(?m)^# Node \d+ of \d+: [^\n]*\n", "")),
        "normalise": None,
    },
    {
        "id": "docker-source",
        "what": "the recipe's source checkout mounted read-only and prepended to `PYTHONPATH` in the omni "
                "`docker run` (`-v /path/to/vllm-omni:/path/to/vllm-omni:ro -e "
                "PYTHONPATH=/path/to/vllm-omni`)",
        "where": "omni recipes that set `model.docker_source` (MiniMax-H3), Docker mode",
        "why": "the published image predates the pipeline the recipe serves; without the checkout the "
               "command fails to load it",
        "justified_by": "recipe field model.docker_source.mount_path (MiniMax-H3's guide: the builder's "
                        "Docker mode binds the checkpoint and the source checkout)",
        "modes": ("serve", "docker"),
        "when": "docker_source",
        "rewrite": ((r"(?m)^(  -v (/\S+):\2:ro \\\n)  -v (/\S+):\3:ro \\\n", r"\1"),
                    (r"(?m)^  -e PYTHONPATH=/\S+ \\\n", "")),
        "normalise": None,
    },
    {
        "id": "omni-pip-mode",
        "what": "the pip / uv install mode of an omni recipe shows the env exports and `vllm serve`; the "
                "reference shows its `docker run` form in every install mode",
        "where": "omni recipes, pip / uv mode",
        "why": "the command must run where the chosen install put vLLM-Omni; Docker mode shows `docker run`",
        "justified_by": "recipe field model.install.pip (a pip path exists) and site-features INS-04 (pip "
                        "shows the bare command with env exports)",
        "modes": ("serve",),
        "when": "omni",
        "rewrite": (),
        "normalise": "docker_mode_text",
    },
    {
        "id": "canonical-flag-order",
        "what": "a feature toggled on adds its flags in the recipe's feature order; the reference appends "
                "the last-toggled feature's flags at the end",
        "where": "any state reached by a Features click",
        "why": "the same selection gives the same command whatever the click order (and the same command as "
               "the share link and the JSON API)",
        "justified_by": "single-node §6 and §8 (features walked in declaration order, one assembly order); "
                        "vLLM parses flags order-free",
        "modes": ("serve", "docker"),
        "when": "feature_clicked",
        "rewrite": (),
        "normalise": "sorted_args",
    },
    {
        "id": "summary-strategy-name",
        "what": "the config summary names a single-node strategy other than Tensor Parallel (`Tensor + "
                "Expert Parallel`) where the reference prints `TP=<GPUs per node>`",
        "where": "single-node TEP / DEP",
        "why": "TEP and DEP do not run with that tensor-parallel size",
        "justified_by": "site-features GAP-11",
        "modes": ("summary",),
        "when": "single_node_not_tp",
        "rewrite": (),
        "normalise": "summary_tp",
    },
    {
        "id": "verified-single-node-only",
        "what": "the config summary (`2× H200 · Multi-Node Tensor Parallel · FP8`, `H200 · PD "
                "cluster · FP8`) where the reference shows its \"Verified on\" badge",
        "where": "multi-node and PD commands on hardware the recipe marks verified",
        "why": "the author verified the hardware's single-node command, not a cluster of it",
        "justified_by": "recipe field hardware.<id>: verified (a single-node verification); issue #16",
        "modes": ("summary",),
        "when": "cluster",
        "rewrite": (),
        "normalise": "verified_badge",
    },
    {
        "id": "multi-gpu-pill-label",
        "what": "`2× RTX 5090` hardware pills where the reference shows two identical `RTX 5090` pills",
        "where": "workstation profiles of more than one GPU",
        "why": "two pills with the same label can't be told apart",
        "justified_by": "taxonomy hardware_profiles gpu_count (rtx_5090 and rtx_5090_2x)",
        "modes": ("pill",),
        "when": "multi_gpu_profile",
        "rewrite": ((r"^\d+× ", ""),),
        "normalise": None,
    },
    {
        "id": "hardware-switch-keeps-strategy",
        "what": "a hardware switch keeps the strategy the reader picked while the new hardware offers it",
        "where": "any hardware click after a strategy click",
        "why": "changing GPUs should not undo an unrelated choice (nodes, variant and features stay too)",
        "justified_by": "site-features CB-HW-06 resets the strategy to the recommended one; "
                        "issue #41 keeps it",
        "modes": ("serve", "docker"),
        "when": "never recorded",
        "rewrite": (),
        "normalise": None,
    },
)
