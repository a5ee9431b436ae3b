"""``strata fmt`` from the outside: what it lists, writes, prints and exits with, as ``terraform fmt``."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.conftest import Workdir, requires_terraform

UNFORMATTED = 'resource "null_resource" "x" {\n  triggers = {\n    a = "1"\n    bbb="2"\n  }\n}\n'
FORMATTED = 'resource "null_resource" "x" {\n  triggers = {\n    a   = "1"\n    bbb = "2"\n  }\n}\n'


def test_fmt_rewrites_and_lists_changed_files(workdir: Workdir) -> None:
    workdir.write(UNFORMATTED)
    workdir.write(FORMATTED, "ok.tf")
    r = workdir.strata("fmt")
    assert (r.returncode, r.stdout) == (0, "main.tf\n")
    assert (workdir.path / "main.tf").read_text() == FORMATTED


def test_fmt_check_exits_3_and_changes_nothing(workdir: Workdir) -> None:
    workdir.write(UNFORMATTED)
    r = workdir.strata("fmt", "-check")
    assert (r.returncode, r.stdout) == (3, "main.tf\n")
    assert (workdir.path / "main.tf").read_text() == UNFORMATTED
    workdir.write(FORMATTED)
    assert workdir.strata("fmt", "-check").returncode == 0


def test_fmt_diff_prints_a_unified_diff(workdir: Workdir) -> None:
    workdir.write(UNFORMATTED)
    r = workdir.strata("fmt", "-write=false", "-list=false", "-diff")
    assert r.returncode == 0
    assert r.stdout.startswith("--- old/main.tf\n+++ new/main.tf\n@@ ")
    assert '\n-    bbb="2"\n' in r.stdout
    assert '\n+    bbb = "2"\n' in r.stdout
    assert (workdir.path / "main.tf").read_text() == UNFORMATTED


def test_fmt_recursive_reaches_subdirectories(workdir: Workdir) -> None:
    (workdir.path / "mod").mkdir()
    workdir.write("x=1\n", "mod/m.tf")
    workdir.write("v=1\n", "prod.tfvars")
    assert workdir.strata("fmt", "-check").stdout == "prod.tfvars\n"
    assert workdir.strata("fmt", "-check", "-recursive").stdout == "mod/m.tf\nprod.tfvars\n"


def test_fmt_reads_standard_input(workdir: Workdir) -> None:
    r = workdir.strata("fmt", "-", input=UNFORMATTED)
    assert (r.returncode, r.stdout) == (0, FORMATTED)


def test_fmt_syntax_error_is_a_diagnostic_with_the_line(workdir: Workdir) -> None:
    workdir.write('resource "null_resource" "x" {\n  triggers = {}\n')
    workdir.write("x=1\n", "other.tf")
    r = workdir.strata("fmt", "-no-color")
    assert r.returncode == 2
    assert "Error: Unclosed configuration block" in r.stderr
    assert "on main.tf line 1" in r.stderr
    assert "Traceback" not in r.stderr
    assert (workdir.path / "other.tf").read_text() == "x = 1\n"


def test_fmt_missing_file_is_an_error(workdir: Workdir) -> None:
    r = workdir.strata("fmt", "-no-color", "nope.tf")
    assert r.returncode == 2
    assert "No file or directory at nope.tf" in r.stderr


def test_fmt_option_elsewhere_is_refused(workdir: Workdir) -> None:
    workdir.write(FORMATTED)
    assert workdir.strata("plan", "-check").returncode == 1


@requires_terraform
def test_fmt_same_listing_diff_and_status_as_terraform(workdir: Workdir, tmp_path: Path) -> None:
    workdir.write(UNFORMATTED)
    workdir.write("v=1\n", "prod.tfvars")
    twin = tmp_path / "twin"
    shutil.copytree(workdir.path, twin)
    ours = workdir.strata("fmt", "-check", "-diff")
    env = dict(os.environ, TF_CLI_CONFIG_FILE="/dev/null", CHECKPOINT_DISABLE="1")
    theirs = subprocess.run(["terraform", "fmt", "-check", "-diff"], cwd=twin, env=env, capture_output=True, text=True)
    assert (ours.returncode, ours.stdout) == (theirs.returncode, theirs.stdout)


def test_fmt_stdin_output_ends_with_newline_but_files_get_none(workdir: Workdir) -> None:
    assert workdir.strata("fmt", "-", input="a=1").stdout == "a = 1\n"
    (workdir.path / "n.tf").write_text("a=1")
    workdir.strata("fmt", check=True)
    assert (workdir.path / "n.tf").read_text() == "a = 1"


def test_fmt_refuses_other_files_and_skips_hidden_ones(workdir: Workdir) -> None:
    workdir.write("a=1\n", "notes.txt")
    r = workdir.strata("fmt", "-no-color", "notes.txt")
    assert r.returncode == 2
    assert "Only .tf, .tfvars, and .tftest.hcl files can be processed" in r.stderr
    (workdir.path / ".terraform").mkdir()
    workdir.write("a=1\n", ".terraform/x.tf")
    workdir.write("a=1\n", ".hidden.tf")
    assert workdir.strata("fmt", "-check", "-recursive").returncode == 0


def test_fmt_stdin_check_prints_nothing_and_diff_prints_only_the_diff(workdir: Workdir) -> None:
    r = workdir.strata("fmt", "-check", "-diff", "-", input="a=1\n")
    assert (r.returncode, r.stdout) == (3, "")
    r = workdir.strata("fmt", "-diff", "-", input="a=1\n")
    assert (r.returncode, r.stdout) == (0, "--- old/<stdin>\n+++ new/<stdin>\n@@ -1 +1 @@\n-a=1\n+a = 1\n")


@requires_terraform
def test_fmt_diff_of_the_whole_corpus_is_terraforms(workdir: Workdir, tmp_path: Path) -> None:
    corpus = Path(__file__).parents[1] / "engine" / "fmt_corpus"
    twin = tmp_path / "twin"
    twin.mkdir()
    for p in corpus.iterdir():
        if p.suffix in (".tf", ".tfvars"):
            shutil.copy(p, workdir.path / p.name)
            shutil.copy(p, twin / p.name)
    ours = workdir.strata("fmt", "-check", "-diff")
    env = dict(os.environ, TF_CLI_CONFIG_FILE="/dev/null", CHECKPOINT_DISABLE="1")
    theirs = subprocess.run(["terraform", "fmt", "-check", "-diff"], cwd=twin, env=env, capture_output=True,
                            text=True)
    assert (ours.returncode, ours.stdout) == (theirs.returncode, theirs.stdout)
