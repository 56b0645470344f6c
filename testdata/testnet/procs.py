# SPDX-License-Identifier: BSD-3-Clause
"""Starting and stopping the test internet's server processes by PID.

Every server (NSD or responder) is started in its own session, so it
survives the starting process when run from the command line, and its
PID is written to a file in its directory; stopping reads that file,
sends SIGTERM, waits, then SIGKILLs the process group (NSD forks helper
processes; a killed main process must not leave them behind). Nothing
is ever looked up or killed by name.
"""
import ctypes
import os
import signal
import subprocess
import time

PR_SET_PDEATHSIG = 1


def _die_with_parent():
    """In the child before exec: get SIGTERM when the parent dies, so a
    test run killed hard (no finalizers) leaves no server behind."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG,
                                                signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def pid_alive(pid):
    """True while pid runs (a zombie counts as gone)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")
    except (OSError, IndexError):
        return False


def group_members(pgid):
    """PIDs of live processes whose process group is pgid."""
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            pids.append(int(d))
    return pids


def start(args, workdir, pidfile, logname="output.log", detach=False):
    """Start args in a new session with cwd workdir, output to a log file
    there; write the PID to pidfile. Unless detach (servers started from
    the command line outlive it), the process gets SIGTERM when its
    parent dies. Returns the Popen."""
    with open(os.path.join(workdir, logname), "ab") as out:
        proc = subprocess.Popen(args, cwd=workdir, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True,
                                preexec_fn=None if detach else
                                _die_with_parent)
    with open(pidfile, "w") as f:
        f.write("%d\n" % proc.pid)
    return proc


def read_pid(pidfile):
    try:
        with open(pidfile) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def stop(pidfile, proc=None, timeout=5.0):
    """Stop the process recorded in pidfile (proc: its Popen, when we are
    its parent, so it gets reaped). SIGTERM, then SIGKILL to its group
    after timeout. Removes the pidfile. Safe to call twice."""
    pid = proc.pid if proc is not None else read_pid(pidfile)
    if pid is None:
        return
    # A stale pidfile from an earlier run: only signal a process that is
    # the leader of its own group, which is how start() created it.
    try:
        leader = os.getpgid(pid) == pid
    except OSError:
        leader = False
    if leader and pid_alive(pid):
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc is not None:
            if proc.poll() is not None:
                break
        elif not pid_alive(pid):
            break
        time.sleep(0.02)
    if leader:
        # the main process is gone or stuck: take its helpers with it
        for _ in range(50):
            if not group_members(pid):
                break
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                break
            time.sleep(0.02)
    if proc is not None:
        try:
            proc.wait(1)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.unlink(pidfile)
    except OSError:
        pass
