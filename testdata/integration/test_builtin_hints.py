# SPDX-License-Identifier: BSD-3-Clause
"""Built-in root hints: without root-hints: the daemon (as Unbound) starts
from the 13 IANA root servers compiled in.

Nothing may reach those servers, so the daemon runs inside its own
network namespace where lo is the only interface (`unshare -n`, as root;
netns_helper.py checks the isolation before it starts anything): a query
to a root server address fails inside the namespace (ENETUNREACH), the
resolver answers SERVFAIL. `unbound-control list_stubs` must show the
built-in servers exactly as Debian's Unbound 1.17 prints its own, run
the same way. Where unshare is not permitted, that test skips saying so
and a fallback checks list_stubs alone with every non-loopback address
forbidden (do-not-query-address) and no query sent.
"""
import json
import os
import subprocess
import sys

import pytest

from conftest import BUILDDIR, REFERENCE, SLOW, STOP_TIMEOUT, loopback_guard

HELPER = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      "netns_helper.py")
OUR_UNBOUND = os.path.join(BUILDDIR, "unbound")
OUR_CTL = os.path.join(BUILDDIR, "unbound-control")
DEB_UNBOUND = "/usr/sbin/unbound"
DEB_CTL = "/usr/sbin/unbound-control"

# IANA's named.root (the root servers' names and addresses, 2024).
ROOT_SERVERS = [
    ("A", "198.41.0.4", "2001:503:ba3e::2:30"),
    ("B", "170.247.170.2", "2801:1b8:10::b"),
    ("C", "192.33.4.12", "2001:500:2::c"),
    ("D", "199.7.91.13", "2001:500:2d::d"),
    ("E", "192.203.230.10", "2001:500:a8::e"),
    ("F", "192.5.5.241", "2001:500:2f::f"),
    ("G", "192.112.36.4", "2001:500:12::d0d"),
    ("H", "198.97.190.53", "2001:500:1::53"),
    ("I", "192.36.148.17", "2001:7fe::53"),
    ("J", "192.58.128.30", "2001:503:c27::2:30"),
    ("K", "193.0.14.129", "2001:7fd::1"),
    ("L", "199.7.83.42", "2001:500:9f::42"),
    ("M", "202.12.27.33", "2001:dc3::35"),
]



def expected_stubs(ip6=True):
    """What Unbound 1.17 prints for them: names M..A, then the IPv6
    addresses M..A (none with do-ip6: no), then the IPv4 ones (its lists
    are built by prepending)."""
    return ". IN stub prime %s %s\n" % (
        " ".join("%s.ROOT-SERVERS.NET." % l for l, _, _ in reversed(
            ROOT_SERVERS)),
        " ".join(([v6 for _, _, v6 in reversed(ROOT_SERVERS)] if ip6
                  else []) + [v4 for _, v4, _ in reversed(ROOT_SERVERS)]))

# A reply must come well before this (the helper's client timeout): the
# unreachable servers fail at once, the resolver must not hang.
QUERY_TIMEOUT = 20 * SLOW


def unshare_problem():
    """None when `unshare -n` works here, else why not (the environment
    variable UNBOUND_TEST_NO_UNSHARE=1 pretends it does not, to run the
    fallback)."""
    if os.environ.get("UNBOUND_TEST_NO_UNSHARE") == "1":
        return "UNBOUND_TEST_NO_UNSHARE=1"
    if os.geteuid() != 0:
        return "unshare -n needs root"
    try:
        r = subprocess.run(["unshare", "-n", "true"], capture_output=True,
                           text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "unshare -n cannot run: %s" % e
    if r.returncode != 0:
        return "unshare -n is not permitted: %s" % r.stderr.strip()
    return None


UNSHARE_PROBLEM = unshare_problem()

pytestmark = pytest.mark.skipif(
    REFERENCE or not os.access(OUR_CTL, os.X_OK),
    reason="needs this build's unbound and unbound-control")


def run_in_netns(tmp_path, resolvers, extra=()):
    """Run netns_helper.py in a new network namespace for resolvers
    [(name, unbound, control)]; its results by name."""
    specs = [{"name": name, "dir": str(tmp_path / name),
              "port": 5300 + i, "unbound": ub, "control": ctl,
              "qname": "www.example.com.", "extra": list(extra),
              "query_timeout": QUERY_TIMEOUT,
              "start_timeout": 15 * SLOW, "stop_timeout": STOP_TIMEOUT}
             for i, (name, ub, ctl) in enumerate(resolvers)]
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(specs))
    r = subprocess.run(["unshare", "-n", sys.executable, HELPER, str(spec)],
                       capture_output=True, text=True,
                       timeout=len(specs) * (QUERY_TIMEOUT + 60))
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["isolation"] is None, out["isolation"]
    assert r.returncode == 0, r.stderr
    return {x["name"]: x for x in out["results"]}


def resolvers():
    out = [("ours", OUR_UNBOUND, OUR_CTL)]
    if os.access(DEB_UNBOUND, os.X_OK) and os.access(DEB_CTL, os.X_OK):
        out.append(("debian", DEB_UNBOUND, DEB_CTL))
    return out


@pytest.mark.skipif(UNSHARE_PROBLEM is not None,
                    reason=UNSHARE_PROBLEM or "")
@pytest.mark.parametrize("extra", [[], ["do-ip6: no"]],
                         ids=["default", "no-ip6"])
def test_builtin_hints_in_isolated_namespace(tmp_path, extra):
    res = run_in_netns(tmp_path, resolvers(), extra)
    ours = res["ours"]
    assert "error" not in ours, ours
    assert ours["list_stubs_rc"] == 0
    assert ours["list_stubs"] == expected_stubs(ip6=not extra)
    # the root servers cannot be reached: SERVFAIL, in bounded time, and
    # the daemon is still serving afterwards and exits cleanly
    assert ours["rcode"] == "SERVFAIL", ours
    assert ours["alive"] and ours["exit"] == 0, ours
    assert "root-hints" not in ours["log"], ours["log"]
    if "debian" in res:
        deb = res["debian"]
        assert "error" not in deb, deb
        # the same listing (Debian's 1.17.1 carries the 2023 b.root
        # address too) and the same answer
        assert ours["list_stubs"] == deb["list_stubs"]
        assert deb["rcode"] == ours["rcode"]


@pytest.mark.skipif(UNSHARE_PROBLEM is None,
                    reason="unshare works: the namespace test covers this")
def test_builtin_hints_listed_without_traffic(unbound, tmp_path):
    """Fallback where no namespace can be made: every non-loopback
    address is forbidden and no query is sent; list_stubs only."""
    sock = str(tmp_path / "control.sock")
    body = "do-not-query-address: 0.0.0.0/0\ndo-not-query-address: ::/0"
    unbound.write_config(body, root_hints=False)
    # the guard lets this through only for the do-not-query-address lines
    assert loopback_guard.unsafe_reason(unbound.conf) is None
    unbound.start(body, root_hints=False,
                  extra="remote-control:\n\tcontrol-enable: yes\n"
                  '\tcontrol-interface: "%s"\n' % sock)
    r = subprocess.run([OUR_CTL, "-c", unbound.conf, "list_stubs"],
                       capture_output=True, text=True, timeout=30)
    assert r.stdout == expected_stubs()


def test_root_hints_file_replaces_builtin(unbound, tmp_path):
    """With root-hints: the file's servers are the root, not the built-in
    ones (list_stubs, no query sent)."""
    sock = str(tmp_path / "control.sock")
    unbound.start(extra="remote-control:\n\tcontrol-enable: yes\n"
                  '\tcontrol-interface: "%s"\n' % sock)
    r = subprocess.run([OUR_CTL, "-c", unbound.conf, "list_stubs"],
                       capture_output=True, text=True, timeout=30)
    assert r.stdout == ". IN stub prime a.root.test. 127.0.0.254\n"
    assert "ROOT-SERVERS" not in r.stdout
