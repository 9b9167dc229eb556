"""Shared helpers of the generic phase workers `tunectl tune` runs.

The workers tune any program a workload spec describes (tune.yaml,
docs/workload-spec.md); nothing here knows about one program.  Each phase
worker is started by the plain-script host beside it (host.sh) as
    <phase> --task <phase-task.json> --result <phase-result.json>
does its phase's work and writes one phase result.  Nothing here seals
anything: the controller validates, recomputes the gates and seals.

What the workers read, all set by `tunectl tune`:
    TUNECTL            the tunectl binary
    TUNECTL_TUNE_SPEC  the spec (absolute)
    TUNECTL_TUNE_PLAN  the plan frozen when the session started
                       (<run dir>/tune/plan.json, tunectl-tune-plan-v1)
    TUNECTL_LEASE_ROOT the lease root of the devices
    TUNECTL_DEVICE_IDS the devices to lease ("0": the CPU)

A configuration is a small JSON file {"variant": NAME, "params": {NAME:
VALUE}}; `tunectl tune SPEC --prepare CONFIG --cache DIR` checks it against
the spec, builds it once (the build cache) and expands its commands.
Every run goes through the phase entrypoint (`tunectl execute-phase
--tool run_benchmark.py`, i.e. `tunectl bench run` under the device lease)
and every decision through the gates (`analyze_performance.py`, i.e.
`tunectl gate analyze`), exactly as the demo's workers do.
"""
import hashlib
import json
import os
import subprocess
import sys

TUNECTL = os.environ.get("TUNECTL", "tunectl")
SPEC = os.environ.get("TUNECTL_TUNE_SPEC", "")
RESULT_SCHEMA = "superkernel-auto-tune-phase-result-v1"
DEVICE_IDS = [int(i) for i in os.environ.get("TUNECTL_DEVICE_IDS", "0").split(",")]


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def write_json(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


PLAN = read_json(os.environ["TUNECTL_TUNE_PLAN"]) if os.environ.get("TUNECTL_TUNE_PLAN") else {}
GATE = PLAN.get("gate_policy", {})
METRIC = PLAN.get("metric", {})
TIMEOUTS = PLAN.get("commands", {}).get("timeout_seconds", {})
STABILITY = GATE.get("stability", {})
# metric.direction higher: the run sets log 1/value (bench run --metric-higher).
HIGHER = METRIC.get("direction") == "higher"
SERIES_ATTEMPTS = STABILITY.get("series_attempts", 3)
MAX_SPREAD_PCT = STABILITY.get("max_spread_pct", 5.0)
# How long one tool may hold the lease: a hanging run is ended by its own
# run timeout long before this.
TOOL_TIMEOUT = max(3600, int(PLAN.get("estimate", {}).get("seconds_at_most", 0)) + 600)
# The policy intake freezes (intake/freeze.json) and every gate applies.
GATE_POLICY = {k: GATE.get(k) for k in ("min_improvement_pct", "allow_p90_regression_pct",
                                        "allow_stddev_regression_pct")}


def log(msg):
    print("[%s] %s" % (os.path.basename(sys.argv[0]), msg), file=sys.stderr, flush=True)


class ToolFailed(RuntimeError):
    """A tool did not pass."""


class RunFailed(RuntimeError):
    """A timed run of the workload failed: the message names its run
    directory.  The worker exits without a result, so nothing is sealed
    and the session resumes at this phase."""


class BuildFailed(RuntimeError):
    """A configuration could not be built (the message names the log)."""


def config_text(cfg):
    """variant and parameters of a configuration, for people."""
    params = " ".join("%s=%s" % kv for kv in sorted(cfg.get("params", {}).items()))
    return ("%s %s" % (cfg.get("variant") or "", params)).strip()


class Worker:
    """One phase attempt: the task, the artifact root, and the result."""

    def __init__(self):
        args = sys.argv[1:]
        opts = dict(zip(args[0::2], args[1::2]))
        if "--task" not in opts or "--result" not in opts:
            sys.exit("usage: %s --task TASK --result RESULT" % sys.argv[0])
        self.task_path = opts["--task"]
        self.result_path = opts["--result"]
        self.task = read_json(self.task_path)
        self.step = self.task["step"]
        self.root = self.task["artifact_root"]
        self.session = read_json(self.task["session_path"])
        self.consumed, self.produced, self.decisions, self.blockers = [], [], [], []
        self.warmup = GATE.get("warmup_samples", 0)
        self.ranks = PLAN.get("ranks", 1)
        self.exec_dir = "phase-executions/%s" % self.step["step_id"]
        self.tools = self.plan()
        # gate.order as intake froze it; a session frozen before the key
        # existed measured its series one after the other
        self.interleaved = self.frozen_gate().get("order") == "interleaved"
        self.interleave_lines = []

    # --- paths -----------------------------------------------------------
    def path(self, rel):
        return os.path.join(self.root, rel)

    def rel(self, path):
        return os.path.relpath(path, self.root)

    def produce(self, rel):
        if rel not in self.produced:
            self.produced.append(rel)
        return self.path(rel)

    def consume(self, rel):
        if rel not in self.consumed:
            self.consumed.append(rel)
        return self.path(rel)

    def handoff(self, step_id):
        for h in self.task["consumed_handoffs"]:
            if h["step_id"] == step_id:
                return read_json(self.path(h["result_path"]))
        return None

    def handoff_status(self, step_id):
        for h in self.task["consumed_handoffs"]:
            if h["step_id"] == step_id:
                return h["outcome_status"]
        return None

    # --- the phase entrypoint ---------------------------------------------
    def entrypoint(self, *args):
        return subprocess.run([TUNECTL, "execute-phase", "--task", self.task_path,
                               "--phase", self.step["phase"]] + [str(a) for a in args],
                              capture_output=True, text=True)

    def plan(self):
        """The entrypoint validates the task and names the phase's tools."""
        proc = self.entrypoint()
        if proc.returncode != 0:
            sys.exit("execute-phase refused the task: %s %s" % (proc.stdout.strip(), proc.stderr.strip()))
        return [os.path.basename(c["argv"][0]) for c in json.loads(proc.stdout)["commands"]]

    def tool(self, name, label, *args):
        """One of this phase's tools under the device lease; its manifest."""
        manifest = self.free_path("%s/%s" % (self.exec_dir, label))
        proc = self.entrypoint("--tool", name, "--lease-root", lease_root(), *device_id_args(),
                               "--timeout-seconds", TOOL_TIMEOUT, "--manifest-out", manifest, "--", *args)
        doc = json.loads(proc.stdout) if proc.stdout.strip().startswith("{") else {}
        if doc.get("status") != "passed":
            raise ToolFailed("%s (%s) did not pass: %s" % (name, label, tool_output(doc, "stderr")[-600:]
                                                            or proc.stdout.strip()[-600:] or proc.stderr[-600:]))
        return doc

    def free_path(self, rel):
        n, path = 1, self.path(rel + ".json")
        while os.path.exists(path):
            n += 1
            path = self.path("%s.%d.json" % (rel, n))
        return path

    # --- configurations ---------------------------------------------------
    def config(self, rel, variant, params):
        """Write configuration rel (an artifact of this phase)."""
        cfg = {"schema_version": "tunectl-tune-config-v1", "variant": variant, "params": dict(params)}
        write_json(self.produce(rel), cfg)
        return rel

    def prepare(self, config_rel):
        """The configuration checked, built once and its commands expanded
        (tunectl tune --prepare); {run_dir} is the run's directory."""
        proc = subprocess.run([TUNECTL, "tune", SPEC, "--prepare", self.path(config_rel),
                               "--cache", self.path("tune/builds"), "--run-dir", "${TUNECTL_RUN_DIR}"],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise BuildFailed(proc.stderr.strip().replace("tunectl: ", "", 1) or "tunectl tune --prepare failed")
        return json.loads(proc.stdout)

    # --- measuring --------------------------------------------------------------
    def fresh_dir(self, rel_dir):
        out = self.produce(rel_dir)
        if os.path.exists(out):
            # Left by an interrupted attempt: kept for the record.
            n = 1
            while os.path.exists("%s.interrupted-%d" % (out, n)):
                n += 1
            os.rename(out, "%s.interrupted-%d" % (out, n))
        return out

    def bench(self, config_rel, rel_dir, runs, warmup_runs=None, command="run", archive=False):
        """`runs` clean processes of the configuration's run command into
        the run set rel_dir, after the spec's warm-up runs.  archive: each
        run first archives its configuration as config.yaml in its run
        directory (Stage A's screening gate reads it)."""
        prepared = self.prepare(config_rel)
        script = prepared[command]
        if archive:
            script = archive_script(read_json(self.path(config_rel))) + script
        out = self.fresh_dir(rel_dir)
        if warmup_runs is None:
            warmup_runs = GATE.get("warmup_runs", 0)
        args = ["--runs", runs, "--warmup-runs", warmup_runs, "--ranks", self.ranks,
                "--warmup-samples", self.warmup, "--out", out]
        if TIMEOUTS.get(command):
            args += ["--timeout-seconds", TIMEOUTS[command]]
        args += metric_args()
        try:
            self.tool("run_benchmark.py", "bench-" + rel_dir.replace("/", "-"),
                      *args, "--", "/bin/sh", "-c", script)
        except ToolFailed as e:
            raise RunFailed(failed_run_text(out, e)) from None
        check_metric_source(out)
        return out

    def bench_interleaved(self, sides, runs, archive=False):
        """`runs` runs of each side [(config rel, run set rel)], one of
        each in turn (A B A B ..., A B C A B C ...; run_benchmark.py
        --interleaved, i.e. bench ab), after the spec's warm-up runs taken
        in the same turns.  Each side gets its own run set, which records
        the order.  archive: as bench(), for every side but the first (the
        baseline)."""
        scripts, outs = [], []
        for i, (config_rel, rel_dir) in enumerate(sides):
            script = self.prepare(config_rel)["run"]
            if archive and i > 0:
                script = archive_script(read_json(self.path(config_rel))) + script
            scripts.append(script)
        for _, rel_dir in sides:
            outs.append(self.fresh_dir(rel_dir))
        args = ["--interleaved", "--runs", runs, "--warmup-runs", GATE.get("warmup_runs", 0),
                "--ranks", self.ranks, "--warmup-samples", self.warmup, "--out-a", outs[0]]
        for out in outs[1:]:
            args += ["--out-b", out]
        if TIMEOUTS.get("run"):
            args += ["--timeout-seconds", TIMEOUTS["run"]]
        args += metric_args() + ["--"]
        for i, script in enumerate(scripts):
            args += (["---"] if i > 0 else []) + ["/bin/sh", "-c", script]
        try:
            self.tool("run_benchmark.py", "bench-" + sides[-1][1].replace("/", "-") + "-interleaved", *args)
        except ToolFailed as e:
            failed = [o for o in outs if failed_run_text(o, None).startswith("run ")]
            raise RunFailed(failed_run_text(failed[0] if failed else outs[0], e)) from None
        for out in outs:
            check_metric_source(out)
        return outs

    def interleaved_series(self, sides, archive=False, limit=None):
        """A comparison's series, baseline first, taken interleaved and
        measured again while any of them spreads more than limit %
        (default gate.stability.max_spread_pct; series_attempts in all).
        Returns the run set paths in the order of sides."""
        runs = GATE.get("runs", 5)
        return measure_interleaved(self, sides, lambda named: self.bench_interleaved(named, runs, archive=archive),
                                   limit or MAX_SPREAD_PCT, SERIES_ATTEMPTS)

    def interleave_text(self):
        """The phase report's line of how its comparisons took their runs
        ("" when they did not interleave)."""
        return interleave_text(self.interleave_lines)

    def check(self, config_rel, rel_dir):
        """The spec's correctness check of a configuration, run once under
        the lease into rel_dir.  (passed, why): a configuration that fails
        it is never timed."""
        prepared = self.prepare(config_rel)
        expected = PLAN.get("commands", {}).get("check_expected_output")
        command = prepared.get("check") or (prepared["run"] if expected is not None else None)
        if command is None:
            return True, "the spec has no check"
        out = self.fresh_dir(rel_dir)
        args = ["--runs", 1, "--warmup-samples", 0, "--out", out]
        timeout = TIMEOUTS.get("check") if prepared.get("check") else TIMEOUTS.get("run")
        if timeout:
            args += ["--timeout-seconds", timeout]
        try:
            self.tool("run_benchmark.py", "check-" + rel_dir.replace("/", "-"), *args, "--", "/bin/sh", "-c", command)
        except ToolFailed:
            return False, "the check failed: %s" % failed_run_text(out, None)
        if expected is not None:
            with open(os.path.join(out, first_run(out), "stdout.log"), encoding="utf-8", errors="replace") as f:
                if expected not in f.read():
                    return False, "%s/%s/stdout.log does not contain %r" % (out, first_run(out), expected)
        return True, "the check passed (%s)" % self.rel(out)

    def gate(self, mode, baseline, candidates, json_rel, extra=()):
        """analyze_performance.py (the gates) on run sets; returns the report."""
        args = ["--baseline", baseline, "--warmup", self.warmup, "--expected-ranks", self.ranks,
                "--json-out", self.produce(json_rel)]
        for name, path in candidates:
            args += ["--candidate", "%s=%s" % (name, path)]
        if mode == "screen":
            args.append("--selection-only")
        elif mode == "option-trial":
            args.append("--option-trial")
        elif mode == "promote":
            for name, _ in candidates:
                args += ["--promotion-mode", "%s=whole_scope" % name]
        policy = self.gate_policy()
        args += self.gate_rule_args(stability_only=mode == "stability")
        if mode != "stability":
            args += ["--allow-p90-regression-pct", policy["allow_p90_regression_pct"],
                     "--allow-stddev-regression-pct", policy["allow_stddev_regression_pct"]]
            if mode != "option-trial":
                args += ["--min-improvement-pct", policy["min_improvement_pct"]]
        args += list(extra)
        self.tool("analyze_performance.py", "gate-" + json_rel.replace("/", "-")[:-5], *args)
        return read_json(self.path(json_rel))

    def attempt_name(self, rel, k, suffix=""):
        base = rel[:-len(suffix)] if suffix and rel.endswith(suffix) else rel
        return rel if k == 1 else "%s-%d%s" % (base, k, suffix)

    def stable_series(self, config_rel, rel_dir, json_rel, runs=None):
        """A series of the spec's runs and its stability gate, measured
        again while the gate finds it unstable (series_attempts in all).
        Returns (run set path, baseline_stability, gate report rel)."""
        runs = runs or GATE.get("runs", 5)
        tried = []
        for k in range(1, SERIES_ATTEMPTS + 1):
            rd, jr = self.attempt_name(rel_dir, k), self.attempt_name(json_rel, k, ".json")
            runset = self.bench(config_rel, rd, runs)
            st = self.gate("stability", runset, [], jr)["baseline_stability"]
            tried.append({"runset": rd, "stability": jr, "spread_pct": st.get("spread_pct"),
                          "stable": bool(st["stable"])})
            if st["stable"]:
                break
        self.note_attempts(rel_dir, tried)
        return runset, st, jr

    def trial_series(self, config_rel, rel_dir, archive=False, limit=None):
        """A series of the spec's runs for a comparison, measured again
        while its own runs spread more than limit % (default
        gate.stability.max_spread_pct; series_attempts in all)."""
        runs = GATE.get("runs", 5)
        limit = limit or MAX_SPREAD_PCT
        tried = []
        for k in range(1, SERIES_ATTEMPTS + 1):
            rd = self.attempt_name(rel_dir, k)
            runset = self.bench(config_rel, rd, runs, archive=archive)
            spread = runset_spread_pct(runset)
            tried.append({"runset": rd, "spread_pct": spread, "limit_pct": limit,
                          "stable": spread is not None and spread <= limit})
            if tried[-1]["stable"]:
                break
        self.note_attempts(rel_dir, tried)
        return runset

    def note_attempts(self, rel_dir, tried):
        if len(tried) > 1:
            log("%s: measured %d times" % (rel_dir, len(tried)))
            self.decisions.append({"decision": "series_remeasured", "series": rel_dir,
                                   "max_spread_pct": MAX_SPREAD_PCT, "attempts": tried})

    def gate_rule_args(self, stability_only=False):
        """The frozen spec's decision rule as gate flags: --max-spread-pct,
        and unless only the S0 stability is judged --decide-by and
        --stability (gate.stability.rule spread is the reference's rule)."""
        gate = self.frozen_gate()
        st = gate.get("stability", {})
        args = ["--max-spread-pct", st.get("max_spread_pct", 5.0)]
        if not stability_only:
            args += ["--decide-by", gate.get("decide_by", "mean"),
                     "--stability", "relative" if st.get("rule") == "relative" else "reference"]
        return args

    def screen_remeasure_limit(self):
        """gate.stability.screen_remeasure_spread_pct as intake froze it:
        the spread above which Stage A's screening is measured again (as
        the demo's frozen screen_remeasure_spread_pct), never looser than
        max_spread_pct; None when the spec has none."""
        pct = self.frozen_gate().get("stability", {}).get("screen_remeasure_spread_pct")
        return min(pct, MAX_SPREAD_PCT) if pct else None

    def frozen_gate(self):
        """The spec's gate section intake froze (intake/freeze.json), else the plan's."""
        path = self.path("intake/freeze.json")
        if os.path.exists(path):
            return read_json(path).get("gate", GATE)
        return GATE

    def gate_policy(self):
        path = self.path("intake/freeze.json")
        if os.path.exists(path):
            return read_json(path).get("gate_policy", GATE_POLICY)
        return GATE_POLICY

    # --- result --------------------------------------------------------------
    def finish(self, status, summary_zh, details_zh=None, guidance_zh=None, extra=None):
        result = {
            "schema_version": RESULT_SCHEMA,
            "session_id": self.task["session_id"],
            "step_id": self.step["step_id"],
            "phase": self.step["phase"],
            "agent_id": self.step["agent_id"],
            "status": status,
            "summary_zh": summary_zh,
            "input_fingerprints": {"phase_task": sha256_file(self.task_path),
                                   "session": self.task["session_fingerprint"]},
            "consumed_artifacts": self.consumed,
            "produced_artifacts": [p for p in self.produced if os.path.exists(self.path(p))],
            "decisions": self.decisions,
            "blockers": self.blockers,
            "next_step_guidance_zh": guidance_zh or "交由控制器校验并调度下一阶段。",
            "details_zh": details_zh or {},
        }
        if extra:
            result.update(extra)
        write_json(self.result_path, result)
        log("%s: %s" % (self.step["step_id"], status))

    def block(self, code, reason_zh, evidence=None):
        self.blockers.append({"code": code, "reason_zh": reason_zh, "evidence": evidence or []})


def main(body):
    """Run a phase body; a failed run ends the attempt without a result,
    naming the run directory, so the session resumes at this phase."""
    try:
        body()
    except (RunFailed, BuildFailed) as e:
        print("tune worker %s: %s" % (os.path.basename(sys.argv[0]), e), file=sys.stderr, flush=True)
        sys.exit(1)


def archive_script(cfg):
    """Shell that writes the configuration into the run directory as
    config.yaml (JSON is YAML).  Stage A screens variants at the baseline's
    option values: no option of Stage O is applied yet, which the gate's
    Stage-A control reads as the explicitly empty option maps."""
    doc = {"tune_config": cfg, "model_config": {"custom_params": {
        "super_kernel_optimize_options": {}, "super_kernel_debug_options": {}}}}
    text = json.dumps(doc, sort_keys=True).replace("'", "'\\''")
    return "printf '%%s\\n' '%s' > \"$TUNECTL_RUN_DIR/config.yaml\" && " % text


def metric_args():
    """bench run's reader of the spec's metric.  A figure better higher
    (a throughput) is logged as its reciprocal (--metric-higher), so the
    gates, which take lower as better, judge the time per unit of it."""
    m = METRIC
    higher = ["--metric-higher"] if HIGHER else []
    if m.get("from") == "stdout":
        return ["--metric-regex", m["regex"]] + higher
    if m.get("from") == "stderr":
        return ["--metric-regex", m["regex"], "--metric-stream", "stderr"] + higher
    if m.get("from") == "file":
        return ["--metric-file", m["file"], "--metric-pointer", m["pointer"]] + higher
    return []


def check_metric_source(out):
    """A run set the spec's regex read nothing from (timed by the wall
    clock instead) ends the attempt."""
    metric = read_json(os.path.join(out, "runset.json")).get("metric") or {}
    if METRIC.get("from") in ("stdout", "stderr") and metric.get("source") != "metric_regex":
        raise RunFailed("%s/run-1: metric.regex /%s/ matched nothing in the run's %s "
                        "(the run set was timed by its wall clock instead)" % (
                            out, METRIC.get("regex"), METRIC.get("from")))


def measure_interleaved(w, sides, bench, limit, attempts):
    """A comparison's series [(configuration, run set rel)], baseline
    first, taken interleaved by bench([(configuration, run set rel)]) and
    measured again as a whole (rel-2, ...) while any side's runs spread
    more than limit %, `attempts` times in all.  Records the attempts
    (w.note_attempts) and the order (decision runs_interleaved, and a line
    in w.interleave_lines).  Shared with the demo's workers
    (examples/workers/sklib.py).  Returns the run set paths in the order
    of sides."""
    tried = []
    for k in range(1, attempts + 1):
        named = [(cfg, w.attempt_name(rd, k)) for cfg, rd in sides]
        outs = bench(named)
        spreads = [runset_spread_pct(o) for o in outs]
        stable = all(sp is not None and sp <= limit for sp in spreads)
        tried.append({"runsets": [rd for _, rd in named], "spread_pct": spreads, "limit_pct": limit,
                      "stable": stable})
        if stable:
            break
    w.note_attempts(sides[-1][1], tried)
    order = interleave_order(outs[0])
    w.decisions.append({"decision": "runs_interleaved", "runsets": [w.rel(o) for o in outs], "order": order})
    w.interleave_lines.append("runs interleaved: %s" % order)
    return outs


def interleave_text(lines):
    """A phase report's line of how its comparisons took their runs, from
    the lines measure_interleaved() kept ("" when none interleaved)."""
    if not lines:
        return ""
    orders = sorted(set(lines), key=lines.index)
    return " %s%s。" % ("；".join(orders), "（%d 次比较）" % len(lines) if len(lines) > 1 else "")


def interleave_order(out):
    """The order the interleaved runs of run set `out` were taken in, with
    the sides' roles ("A B A B ...")."""
    return (read_json(os.path.join(out, "runset.json")).get("interleaved") or {}).get("order") or "N/A"


def first_run(out):
    runs = sorted(d for d in os.listdir(out) if d.startswith("run-")) if os.path.isdir(out) else []
    return runs[0] if runs else "run-1"


def failed_run_text(out, err):
    """Which run of run set `out` failed, and where its output is."""
    path = os.path.join(out, "runset.json")
    if os.path.exists(path):
        for r in read_json(path).get("runs", []):
            if r.get("exit_code") != 0 or r.get("timed_out") or r.get("problem"):
                d = os.path.join(out, r.get("path", ""))
                how = "timed out" if r.get("timed_out") else "exited %s" % r.get("exit_code")
                return "run %s %s%s; its output is in %s/stdout.log and %s/stderr.log" % (
                    d, how, "; " + r["problem"] if r.get("problem") else "", d, d)
    return "the run set %s was not completed%s" % (out, ": %s" % err if err else "")


def tool_output(manifest, which):
    path = (manifest.get("logs") or {}).get(which)
    if not path or not os.path.exists(path):
        return ""
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def device_id_args():
    return [a for i in DEVICE_IDS for a in ("--device-id", str(i))]


def lease_root():
    root = os.environ.get("TUNECTL_LEASE_ROOT") or os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                                               "tunectl-tune-leases")
    os.makedirs(root, exist_ok=True)
    return root


def runset_spread_pct(runset):
    means = [r.get("worst_rank_mean_ms") for r in read_json(os.path.join(runset, "runset.json"))["runs"]]
    if not means or any(m is None for m in means):
        return None
    mean = sum(means) / len(means)
    return (max(means) - min(means)) / mean * 100.0 if mean > 0 else None


def s0_series(w):
    """(run set rel, stability report rel) of the accepted S0 series."""
    series = read_json(w.consume("s0/series.json"))
    return series["runset"], series["stability"]


def incumbent(w):
    """(config rel, run set rel) of the incumbent Stage O left."""
    inc = read_json(w.consume("stage-o/incumbent.json"))
    return inc["config"], inc["runset"]


def metric_name():
    if HIGHER:
        return "reciprocal 1/value of the program's figure (%s, higher is better; the runs log " \
            "1/value, worst-rank mean per run, lower is better; %s)" % (METRIC.get("unit"), metric_reader())
    return "%s of the program (%s, %s is better; %s)" % (
        "worst-rank mean per run", METRIC.get("unit", "ms"), METRIC.get("direction", "lower"), metric_reader())


def metric_reader():
    return (
        "regex /%s/ on %s" % (METRIC.get("regex"), METRIC.get("from")) if METRIC.get("regex")
        else "%s %s" % (METRIC.get("from"), METRIC.get("pointer") or ""))


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def fmt_metric(v):
    """A logged figure (a gate's mean or median) in the metric's own unit:
    with direction higher the runs logged 1/value, converted back."""
    if not isinstance(v, (int, float)):
        return "N/A"
    if HIGHER:
        return "%.6g %s" % (1.0 / v, METRIC.get("unit")) if v > 0 else "N/A"
    return "%.4f %s" % (v, METRIC.get("unit", "ms"))


def fmt_gain(pct):
    """A gate's improvement_pct (of the logged figure) as the change of the
    metric itself: with direction higher the figure grew by 1/(1 - pct)."""
    if not isinstance(pct, (int, float)):
        return "N/A"
    if HIGHER and pct < 100:
        return "%+.2f%% (%s)" % ((100.0 / (100.0 - pct) - 1.0) * 100.0, METRIC.get("unit"))
    return "%+.2f%%" % pct
