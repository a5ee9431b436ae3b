"""The ``local-exec`` provisioner through the ``strata`` command, compared with terraform 1.11 on the
same files: the text it prints, the ``-json`` messages, the state a failed provisioner leaves
(tainted), ``on_failure``, destroy-time provisioners on destroy and on replace, and the
configuration terraform refuses (and strata refuses: ``file`` and ``remote-exec``)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys

import orjson
import pytest

from tests.conftest import REPO, Result, Workdir, requires_terraform

APPLY = ("apply", "-auto-approve", "-no-color", "-parallelism=1")
_ID = re.compile(r"\[id=[0-9a-f-]+\]")
_ELAPSED = re.compile(r"after \d+s")
_DEPOSED = re.compile(r" \(deposed object \w+\)")  # strata's -json says which deposed object; terraform's does not


def _both(workdir: Workdir, *args: str) -> tuple[Result, Result]:
    """``args`` run by terraform, then (on a fresh state) by strata, in the same directory."""
    tf = workdir.terraform(*args)
    _forget_state(workdir)
    return tf, workdir.strata(*args)


def _forget_state(workdir: Workdir) -> None:
    for name in ("terraform.tfstate", "terraform.tfstate.backup"):
        (workdir.path / name).unlink(missing_ok=True)


def _lines(res: Result) -> dict[str, list[str]]:
    """The apply's progress lines, per resource instance, in order (ids and times masked): the
    order between instances is the walk's, the order within one is terraform's promise."""
    out: dict[str, list[str]] = {}
    for line in res.stdout.splitlines():
        m = re.match(r"^((?:module\.\S+\.)?[a-z_]+\.[\w-]+(?:\[[^\]]+\])?)(:| \()", line)
        if m is None or "Refreshing state" in line:
            continue
        out.setdefault(m.group(1), []).append(_ELAPSED.sub("after Ns", _ID.sub("[id=ID]", line)))
    return out


def _blank_lines(res: Result) -> int:
    body = res.stdout.split("Plan:", 1)[-1].split("Apply complete!", 1)[0]
    return body.count("\n\n")


def _events(res: Result) -> list[tuple[str, str, str, dict]]:
    """The provisioner and apply events: (address, type, message and level, hook without times
    and ids)."""
    out = []
    for e in res.events:
        if not e["type"].startswith(("provision_", "apply_")):
            continue
        hook = {k: v for k, v in e["hook"].items() if k not in ("elapsed_seconds", "id_value")}
        message = _DEPOSED.sub("", _ID.sub("[id=ID]", _ELAPSED.sub("after Ns", e["@message"])))
        out.append((hook["resource"]["addr"], e["type"], f'{e["@level"]}: {message}', hook))
    return out


def _per_resource(events: list[tuple[str, str, str, dict]]) -> dict[str, list[tuple[str, str, dict]]]:
    out: dict[str, list[tuple[str, str, dict]]] = {}
    for addr, *rest in events:
        out.setdefault(addr, []).append(tuple(rest))  # type: ignore[arg-type]
    return out


def _diagnostics(res: Result) -> list[tuple[str, str, str | None, int | None]]:
    return sorted((d["summary"], d["detail"], d.get("address"), (d.get("range") or {}).get("start", {}).get("line"))
                  for e in res.of_type("diagnostic") for d in [e["diagnostic"]])


def _statuses(workdir: Workdir) -> dict[str, str]:
    state = workdir.state()
    return {f'{r["type"]}.{r["name"]}' + (f"[{i['index_key']}]" if "index_key" in i else ""): i.get("status", "ready")
            for r in state["resources"] for i in r["instances"]}


CREATE = """
resource "terraform_data" "a" {
  input = "hello"

  provisioner "local-exec" {
    command = "echo hi ${self.input}; printf 'two  \\n\\n  three'"
  }
  provisioner "local-exec" {
    command = "echo ${self.output} again"
  }
}
"""


@requires_terraform
def test_create_time_provisioner_text_matches_terraform(workdir: Workdir) -> None:
    workdir.write(CREATE)
    tf, st = _both(workdir, *APPLY)
    assert tf.returncode == st.returncode == 0, st.stderr
    assert _lines(st) == _lines(tf)
    assert _lines(st)["terraform_data.a"][2:5] == [
        'terraform_data.a (local-exec): Executing: ["/bin/sh" "-c" "echo hi hello; printf \'two  \\n\\n  three\'"]',
        "terraform_data.a (local-exec): hi hello", "terraform_data.a (local-exec): two"]
    assert _blank_lines(st) == _blank_lines(tf) == 2  # the blank line of output, printed blank; the summary's


@requires_terraform
def test_provisioner_json_messages_match_terraform(workdir: Workdir) -> None:
    workdir.write(CREATE)
    tf, st = _both(workdir, "apply", "-auto-approve", "-json")
    assert tf.returncode == st.returncode == 0, st.stderr
    assert _per_resource(_events(st)) == _per_resource(_events(tf))
    types = [t for _a, t, _m, _h in _events(st)]
    assert types.count("provision_start") == types.count("provision_complete") == 2
    assert "" not in [h.get("output") for _a, t, _m, h in _events(st) if t == "provision_progress"]


FAILING = """
resource "terraform_data" "ok" {
  input = "fine"
}

resource "terraform_data" "b" {
  input = terraform_data.ok.output
  provisioner "local-exec" {
    command = "echo failing; exit 3"
  }
  provisioner "local-exec" {
    command = "echo never runs"
  }
}
"""


@requires_terraform
def test_failed_provisioner_taints_the_object_as_terraform(workdir: Workdir) -> None:
    workdir.write(FAILING)
    tf = workdir.terraform("apply", "-auto-approve", "-json")
    tf_states = _statuses(workdir)
    tf_plan = workdir.terraform("plan", "-no-color")
    _forget_state(workdir)
    st = workdir.strata("apply", "-auto-approve", "-json")
    assert tf.returncode == st.returncode == 1
    assert _statuses(workdir) == tf_states == {"terraform_data.ok": "ready", "terraform_data.b": "tainted"}
    assert _per_resource(_events(st)) == _per_resource(_events(tf))
    assert _diagnostics(st) == _diagnostics(tf) == [(
        "local-exec provisioner error", "Error running command 'echo failing; exit 3': exit status 3. Output: "
        "failing\n", "terraform_data.b", 8)]
    st_plan = workdir.strata("plan", "-no-color")
    assert "# terraform_data.b is tainted, so must be replaced" in st_plan.stdout
    assert "# terraform_data.b is tainted, so must be replaced" in tf_plan.stdout


@requires_terraform
def test_failed_provisioner_text_matches_terraform(workdir: Workdir) -> None:
    workdir.write(FAILING)
    tf, st = _both(workdir, *APPLY)
    assert tf.returncode == st.returncode == 1
    assert _lines(st) == _lines(tf)  # no "Creation errored" line: the error says it
    assert st.stderr == tf.stderr


CONTINUE = """
resource "terraform_data" "c" {
  input = "c"
  provisioner "local-exec" {
    command    = "echo trying; exit 1"
    on_failure = continue
  }
  provisioner "local-exec" {
    command = "echo after"
  }
}
"""


@requires_terraform
def test_on_failure_continue_goes_on_as_terraform(workdir: Workdir) -> None:
    workdir.write(CONTINUE)
    tf = workdir.terraform("apply", "-auto-approve", "-json")
    tf_states = _statuses(workdir)
    _forget_state(workdir)
    st = workdir.strata("apply", "-auto-approve", "-json")
    assert tf.returncode == st.returncode == 0, st.stdout
    assert _statuses(workdir) == tf_states == {"terraform_data.c": "ready"}
    assert _per_resource(_events(st)) == _per_resource(_events(tf))
    assert [t for _a, t, _m, _h in _events(st) if t in ("provision_errored", "provision_complete")] == \
        ["provision_errored", "provision_complete"]
    assert _diagnostics(st) == _diagnostics(tf) == []


DESTROYING = """
variable "trigger" {
  default = "one"
}

resource "terraform_data" "d" {
  count            = 2
  input            = "d${count.index}"
  triggers_replace = var.trigger
  provisioner "local-exec" {
    when    = destroy
    command = "echo bye ${self.input} ${count.index}"
  }
}
"""


@requires_terraform
def test_destroy_time_provisioners_run_on_destroy_as_terraform(workdir: Workdir) -> None:
    workdir.write(DESTROYING)
    workdir.terraform(*APPLY)
    tf = workdir.terraform("destroy", "-auto-approve", "-no-color", "-parallelism=1")
    _forget_state(workdir)
    workdir.strata(*APPLY, check=True)
    st = workdir.strata("destroy", "-auto-approve", "-no-color", "-parallelism=1")
    assert tf.returncode == st.returncode == 0, st.stderr
    assert _lines(st) == _lines(tf)
    assert _lines(st)["terraform_data.d[1]"] == [
        "terraform_data.d[1]: Destroying... [id=ID]", "terraform_data.d[1]: Provisioning with 'local-exec'...",
        'terraform_data.d[1] (local-exec): Executing: ["/bin/sh" "-c" "echo bye d1 1"]',
        "terraform_data.d[1] (local-exec): bye d1 1", "terraform_data.d[1]: Destruction complete after Ns"]


@requires_terraform
@pytest.mark.parametrize("cbd", [False, True], ids=["destroy-then-create", "create-before-destroy"])
def test_destroy_time_provisioners_on_replace_as_terraform(workdir: Workdir, cbd: bool) -> None:
    config = DESTROYING.replace("  count            = 2\n", "  count            = 1\n")
    if cbd:  # terraform runs none for the deposed object a create_before_destroy replaces
        config = config.replace("triggers_replace = var.trigger\n",
                                "triggers_replace = var.trigger\n  lifecycle {\n    create_before_destroy = true\n  }\n")
    workdir.write(config)
    workdir.terraform(*APPLY)
    tf = workdir.terraform(*APPLY, "-var", "trigger=two", "-json")
    _forget_state(workdir)
    workdir.strata(*APPLY, check=True)
    st = workdir.strata(*APPLY, "-var", "trigger=two", "-json")
    assert tf.returncode == st.returncode == 0, st.stderr
    assert _per_resource(_events(st)) == _per_resource(_events(tf))
    ran = [h.get("output") for _a, t, _m, h in _events(st) if t == "provision_progress"]
    assert ran == ([] if cbd else ['Executing: ["/bin/sh" "-c" "echo bye d0 0"]', "bye d0 0"])


@requires_terraform
def test_failed_destroy_provisioner_keeps_the_object_as_terraform(workdir: Workdir) -> None:
    workdir.write(DESTROYING.replace('command = "echo bye ${self.input} ${count.index}"',
                                     'command = "echo no; exit 2"'))
    workdir.terraform(*APPLY)
    tf = workdir.terraform("destroy", "-auto-approve", "-json")
    tf_states = _statuses(workdir)
    _forget_state(workdir)
    workdir.strata(*APPLY, check=True)
    st = workdir.strata("destroy", "-auto-approve", "-json")
    assert tf.returncode == st.returncode == 1
    assert _statuses(workdir) == tf_states == {"terraform_data.d[0]": "ready", "terraform_data.d[1]": "ready"}
    assert _per_resource(_events(st)) == _per_resource(_events(tf))
    assert _diagnostics(st) == _diagnostics(tf)


SETTINGS = """
variable "secret" {
  default   = "s3cret"
  sensitive = true
}

resource "terraform_data" "e" {
  input = "e"
  provisioner "local-exec" {
    command     = "echo $FOO $BAR $HOME; pwd | sed 's|.*/||'"
    environment = { FOO = "foo", BAR = self.input, HOME = "/elsewhere", GONE = null }
    working_dir = "sub"
  }
  provisioner "local-exec" {
    command     = "print('from', 'python')"
    interpreter = ["python3", "-c"]
  }
  provisioner "local-exec" {
    quiet   = true
    command = "echo quietly"
  }
  provisioner "local-exec" {
    command = "echo ${var.secret}"
  }
}
"""


@requires_terraform
def test_environment_interpreter_working_dir_quiet_and_sensitive_as_terraform(workdir: Workdir) -> None:
    workdir.write(SETTINGS)
    (workdir.path / "sub").mkdir()
    tf, st = _both(workdir, *APPLY)
    assert tf.returncode == st.returncode == 0, st.stderr
    assert _lines(st) == _lines(tf)
    shown = "\n".join(_lines(st)["terraform_data.e"])
    assert "foo e /elsewhere" in shown and "(local-exec): sub" in shown and "from python" in shown
    assert "local-exec: Executing: Suppressed by quiet=true" in shown and "quietly" in shown
    assert "s3cret" not in st.stdout and shown.count("(output suppressed due to sensitive value in config)") == 2


FAILURES = """
resource "terraform_data" "a" {
  provisioner "local-exec" {
    command     = "echo x"
    interpreter = ["no-such-program-here", "-c"]
  }
}
resource "terraform_data" "b" {
  provisioner "local-exec" {
    command     = "echo x"
    interpreter = ["/no/such/program", "-c"]
  }
}
resource "terraform_data" "c" {
  provisioner "local-exec" {
    command     = "echo x"
    working_dir = "nosuchdir"
  }
}
resource "terraform_data" "d" {
  provisioner "local-exec" {
    command = ""
  }
}
resource "terraform_data" "e" {
  provisioner "local-exec" {
    command = "kill -TERM $$"
  }
}
"""


@requires_terraform
def test_command_failures_are_worded_as_terraform(workdir: Workdir) -> None:
    workdir.write(FAILURES)
    tf, st = _both(workdir, "apply", "-auto-approve", "-json")
    assert tf.returncode == st.returncode == 1
    assert _diagnostics(st) == _diagnostics(tf)
    assert len(_diagnostics(st)) == 5


@requires_terraform
def test_destroy_provisioner_references_are_refused_as_terraform(workdir: Workdir) -> None:
    workdir.write("""
    variable "v" {
      default = "x"
    }
    resource "terraform_data" "a" {
      provisioner "local-exec" {
        when       = destroy
        command    = "echo ${var.v} ${self.id}"
      }
      provisioner "local-exec" {
        when       = later
        on_failure = maybe
        command    = "echo"
      }
    }
    """)
    workdir.terraform("init", "-input=false")  # it refuses the configuration, and validate needs no plugin
    tf, st = _both(workdir, "validate", "-json")
    assert tf.returncode == st.returncode == 1
    got = orjson.loads(st.stdout)["diagnostics"]
    want = orjson.loads(tf.stdout)["diagnostics"]
    assert [(d["summary"], d["detail"], d["range"]["start"]["line"]) for d in got] == \
        [(d["summary"], d["detail"], d["range"]["start"]["line"]) for d in want]


@requires_terraform
@pytest.mark.parametrize("body", [
    'provisioner "local-exec" {\n    commandx = "x"\n  }',
    'provisioner "local-exec" {\n    command     = "x"\n    interpreter = "sh"\n  }\n'
    '  provisioner "local-exec" {\n    quiet = "maybe"\n  }',
    'connection {\n    hostt = "h"\n  }\n  provisioner "local-exec" {\n    command = "x"\n  }',
    'provisioner "local-exec" {\n    commnd      = "x"\n    command     = "y"\n    intrepreter = ["a"]\n  }',
    'provisioner "local-exec" {\n    command = "x"\n    connection {\n      host  = "h"\n'
    '      agnet = true\n    }\n  }',
    'provisioner "local-exec" {\n    command = "echo ${self.inptu}"\n  }',
], ids=["unknown-argument", "constant-of-wrong-type", "resource-connection", "suggestions-not-given",
        "provisioner-connection", "self-attribute"])
def test_provisioner_arguments_are_checked_as_terraform(workdir: Workdir, body: str) -> None:
    workdir.write(f'resource "terraform_data" "a" {{\n  {body}\n}}\n')
    workdir.terraform("init", "-input=false")
    tf, st = _both(workdir, "validate", "-json")
    assert tf.returncode == st.returncode == 1
    got = [(d["summary"], d["detail"], d["range"]["start"]["line"]) for d in orjson.loads(st.stdout)["diagnostics"]]
    # sorted: terraform's order among one block's arguments is its map's, which varies from run to run
    assert sorted(got) == sorted((d["summary"], d["detail"], d["range"]["start"]["line"])
                                 for d in orjson.loads(tf.stdout)["diagnostics"])


@requires_terraform
def test_create_time_provisioner_references_are_dependencies_as_terraform(workdir: Workdir) -> None:
    workdir.write("""
    resource "terraform_data" "first" {
      input = "1"
    }
    resource "terraform_data" "second" {
      connection {
        host = "unused"
      }
      provisioner "local-exec" {
        command = "echo ${terraform_data.first.output}"
      }
    }
    """)
    workdir.terraform(*APPLY)
    want = {r["name"]: r["instances"][0].get("dependencies", []) for r in workdir.state()["resources"]}
    _forget_state(workdir)
    st = workdir.strata(*APPLY, check=True)
    got = {r["name"]: r["instances"][0].get("dependencies", []) for r in workdir.state()["resources"]}
    assert got == want == {"first": [], "second": ["terraform_data.first"]}
    assert "terraform_data.second (local-exec): 1" in st.stdout


@pytest.mark.parametrize("kind", ["file", "remote-exec"])
def test_file_and_remote_exec_are_refused_where_written(workdir: Workdir, kind: str) -> None:
    workdir.write(f"""
    resource "terraform_data" "a" {{
      connection {{
        host = "example.com"
      }}

      provisioner "{kind}" {{
        destination = "/tmp/x"
      }}
    }}
    """)
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 1
    assert f'Error: Unsupported provisioner "{kind}"' in res.stderr
    assert "on main.tf line 7, in resource \"terraform_data\" \"a\":" in res.stderr
    assert 'strata runs only the "local-exec" provisioner' in res.stderr


@pytest.mark.usefixtures("each_event_loop")
def test_interrupt_kills_a_running_provisioner_and_taints(workdir: Workdir) -> None:
    """The first Ctrl-C stops the command in flight, as terraform's provisioner Stop does (SIGKILL);
    the object it was provisioning is tainted, and nothing new starts."""
    workdir.write("""
    resource "terraform_data" "slow" {
      provisioner "local-exec" {
        command = "echo started; exec sleep 60"
      }
    }
    resource "terraform_data" "after" {
      input = terraform_data.slow.id
    }
    """)
    env = dict(os.environ, PYTHONPATH=str(REPO))  # STRATA_ASYNC_BACKEND: each event loop's
    proc = subprocess.Popen([sys.executable, "-m", "engine", "apply", "-auto-approve", "-json"], cwd=workdir.path,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    events = []
    assert proc.stdout is not None and proc.stderr is not None
    try:
        for line in proc.stdout:
            event = orjson.loads(line)
            events.append(event)
            if event["type"] == "provision_progress" and event["hook"]["output"] == "started":
                proc.send_signal(signal.SIGINT)
    finally:
        code = proc.wait(timeout=60)
    assert code != 0, proc.stderr.read().decode()
    assert _statuses(workdir) == {"terraform_data.slow": "tainted"}
    details = [e["diagnostic"]["detail"] for e in events if e["type"] == "diagnostic"]
    assert details == ["Error running command 'echo started; exec sleep 60': signal: killed. Output: started\n"]
    assert "provision_errored" in [e["type"] for e in events]


@requires_terraform
def test_removed_block_destroy_provisioners_run_as_terraform(workdir: Workdir) -> None:
    """A resource block deleted takes its provisioners with it; a ``removed`` block may bring
    destroy-time ones (and a connection block) for the objects it destroys."""
    workdir.write('resource "terraform_data" "a" {\n  count = 2\n  input = "a${count.index}"\n}\n')
    removed = """
    removed {
      from = terraform_data.a
      lifecycle {
        destroy = true
      }
      connection {
        host = "unused"
      }
      provisioner "local-exec" {
        when    = destroy
        command = "echo removing ${self.input} ${count.index}"
      }
    }
    """
    workdir.terraform(*APPLY)
    workdir.write(removed)
    tf = workdir.terraform(*APPLY)
    _forget_state(workdir)
    workdir.write('resource "terraform_data" "a" {\n  count = 2\n  input = "a${count.index}"\n}\n')
    workdir.strata(*APPLY, check=True)
    workdir.write(removed)
    st = workdir.strata(*APPLY)
    assert tf.returncode == st.returncode == 0, st.stderr
    assert _lines(st) == _lines(tf)
    assert "terraform_data.a[1] (local-exec): removing a1 1" in st.stdout


@requires_terraform
def test_removed_block_takes_only_destroy_time_provisioners_as_terraform(workdir: Workdir) -> None:
    workdir.write("""
    removed {
      from = terraform_data.a
      provisioner "local-exec" {
        command = "echo"
      }
    }
    """)
    workdir.terraform("init", "-input=false")
    tf, st = _both(workdir, "validate", "-json")
    assert tf.returncode == st.returncode == 1
    assert [(d["summary"], d["detail"]) for d in orjson.loads(st.stdout)["diagnostics"]] == \
        [(d["summary"], d["detail"]) for d in orjson.loads(tf.stdout)["diagnostics"]]


@requires_terraform
def test_provisioners_in_module_instances_as_terraform(workdir: Workdir) -> None:
    (workdir.path / "child").mkdir()
    workdir.write("""
    variable "name" {}
    resource "terraform_data" "r" {
      for_each = { k = var.name }
      input    = each.value
      provisioner "local-exec" {
        command = "echo ${each.key} ${each.value} ${self.input} ${path.module} ${var.name}"
      }
      provisioner "local-exec" {
        when    = destroy
        command = "echo bye ${each.key} ${self.input} ${path.module}"
      }
    }
    """, "child/main.tf")
    workdir.write('module "c" {\n  source   = "./child"\n  for_each = toset(["x", "y"])\n  name     = each.key\n}\n')
    tf_apply = workdir.terraform(*APPLY)
    tf_destroy = workdir.terraform("destroy", "-auto-approve", "-no-color", "-parallelism=1")
    _forget_state(workdir)
    st_apply = workdir.strata(*APPLY)
    st_destroy = workdir.strata("destroy", "-auto-approve", "-no-color", "-parallelism=1")
    assert (st_apply.returncode, st_destroy.returncode) == (tf_apply.returncode, tf_destroy.returncode) == (0, 0)
    assert _lines(st_apply) == _lines(tf_apply)
    assert _lines(st_destroy) == _lines(tf_destroy)
    assert 'module.c["y"].terraform_data.r["k"] (local-exec): bye k y child' in st_destroy.stdout


@requires_terraform
def test_ephemeral_configuration_suppresses_output_as_terraform(workdir: Workdir) -> None:
    workdir.write("""
    variable "secret" {
      default   = "s3cret"
      sensitive = true
    }
    locals {
      eph = terraform.applying
    }
    resource "terraform_data" "a" {
      provisioner "local-exec" {
        command = "echo ${local.eph}"
      }
      provisioner "local-exec" {
        command = "echo ${local.eph} ${var.secret}"
      }
    }
    """)
    tf, st = _both(workdir, *APPLY)
    assert tf.returncode == st.returncode == 0, st.stderr
    assert _lines(st) == _lines(tf)
    assert "terraform_data.a (local-exec): (output suppressed due to sensitive, ephemeral value in config)" in st.stdout


@requires_terraform
def test_tainted_object_runs_no_destroy_provisioner_as_terraform(workdir: Workdir) -> None:
    workdir.write("""
    resource "terraform_data" "t" {
      provisioner "local-exec" {
        command = "exit 1"
      }
      provisioner "local-exec" {
        when    = destroy
        command = "echo destroying"
      }
    }
    """)
    workdir.terraform(*APPLY)
    tf = workdir.terraform("destroy", "-auto-approve", "-no-color")
    _forget_state(workdir)
    assert workdir.strata(*APPLY).returncode == 1
    assert _statuses(workdir) == {"terraform_data.t": "tainted"}
    st = workdir.strata("destroy", "-auto-approve", "-no-color")
    assert tf.returncode == st.returncode == 0, st.stderr
    assert _lines(st) == _lines(tf)
    assert "destroying" not in st.stdout


@requires_terraform
def test_postconditions_are_checked_after_a_failed_provisioner_as_terraform(workdir: Workdir) -> None:
    workdir.write("""
    resource "terraform_data" "a" {
      lifecycle {
        postcondition {
          condition     = self.id == "never"
          error_message = "Not that id."
        }
      }
      provisioner "local-exec" {
        command = "exit 1"
      }
    }
    """)
    tf, st = _both(workdir, "apply", "-auto-approve", "-json")
    assert tf.returncode == st.returncode == 1
    assert [s for s, *_ in _diagnostics(st)] == [s for s, *_ in _diagnostics(tf)] == [
        "Resource postcondition failed", "local-exec provisioner error"]


@requires_terraform
def test_provisioners_in_json_syntax_as_terraform(workdir: Workdir) -> None:
    workdir.write("""{
      "resource": {"terraform_data": {"a": {
        "input": "json",
        "provisioner": [
          {"local-exec": {"command": "echo ${self.input}"}},
          {"local-exec": {"when": "destroy", "command": "echo bye ${self.input}", "on_failure": "continue",
                          "connection": {"host": "unused"}}}
        ]
      }}}
    }""", "main.tf.json")
    tf_apply = workdir.terraform(*APPLY)
    tf_destroy = workdir.terraform("destroy", "-auto-approve", "-no-color")
    _forget_state(workdir)
    st_apply = workdir.strata(*APPLY)
    st_destroy = workdir.strata("destroy", "-auto-approve", "-no-color")
    assert (st_apply.returncode, st_destroy.returncode) == (tf_apply.returncode, tf_destroy.returncode) == (0, 0)
    assert _lines(st_apply) == _lines(tf_apply)
    assert _lines(st_destroy) == _lines(tf_destroy)
    assert "terraform_data.a (local-exec): bye json" in st_destroy.stdout
