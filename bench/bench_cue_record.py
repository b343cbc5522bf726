"""cue record (SPEC §4.1): the recorder's CPU and disk over a scripted session.

A 2560×1600 Xvfb screen with openbox and three xterms (a shell in each). `cue record` runs
with its defaults (grab every 2 s, heartbeat 60 s while active, keyframes ≤ 1920 px JPEG
q70) in two sessions:

- idle: nobody touches anything; measured over its first IDLE_SECS (grabs every 2 s) and
  over IDLE_SECS after the first minute (the recorder then looks every 10 s);
- active: for ACTIVE_SECS someone types shell commands (each prints a screenful), and
  switches windows every ~8 s — busier than a person at a desk.

CPU is the recorder process's user+system time (/proc/PID/stat) over the session's wall
time, as % of one core; the X server's share of the grabs is reported beside it (no
budget: it is the server's). MB per hour is what the session wrote (keyframes + MCAP)
scaled to an hour. Budgets, against peers (SPEC §4.1: screenpipe ~10 % CPU and
15–30 GB/month): idle ≤ 1 % in its first minute and ≤ 0.5 % after it, active ≤ 8 % of
one core; idle ≤ 5 MB/h and active
≤ 150 MB/h (8 h × 21 workdays of non-stop activity ≈ 25 GB/month before `record.max_disk`
caps what is kept; real days are mostly idle-ish, and the default budget keeps 2 GB).
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from bench import WORK, Bench

IDLE_SECS = 40
ACTIVE_SECS = 60
CLK = os.sysconf("SC_CLK_TCK")
COMMANDS = ["ls -l /usr/bin | head -60", "cat /etc/services | head -70",
            "ls -R /usr/share/doc | head -80", "env | sort", "ls -la /usr/lib | tail -70"]


def _cpu_secs(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK  # utime + stime


def _bytes(home: Path) -> int:
    return sum(p.stat().st_size for sub in ("keyframes", "events") if (home / sub).exists()
               for p in (home / sub).rglob("*") if p.is_file())


def _x(env, *args):
    return subprocess.run(["xdotool", *args], env=env, capture_output=True, text=True,
                          timeout=20, check=False).stdout.strip()


def _session(env: dict, home: Path, secs: float, active: bool, windows: list[str],
             xvfb_pid: int, skip: float = 0.0) -> tuple[float, float, float]:
    """(recorder CPU %, X server CPU %, MB/h) over one session, measured after `skip` s."""
    shutil.rmtree(home, ignore_errors=True)
    cue = str(Path(sys.executable).parent / "cue")
    rec = subprocess.Popen([cue, "record"], env={**env, "CUE_HOME": str(home)},
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 30
    while not (home / "recorder.json").exists():  # past imports and the first grab
        if time.time() > deadline or rec.poll() is not None:
            rec.kill()
            raise RuntimeError(f"cue record did not start: {rec.stderr.read().decode()[-400:]}")
        time.sleep(0.1)
    time.sleep(1.0 + skip)
    cpu0, x0, b0, t0 = _cpu_secs(rec.pid), _cpu_secs(xvfb_pid), _bytes(home), time.time()
    i = 0
    while time.time() - t0 < secs:
        if not active:
            time.sleep(0.5)
            continue
        _x(env, "windowactivate", "--sync", windows[i % len(windows)])
        _x(env, "type", "--delay", "60", COMMANDS[i % len(COMMANDS)] + "\n")
        time.sleep(max(0.0, 8.0 - 0.06 * len(COMMANDS[i % len(COMMANDS)])))
        i += 1
    wall = time.time() - t0
    cpu, xcpu, written = (_cpu_secs(rec.pid) - cpu0, _cpu_secs(xvfb_pid) - x0,
                          _bytes(home) - b0)
    rec.send_signal(signal.SIGTERM)
    rec.wait(timeout=20)
    return 100 * cpu / wall, 100 * xcpu / wall, written / 1e6 * 3600 / wall


def run(bench: Bench) -> None:
    missing = [t for t in ("Xvfb", "openbox", "xdotool", "xterm") if shutil.which(t) is None]
    if missing:
        print(f"  cue record: skipped, needs {', '.join(missing)} (scripts/system-packages.sh)")
        return
    work = WORK / "cue_record"
    work.mkdir(parents=True, exist_ok=True)
    r, w = os.pipe()
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", "2560x1600x24",
                             "-nolisten", "tcp"], pass_fds=(w,), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    os.close(w)
    with os.fdopen(r) as fh:
        display = ":" + fh.readline().strip()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(work),
           "DISPLAY": display, "LANG": "C.UTF-8", "SHELL": "/bin/sh"}
    procs = [subprocess.Popen(["openbox"], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)]
    try:
        time.sleep(1.0)
        windows = []
        for n, geom in enumerate(("160x50+0+0", "160x50+1200+100", "160x50+400+700")):
            title = f"shell{n}"
            procs.append(subprocess.Popen(["xterm", "-T", title, "-geometry", geom, "-fa",
                                           "Monospace", "-fs", "11", "-e", "sh"], env=env,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            windows.append(_x(env, "search", "--sync", "--name", f"^{title}$").split()[0])
        home = work / "home"
        sessions = (  # name, seconds measured, active?, skipped first, CPU and MB/h budgets
            ("idle, first minute", IDLE_SECS, False, 0.0, 1.0, 5.0),
            ("idle, after a minute", IDLE_SECS, False, 61.0, 0.5, 5.0),
            ("active", ACTIVE_SECS, True, 0.0, 8.0, 150.0))
        for name, secs, active, skip, cpu_budget, mb_budget in sessions:
            cpu, xcpu, mbh = _session(env, home, secs, active, windows, xvfb.pid, skip)
            bench.report(f"cue record {name}: recorder CPU (% of one core)", cpu,
                         cpu_budget, "%")
            bench.report(f"cue record {name}: X server CPU for the grabs", xcpu, None, "%")
            bench.report(f"cue record {name}: written per hour", mbh, mb_budget, "MB/h")
    finally:
        for p in reversed(procs):
            p.kill()
            p.wait()
        xvfb.terminate()
        xvfb.wait()
