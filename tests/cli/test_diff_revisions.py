"""``diff --git`` reports exactly what a build of each revision's files publishes: the revision's own
``.gitattributes`` (export-ignore, export-subst, filters) change nothing, links are not followed out of
the content root, large files are not read; revision names git would take for an option, a path or a
range are refused with one line (exit 2) and the repository is left as it was."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from builder.cli.diff import revision
from builder.cli.main import main
from tests.support.git_repo import git
from tests.support.inert import log_commands
from tests.support.paths import RECIPES, need_runtime

QWEN8 = "models/Qwen/Qwen3-8B.yaml"


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    """The recipes, committed at a repository's root (one commit, ``main``)."""
    folder = tmp_path / "repo"
    shutil.copytree(RECIPES, folder)
    git(folder, "init", "-q", "-b", "main")
    git(folder, "add", ".")
    git(folder, "commit", "-q", "-m", "recipes")
    return folder


def commit(repo: Path, files: dict[str, str | bytes]) -> None:
    for rel, text in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "change")


def with_flags(repo: Path, flags: str) -> str:
    return (repo / QWEN8).read_text().replace("  base_args: []", f"  base_args: [{flags}]", 1)


def diff(capsys: pytest.CaptureFixture[str], repo: Path, *argv: str) -> tuple[int, str, str]:
    status = main(["diff", "--git", str(repo), *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def unchanged(repo: Path, head: str) -> bool:
    return git(repo, "status", "--porcelain", "--ignored") == "" and git(repo, "rev-parse", "HEAD") == head


def test_export_ignore_hides_nothing(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    need_runtime()
    copy = (repo / QWEN8).read_text().replace('model_id: "Qwen/Qwen3-8B"', 'model_id: "Qwen/Hidden"')
    commit(repo, {".gitattributes": "models/Qwen/Hidden.yaml "
                                    "export-ignore\n/models/Qwen/Qwen3-8B.yaml export-ignore\n",
                  "models/Qwen/Hidden.yaml": copy, QWEN8: with_flags(repo, '"--max-num-seqs", "64"')})
    status, out, err = diff(capsys, repo, "HEAD~1", "HEAD")
    assert (status, err) == (1, "")
    assert "### Added `Qwen/Hidden` · `models/Qwen/Hidden.yaml`" in out
    assert "### `Qwen/Qwen3-8B` · `models/Qwen/Qwen3-8B.yaml`" in out and "`added --max-num-seqs 64`" in out
    assert "### Removed" not in out


def test_export_subst_rewrites_nothing(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    need_runtime()
    # git archive would expand the placeholder to `"]#`: the flags after it would vanish from the report
    flags = '"--served-model-name", "$Format:%x22]%x23$", "--enforce-eager"'
    commit(repo, {".gitattributes": "*.yaml export-subst\n", QWEN8: with_flags(repo, flags)})
    status, out, _ = diff(capsys, repo, "HEAD~1", "HEAD")
    assert status == 1
    assert "- Flags (" in out and "`added --enforce-eager`" in out
    assert "`added --served-model-name $Format:%x22]%x23$`" in out


def test_filters_never_run(repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    need_runtime()
    marker = tmp_path / "smudged"
    for driver in ("lfs", "hide"):
        git(repo, "config", f"filter.{driver}.smudge", f"touch {marker}; sed s/--max-num-seqs/--x/")
    commit(repo, {".gitattributes": "*.yaml filter=hide text eol=crlf ident\nmodels/** filter=lfs\n",
                  QWEN8: with_flags(repo, '"--max-num-seqs", "64"')})
    head = git(repo, "rev-parse", "HEAD")
    status, out, _ = diff(capsys, repo, "HEAD~1", "HEAD")
    assert status == 1 and "`added --max-num-seqs 64`" in out
    assert not marker.exists()
    assert unchanged(repo, head)


def test_links_stay_inside_and_large_files_are_not_read(repo: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    need_runtime()
    os.symlink("/etc/passwd", repo / "models/Qwen/Passwd.yaml")
    os.symlink("../../../outside.yaml", repo / "models/Qwen/Up.yaml")
    commit(repo, {})
    status, out, err = diff(capsys, repo, "HEAD~1", "HEAD")
    assert (status, err) == (0, "")  # two new warnings; nothing published changes
    assert out.endswith("Nothing published changes.\n\n### New warnings\n\n"
                        "- `models/Qwen/Passwd.yaml: warning: a link to a file outside the content "
                        "root, skipped`\n- `models/Qwen/Up.yaml: warning: not a regular file, skipped`\n")
    commit(repo, {"models/Qwen/Huge.yaml": b"#" * 3_000_001})
    status, out, _ = diff(capsys, repo, "HEAD~1", "HEAD")
    assert status == 1
    assert ("### HEAD does not build: 1 error(s)\n\n```text\n"
            "models/Qwen/Huge.yaml: file is too large: 3,000,001 bytes (the limit is "
            "2,000,000)\n```\n") in out


@pytest.mark.parametrize("revision", [
    "--help", "-x", "--output=OUT", "--upload-pack=touch OUT", "--end-of-options", "HEAD:taxonomy.yaml",
    "HEAD..HEAD", "HEAD@{0}", "main\n::error::pwned", "::error::pwned", "\x1b]8;;https://evil.example\x07",
    "main -- --output=OUT", "",
])
def test_revisions_git_would_misread_are_refused(repo: Path, tmp_path: Path, revision: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out_file = tmp_path / "OUT"
    revision = revision.replace("OUT", str(out_file))
    head = git(repo, "rev-parse", "HEAD")
    for argv in (("--", revision, "HEAD"), ("--", "HEAD", revision)):
        status, out, err = diff(capsys, repo, *argv)
        assert (status, out) == (2, ""), revision
        assert err == f"error: {revision!r} is not a revision (a branch, tag or commit id, with ~N or ^N)\n"
        assert err.count("\n") == 1 and log_commands(err) == [], err
    assert not out_file.exists() and unchanged(repo, head)


def test_links_inside_the_root_are_read_as_in_a_checkout(repo: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    need_runtime()
    copy = (repo / QWEN8).read_text().replace('model_id: "Qwen/Qwen3-8B"', 'model_id: "Qwen/Linked"')
    commit(repo, {"docs/linked.yaml": copy})
    # a file outside what the loader lists
    os.symlink("../../docs/linked.yaml", repo / "models/Qwen/Linked.yaml")
    commit(repo, {})
    status, out, _ = diff(capsys, repo, "HEAD~2", "HEAD")
    assert status == 1 and "### Added `Qwen/Linked` · `models/Qwen/Linked.yaml`" in out
    os.symlink("../docs", repo / "models/Docs")  # a folder link: never followed, an error as in a checkout
    commit(repo, {})
    status, out, _ = diff(capsys, repo, "HEAD~1", "HEAD")
    assert status == 1 and ("### HEAD does not build: 1 error(s)\n\n```text\nmodels/Docs: a symbolic "
                            "link to a folder is not followed: recipes must be real files "
                            "under models/\n```\n") in out


def test_a_revision_too_large_to_read_is_refused(repo: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(revision, "MAX_FILES", 10)
    status, out, err = diff(capsys, repo, "HEAD", "HEAD")
    count = len([p for p in repo.rglob("*.yaml") if ".git" not in p.parts])
    assert ((status, out, err)
            == (2, "", f"error: the content root holds {count} files the loader reads (the limit is 10)\n"))
    monkeypatch.setattr(revision, "MAX_FILES", 50_000)
    monkeypatch.setattr(revision, "MAX_TOTAL_BYTES", 1000)
    status, out, err = diff(capsys, repo, "HEAD", "HEAD")
    assert (status, out) == (2, "") and err.startswith("error: the content root's files hold ")
    assert err.endswith(" bytes (the limit is 1,000)\n")
