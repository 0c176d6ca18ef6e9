#!/usr/bin/env python3
"""How long the Python package's exit report can hold a process: a Python process whose
toporr.Planner points at a daemon that accepts connections and never answers (a loopback
listener, the worst case: a refused connection fails at once) exits with the report on and
off (TOPORR_JOB_METRICS), runs interleaved. The report is capped at min(deadline_ms, 500 ms).

    bazel build //client/planapi:libtoporr_plan.so
    TOPORR_PLAN_LIBRARY=$(bazel info bazel-bin)/client/planapi/libtoporr_plan.so \\
      python3 bench/client/job_report_exit_delay.py [RUNS] [OUT.jsonl]

Prints one JSON line (seconds per process, each setting's runs and median) and appends it to
OUT when given."""
import datetime
import json
import os
import socket
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    out = sys.argv[2] if len(sys.argv) > 2 else None
    if not os.environ.get("TOPORR_PLAN_LIBRARY"):
        sys.exit("set TOPORR_PLAN_LIBRARY to a built libtoporr_plan.so")
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(64)
        address = f"127.0.0.1:{silent.getsockname()[1]}"
        program = (f"import toporr\np = toporr.Planner(address={address!r}, deadline_ms=2000)\n"
                   "p.record_fallback(2, 'a fallback to report')\n")
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"),
                   TOPORR_CONFIG="/nonexistent/client.conf")
        seconds = {"on": [], "off": []}
        for _ in range(runs):
            for setting in ("on", "off"):
                e = dict(env, TOPORR_JOB_METRICS="1" if setting == "on" else "0")
                start = time.monotonic()
                subprocess.run([sys.executable, "-c", program], env=e, check=True)
                seconds[setting].append(round(time.monotonic() - start, 4))
    line = {"when": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "runs": runs, "daemon": "accepts, never answers", "seconds": seconds,
            "median": {k: statistics.median(v) for k, v in seconds.items()}}
    text = json.dumps(line)
    print(text)
    if out:
        with open(out, "a") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
