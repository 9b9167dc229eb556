"""Shared helpers of the example operator's PyPTO-Pro workers.

Each worker is started by the plain-script agent host as
    <role> --task <task.json> --result <result.json>
(examples/hosts/script/host.sh with TUNECTL_WORKERS pointing here), does
its role's work in the operator directory and writes one result.  The
workers never touch .orchestrator_state.json: tunectl reads the result,
decides, and writes the state.

Environment (set by `tunectl demo --pipeline pypto`, or by hand):
    TUNECTL                the tunectl binary
    TUNECTL_PYPTO_EXAMPLE  this example's directory (templates, kernels)
    PYTHONPATH             must reach examples/pypto-op/shim (pypto_pro)
"""
import json
import os
import shutil
import subprocess
import sys

TUNECTL = os.environ.get("TUNECTL", "tunectl")
RESULT_SCHEMA = "tunectl-pypto-result-v1"
HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.environ.get("TUNECTL_PYPTO_EXAMPLE", os.path.dirname(HERE))
PYTHON = sys.executable or "python3"


def log(msg):
    print("[%s] %s" % (os.path.basename(sys.argv[0]), msg), file=sys.stderr,
          flush=True)


def read_json(path):
    with open(path, "rb") as handle:
        return json.loads(handle.read().decode("utf-8"))


def write_json(path, doc):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, path)


class Worker:
    """One step: the task, the operator directory, the result."""

    def __init__(self):
        args = sys.argv[1:]
        opts = dict(zip(args[0::2], args[1::2]))
        if "--task" not in opts or "--result" not in opts:
            print("usage: %s --task TASK --result RESULT" % sys.argv[0],
                  file=sys.stderr)
            sys.exit(2)
        self.task_path = opts["--task"]
        self.result_path = opts["--result"]
        self.task = read_json(self.task_path)
        self.step = self.task["step"]
        self.op_dir = self.task["op_dir"]
        self.op = self.task["operator"]
        self.inputs = self.task.get("inputs") or {}
        self.feedback = self.task.get("feedback")
        self.artifacts = []
        # The protocol: check the task is current before anything else.
        self.tunectl("pypto", "check", "task", "--task", self.task_path)

    def path(self, rel):
        return os.path.join(self.op_dir, rel)

    def tunectl(self, *args, check=True):
        """Run tunectl; return (exit code, parsed stdout or None, stderr)."""
        proc = subprocess.run([TUNECTL] + list(args), capture_output=True,
                              text=True, check=False)
        out = None
        if proc.stdout.strip():
            try:
                out = json.loads(proc.stdout)
            except ValueError:
                out = None
        if check and proc.returncode != 0:
            raise RuntimeError("tunectl %s failed (exit %d): %s%s" % (
                " ".join(args[:3]), proc.returncode, proc.stderr[-1500:],
                proc.stdout[-500:]))
        return proc.returncode, out, proc.stderr

    def install(self, name, dest=None):
        """Copy a template into the operator directory."""
        dest = dest or name
        shutil.copyfile(os.path.join(EXAMPLE, "templates", name),
                        self.path(dest))
        self.artifacts.append(dest)

    def run_python(self, *args):
        proc = subprocess.run([PYTHON] + list(args), capture_output=True,
                              text=True, cwd=self.op_dir, check=False)
        return proc.returncode, proc.stdout + proc.stderr

    def finish(self, outcome, summary, evidence="", **extra):
        result = {
            "schema_version": RESULT_SCHEMA,
            "step_id": self.step["step_id"],
            "role": self.step["role"],
            "mode": self.step.get("mode"),
            "module": self.step.get("module"),
            "state_sha256": self.task["state_sha256"],
            "outcome": outcome,
            "summary": summary,
            "evidence": evidence,
            "artifacts": sorted(set(self.artifacts)),
        }
        result.update(extra)
        write_json(self.result_path, result)
        log("%s: %s" % (outcome, summary))
        sys.exit(0)
