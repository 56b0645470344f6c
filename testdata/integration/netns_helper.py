# SPDX-License-Identifier: BSD-3-Clause
"""Run a resolver with its built-in root hints where no packet can leave:
inside a network namespace that has nothing but lo.

Run as `unshare -n /usr/bin/python3 netns_helper.py SPEC.json` (root):
brings lo up, refuses (exit 3) unless lo is the namespace's only
interface and no route leads anywhere but loopback, then for each
resolver in the spec writes a config without root-hints (so the daemon
uses its compiled-in root servers, whose addresses are unreachable here:
sends fail at once with ENETUNREACH inside the namespace), starts it,
runs `unbound-control list_stubs` over a unix socket, asks one recursive
question, stops the daemon by PID and prints one JSON object with the
results. Used by test_builtin_hints.py.
"""
import ctypes
import json
import os
import signal
import socket
import subprocess
import sys
import time

import dns.exception
import dns.message
import dns.query
import dns.rcode

PR_SET_PDEATHSIG = 1


def die_with_parent():
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG,
                                            signal.SIGTERM, 0, 0, 0)


def isolation_problem():
    """None when lo is the only interface and every route is loopback."""
    # if_nameindex asks the kernel about this namespace (/sys/class/net
    # would still show the host's unless sysfs were mounted again)
    ifaces = sorted(name for _, name in socket.if_nameindex())
    if ifaces != ["lo"]:
        return "interfaces besides lo: %s" % ifaces
    with open("/proc/net/route") as f:
        routes = [l.split()[0] for l in f.read().splitlines()[1:] if l]
    if any(r != "lo" for r in routes):
        return "IPv4 routes not on lo: %s" % routes
    try:
        with open("/proc/net/ipv6_route") as f:
            routes6 = [l.split()[-1] for l in f.read().splitlines() if l]
    except OSError:
        routes6 = []
    if any(r != "lo" for r in routes6):
        return "IPv6 routes not on lo: %s" % routes6
    return None


def stop_and_collect(proc, d, out, stop_timeout=10):
    """Stop the daemon proc by PID (TERM, then KILL after stop_timeout
    seconds) and put its exit status and the tail of d's unbound.log in
    out."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(stop_timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    out["exit"] = proc.returncode
    try:
        with open(os.path.join(d, "unbound.log"), errors="replace") as f:
            out["log"] = f.read()[-4000:]
    except OSError:
        out["log"] = ""


def enter_isolation(addrs=()):
    """Bring lo up, add addrs to it, and check the namespace is isolated:
    None, or what is wrong (then nothing was added)."""
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    problem = isolation_problem()
    if problem:
        return problem
    for a in addrs:
        subprocess.run(["ip", "addr", "add", a, "dev", "lo"], check=True)
    return None


def config(d, port, extra):
    return "\n".join([
        "server:",
        "\tverbosity: 1",
        "\tinterface: 127.0.0.1",
        "\tport: %d" % port,
        "\tdo-daemonize: no",
        "\tuse-syslog: no",
        '\tchroot: ""',
        '\tusername: ""',
        '\tpidfile: ""',
        '\tdirectory: "%s"' % d,
        '\tlogfile: "%s/unbound.log"' % d,
        '\tmodule-config: "iterator"',
        "\t# no root-hints: the built-in root servers",
    ] + ["\t" + l for l in extra] + [
        "remote-control:",
        "\tcontrol-enable: yes",
        '\tcontrol-interface: "%s/control.sock"' % d,
        ""])


def run_one(spec):
    d = spec["dir"]
    os.makedirs(d, exist_ok=True)
    conf = os.path.join(d, "unbound.conf")
    with open(conf, "w") as f:
        f.write(config(d, spec["port"], spec.get("extra", [])))
    out = {"name": spec["name"]}
    with open(os.path.join(d, "stderr.txt"), "wb") as err:
        proc = subprocess.Popen([spec["unbound"], "-d", "-c", conf],
                                stdin=subprocess.DEVNULL, stdout=err,
                                stderr=err, cwd=d,
                                preexec_fn=die_with_parent)
    try:
        q = dns.message.make_query("version.server.", "TXT", "CH")
        deadline = time.time() + spec.get("start_timeout", 15)
        while True:
            if proc.poll() is not None:
                raise RuntimeError("exited with %s" % proc.returncode)
            try:
                dns.query.udp(q, "127.0.0.1", port=spec["port"], timeout=0.3)
                break
            except (dns.exception.Timeout, OSError):
                if time.time() > deadline:
                    raise RuntimeError("did not answer")
                time.sleep(0.1)
        r = subprocess.run([spec["control"], "-c", conf, "list_stubs"],
                           capture_output=True, text=True, timeout=30)
        out["list_stubs"] = r.stdout
        out["list_stubs_rc"] = r.returncode
        q = dns.message.make_query(spec["qname"], "A")
        t0 = time.time()
        try:
            reply = dns.query.udp(q, "127.0.0.1", port=spec["port"],
                                  timeout=spec["query_timeout"])
            out["rcode"] = dns.rcode.to_text(reply.rcode())
        except dns.exception.Timeout:
            out["rcode"] = None
        out["seconds"] = time.time() - t0
        out["alive"] = proc.poll() is None
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
        out["error"] = str(e)
    finally:
        stop_and_collect(proc, d, out, spec.get("stop_timeout", 10))
    return out


def main():
    with open(sys.argv[1]) as f:
        specs = json.load(f)
    problem = enter_isolation()
    if problem:
        print(json.dumps({"isolation": problem}))
        return 3
    print(json.dumps({"isolation": None,
                      "results": [run_one(s) for s in specs]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
