"""``vllm-recipes predict --all`` over recipes/ plus ../shared/upstream with facts from ../shared/hub.

A copy of recipes/ (its stored predictions removed) and a copy of ../shared/upstream whose facts
``import-config --from-hub --all`` imports from a local stand-in Hub serving ../shared/hub/configs;
then, for each: ``predict --all`` cold, a rerun with nothing changed, and a rerun after one recipe
changed (Qwen/Qwen3-8B's FP8 variant gets ``--max-num-seqs 64``). Prints the seconds of each step
and the coverage lines (budgets of issue #39: all under 30 min, a rerun under 10 s, one recipe
under 60 s).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.hub_server import FakeHub, HubServer, Repo  # noqa: E402

SHARED = ROOT.parent / "shared"
CHANGED = "models/Qwen/Qwen3-8B.yaml"


def shared_configs_hub() -> FakeHub:
    """Every config.json (and hf_quant_config.json) of ../shared/hub under its repository."""
    hub, configs = FakeHub(), SHARED / "hub" / "configs"
    for path in sorted(configs.glob("*.json")):
        if not path.name.endswith(".hf_quant_config.json"):
            files = {"config.json": path.read_bytes()}
            quant = configs / f"{path.stem}.hf_quant_config.json"
            if quant.is_file():
                files["hf_quant_config.json"] = quant.read_bytes()
            hub.repos[path.stem.replace("__", "/", 1)] = Repo(files)
    return hub


def timed(env: dict[str, str], *argv: str) -> tuple[float, str]:
    """Seconds and the last stdout line of ``python -m builder ARGV``."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "builder", *argv], cwd=ROOT, env=env, capture_output=True,
                          text=True)
    # some fail by design
    if done.returncode not in ((0, 1) if "--check" in argv or "--from-hub" in argv else (0,)):
        sys.exit(f"{' '.join(argv)} failed: {done.stderr[-2000:]}")
    return time.perf_counter() - started, (done.stdout.strip().splitlines() or [""])[-1]


def main() -> None:
    if not (SHARED / "upstream").is_dir():
        sys.exit(f"../shared is absent ({SHARED})")
    with tempfile.TemporaryDirectory() as tmp, HubServer(shared_configs_hub(), Path(tmp) / "hf-home") as hub:
        env = {**{k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING"))}, **hub.env()}
        ours, upstream = Path(tmp) / "recipes", Path(tmp) / "upstream"
        shutil.copytree(ROOT / "recipes", ours)
        for stored in ours.glob("models/*/*.performance.json"):
            stored.unlink()
        shutil.copytree(SHARED / "upstream", upstream)
        print("upstream before facts: "
              f"{timed(env, 'predict', '--check', '--all', '--content', str(upstream))[1]}")
        seconds, line = timed(env, "import-config", "--from-hub", "--all", "--content", str(upstream))
        print(f"import-config --from-hub --all (upstream): {seconds:.1f} s: {line}")
        total = 0.0
        for name, root in (("upstream", upstream), ("recipes", ours)):
            seconds, line = timed(env, "predict", "--all", "--content", str(root))
            total += seconds
            print(f"{name}: predict --all cold {seconds:.1f} s: {line}")
            print(f"{name}: rerun, nothing changed "
                  f"{timed(env, 'predict', '--all', '--content', str(root))[0]:.1f} s")
        recipe = ours / CHANGED
        flag = '      - "--quantization"\n      - "fp8"\n'
        recipe.write_text(
            recipe.read_text().replace(flag, flag + '      - "--max-num-seqs"\n      - "64"\n', 1))
        print(
            f"recipes: one recipe changed {timed(env, 'predict', '--all', '--content', str(ours))[0]:.1f} s")
        print(f"predict --all, both cold: {total:.1f} s")


if __name__ == "__main__":
    main()
