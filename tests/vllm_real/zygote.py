"""The real-parser suite's zygote: imports vLLM once, then runs each script in a forked child.

Run in the vLLM venv as ``VENV/bin/python -m tests.vllm_real.zygote SOCKET`` from the project root, by
:func:`tests.vllm_real.scripts.run_script`. Importing vLLM's ``serve`` command (what
``tools/vllm_flags.build_serve_parser`` needs) takes about 8.8 s, building the parser from it a few
hundredths: the zygote builds the parser once, which leaves vLLM imported, and serves as
:mod:`tests.support.zygote` says (standard library only: the vLLM venv lacks our package). A request's
``argv`` is ``[SCRIPT, *arguments]``: the child runs SCRIPT as ``python SCRIPT *arguments`` would (as
``__main__``, ``sys.argv`` = ``argv``: its ``main()`` and exit status), building its own parser from the
modules already imported. Each request is a child of its own, so what one changes (logging levels,
registries, the parser, the environment) dies with it.

``bench serve``'s parser is not built here: its module needs ``einops``, which the CPU venv lacks and
``build_bench_serve_parser`` replaces with an empty module, which the ``serve`` scripts must not see. It
costs its child about 0.2 s.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

from tests.support.zygote import serve

TOOLS = Path(__file__).resolve().parents[2] / "tools"
sys.path.insert(0, str(TOOLS))  # as the scripts do: ``from vllm_flags import ...``

import vllm_flags  # noqa: E402


def run(argv: list[str]) -> object:
    """In the child: ``python SCRIPT *arguments`` for ``argv`` = ``[SCRIPT, *arguments]``."""
    sys.argv = list(argv)
    runpy.run_path(argv[0], run_name="__main__")
    return 0  # a script that returns from its module without ``sys.exit``


if __name__ == "__main__":
    vllm_flags.build_serve_parser()
    serve(sys.argv[1], run)
