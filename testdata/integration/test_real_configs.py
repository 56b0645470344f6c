# SPDX-License-Identifier: BSD-3-Clause
"""The kinds of unbound.conf users publish (routers, Pi-hole guides,
Docker images, public resolvers, RPZ block lists, DNS64 gateways, Redis
caches, firewall exports, hardening guides), as testdata/conf/real/*.conf:
each written here with the option set and value forms of a published
one (its header names the kind and the options), every root hint,
forward, stub and primary on loopback, every file it needs made by this
test. For each config:

- our unbound-checkconf accepts it;
- our daemon starts on it, answers a CHAOS query and its real queries
  (SPECS: recursion over the signed test internet with validation,
  forwarding over TLS to a loopback resolver, local data, RPZ, DNS64,
  views, a stub), and logs no line saying an option is ignored, not
  implemented or unsupported (started with -v: that line is logged at
  verbosity 1);
- Debian's Unbound 1.17 (REF "117": its checkconf must accept the
  config) or, with UNBOUND_126 set, Unbound 1.26 (REF "126": options
  1.17 lacks) starts on the same config and gives the same answers
  (rcode, AD, answer records without TTLs).

A NAME.conf.d/ directory beside NAME.conf is the config's include
directory, copied with it. Placeholders @NAME@ are filled per run
(fill())."""
import glob
import os
import re
import shutil
import subprocess

import dns.flags
import dns.message
import dns.rcode
import pytest

from conftest import (CHECKCONF_BIN, DEB_UNBOUND, RefServer,
                      Server, SLOW, Upstream, _finish, answer_texts,
                      free_port, rcode_of)
from signednet_pair import SKIP_MARKS, signednet_net  # noqa: F401

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REAL = os.path.join(TESTDATA, "conf", "real")
from testnet.tls_pki import CA  # noqa: E402
from test_cachedb import REDIS, Redis  # noqa: E402

pytestmark = SKIP_MARKS + [
    pytest.mark.skipif(not os.access(REDIS, os.X_OK),
                       reason="redis-server is not installed")]

DEB_CHECKCONF = "/usr/sbin/unbound-checkconf"
UB126 = os.environ.get("UNBOUND_126")
# what a config must not make the daemon say
NOT_HONOURED = re.compile(r"not implemented|ignored|unsupported|"
                          r"not supported", re.I)
# the names the forward-tls-upstream configs authenticate
TLS_NAMES = ["cloudflare-dns.com", "security.cloudflare-dns.com",
             "dns.google", "dns.quad9.net"]

SECURE = ("www.sec1.", "A", "NOERROR", "secure")
# config name: its queries (qname, qtype, rcode, what the answer is:
# "secure" = an A record with AD, "any" = some answer record, a
# string = an answer record's data, None = no answer) and the
# reference that has all its options
SPECS = {
    "pihole-recursive": ([SECURE], "117"),
    "distro-debian": ([SECURE], "117"),
    "docker-hardened": ([SECURE, ("nas.home.lan.", "A", "NOERROR",
                                  "192.168.1.20")], "117"),
    "docker-ecs-subnet": ([SECURE], "117"),
    "redis-cachedb": ([SECURE], "126"),
    "redis-cachedb-indented": ([SECURE], "126"),
    "router-asuswrt": ([SECURE], "117"),
    "public-resolver": ([SECURE], "117"),
    "privacy-dot-forwarder": ([SECURE, ("_dmarc.gmail.com.", "TXT",
                                        "NOERROR", "any")], "117"),
    "dns64-gateway": ([("www.sec1.", "AAAA", "NOERROR",
                        "64:ff9b::c000:201")], "117"),
    "pfsense-dns64": ([SECURE, ("pfSense.home.arpa.", "A", "NOERROR",
                                "192.168.1.1")], "126"),
    "openwrt-uci": ([SECURE, ("router.lan.", "A", "NOERROR",
                              "192.168.1.1")], "117"),
    "views-split-horizon": ([("restic.example.org.", "A", "NOERROR",
                              "10.42.0.1")], "117"),
    "isp-anycast-rpz": ([SECURE, ("ads.blocked.test.", "A", "NXDOMAIN",
                                  None)], "117"),
    "adblock-localzone": ([SECURE, ("ads.blocked.test.", "A", "NXDOMAIN",
                                    None),
                           ("tracker.blocked.test.", "A", "NOERROR",
                            "0.0.0.0")], "117"),
    "dot-doh-server": ([SECURE], "117"),
    "dnstap-collector": ([SECURE], "117"),
    "k8s-cluster-dns": ([("health.check.unbound.", "A", "NOERROR",
                          "127.0.0.1"),
                         ("www.insec.", "A", "NOERROR", "any")], "117"),
    "hardening-dot": ([SECURE], "117"),
    "router-openbsd": ([SECURE], "117"),
    "freebsd-local-unbound": ([SECURE, ("printer.lan.", "A", "NOERROR",
                                        "192.168.1.9")], "117"),
    "ansible-quoted": ([SECURE], "117"),
    "nixos-module": ([SECURE, ("pp.home.example.", "A", "NOERROR",
                               "10.100.0.1")], "117"),
    "lanparty-stub": ([("host.at.quakecon.org.", "A", "NOERROR",
                        Upstream.RDATA["A"])], "117"),
}

# deliberate differences (doc/compat.md) in what view() compares
AD_DIFFERS = {
    "dns64-gateway": "doc/compat.md, dns64: no AD on a synthesised AAAA",
}


def configs():
    """The config names (the test ids: none starts with "debian-",
    "unbound-" or "reference-", which conftest takes for the
    Debian's-Unbound half of a test)."""
    return sorted(os.path.basename(p)[:-5]
                  for p in glob.glob(os.path.join(REAL, "*.conf")))


def test_every_config_has_a_spec():
    """A config added to testdata/conf/real/ without its queries here
    would be checked by nothing."""
    assert configs() == sorted(SPECS)


class ConfServer(Server):
    """A Server started on a config text written by the test (the
    published form), not on the harness's own lines."""
    text = ""

    def write_config(self, body="", **kw):
        with open(self.conf, "w") as f:
            f.write(self.text)
        return self.conf


class ConfRef(ConfServer):
    binary = DEB_UNBOUND


class Conf126(ConfServer):
    binary = UB126


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("pki"))
    ca = CA(d)
    return {"ca": ca.cert_file,
            "server": ca.server("server", ["dns.test"] + TLS_NAMES)}


@pytest.fixture(scope="module")
def resolver(signednet_net, pki, tmp_path_factory):
    """Debian's Unbound recursing over the signed test internet: the
    "public resolver" the forwarding configs name, plain on two ports
    and over TLS on two more."""
    srv = RefServer(tmp_path_factory.mktemp("resolver"))
    srv.port2, srv.tls, srv.tls2 = free_port(), free_port(), free_port()
    cert, key = pki["server"]
    body = ("interface: 127.0.0.1@%d\n" % srv.port2 +
            "interface: 127.0.0.1@%d\n" % srv.tls +
            "interface: 127.0.0.1@%d\n" % srv.tls2 +
            "tls-port: %d\ntls-additional-port: %d\n" % (srv.tls,
                                                        srv.tls2) +
            'tls-service-key: "%s"\ntls-service-pem: "%s"\n' % (key, cert) +
            'module-config: "iterator"\n')
    srv.start(body, root_hints=signednet_net.root_hints)
    yield srv
    _finish(srv)


@pytest.fixture(scope="module")
def redis(tmp_path_factory):
    r = Redis(tmp_path_factory.mktemp("redis")).start()
    yield r
    r.stop()


@pytest.fixture(scope="module")
def stub():
    up = Upstream()
    yield up
    up.close()


def root_zone(net):
    """The signed test internet's root zone file (its NSD's copy)."""
    found = glob.glob(os.path.join(net.dir, "*", "root.zone"))
    assert found, "no root.zone under %s" % net.dir
    return found[0]


def prepare(d, name, net, pki, resolver, redis, stub):
    """The files the configs name, made in d; the placeholders' values."""
    with open(net.anchor) as f:
        anchor = f.read()
    for path in ("root.key", "root.anchor", "trusted-key.key",
                 "var/root.key"):
        os.makedirs(os.path.dirname(os.path.join(d, path)), exist_ok=True)
        with open(os.path.join(d, path), "w") as f:
            f.write(anchor)
    shutil.copy(net.root_hints, os.path.join(d, "root.hints"))
    shutil.copy(root_zone(net), os.path.join(d, "root.zone"))
    shutil.copy(pki["ca"], os.path.join(d, "ca.pem"))
    cert, key = pki["server"]
    for dst, src in (("server.pem", cert), ("server.key", key),
                     ("unbound_server.pem", cert),
                     ("unbound_server.key", key),
                     ("unbound_control.pem", cert),
                     ("unbound_control.key", key)):
        shutil.copy(src, os.path.join(d, dst))
    files = {
        "rpz.block.hosts.zone":
            "$TTL 2h\n@ IN SOA localhost. root.localhost. "
            "(2 6h 1h 1w 2h)\n  IN NS  localhost.\n"
            "ads.blocked.test CNAME .\n*.ads.blocked.test CNAME .\n",
        "blocklist.conf":
            'local-zone: "ads.blocked.test" always_nxdomain\n'
            'local-zone: "tracker.blocked.test" redirect\n'
            'local-data: "tracker.blocked.test A 0.0.0.0"\n',
        "a-records.conf":
            "# A Record\n"
            'local-data: "nas.home.lan. A 192.168.1.20"\n'
            "# PTR Record\n"
            'local-data-ptr: "192.168.1.20 nas.home.lan."\n',
        "records.conf": 'local-data: "ncn-m001.nmn A 10.252.1.4"\n',
        "unbound_srv.conf": "# user server: options\n",
        "unbound_ext.conf": "# user clauses\n",
    }
    # resolvconf's file for unbound: the system's name servers
    files["unbound-resolvconf.conf"] = (
        'forward-zone:\n  name: "."\n  forward-addr: 127.0.0.1@%d\n' %
        resolver.port)
    for fname, text in files.items():
        with open(os.path.join(d, fname), "w") as f:
            f.write(text)
    dead = free_port()
    return {
        "FILES": d, "DIR": d, "PORT": None, "TLSPORT": free_port(),
        "HTTPSPORT": free_port(), "CTLPORT": free_port(),
        "UPSTREAM": "127.0.0.1@%d" % resolver.port,
        "UPSTREAM2": "127.0.0.1@%d" % resolver.port2,
        "UPSTREAM_TLS": "127.0.0.1@%d" % resolver.tls,
        "UPSTREAM_TLS2": "127.0.0.1@%d" % resolver.tls2,
        "REDISPORT": str(redis.port),
        "DEAD": "127.0.0.1@%d" % dead, "DEAD2": "127.0.0.1@%d" % dead,
        "STUB": "127.0.0.1@%d" % stub.port,
    }


def fill(text, values):
    def sub(m):
        assert m.group(1) in values, "unknown placeholder " + m.group(0)
        return str(values[m.group(1)])
    return re.sub(r"@([A-Z0-9_]+)@", sub, text)


def install(srv, name, values):
    """name.conf (and name.conf.d/) filled in for srv, in srv's
    directory."""
    shutil.copytree(values["FILES"], srv.dir, dirs_exist_ok=True)
    values = dict(values, DIR=srv.dir, PORT=srv.port)
    src_d = os.path.join(REAL, name + ".conf.d")
    for top, _, names in os.walk(src_d):
        dst = os.path.join(srv.dir, os.path.relpath(top, REAL))
        os.makedirs(dst, exist_ok=True)
        for n in names:
            with open(os.path.join(top, n)) as f:
                text = fill(f.read(), values)
            with open(os.path.join(dst, n), "w") as f:
                f.write(text)
    with open(os.path.join(REAL, name + ".conf")) as f:
        srv.text = fill(f.read(), values) + harness_lines(srv)
    srv.write_config()


def harness_lines(srv):
    """What a loopback test needs beyond the config, in a server:
    clause of its own at the end (Unbound takes server: again): the
    test internet is on 127.x, which do-not-query-localhost (default
    yes) would forbid; the default username (unbound) and pidfile
    (/run/unbound.pid) would not let a test run as root write its
    directory; a build's default chroot and directory may not exist
    here. Every config sets its own logfile."""
    lines = ["do-not-query-localhost: no"]
    if not re.search(r"^\s*username:", srv.text, re.M):
        lines.append('username: ""')
    if not re.search(r"^\s*pidfile:", srv.text, re.M):
        lines.append('pidfile: "%s"' % srv.pidfile)
    # a build's own defaults (Unbound 1.26 from source: /usr/local/...)
    if not re.search(r"^\s*chroot:", srv.text, re.M):
        lines.append('chroot: ""')
    if not re.search(r"^\s*directory:", srv.text, re.M):
        lines.append('directory: "%s"' % srv.dir)
    return "\n# the test harness\nserver:\n" + "".join(
        "\t%s\n" % l for l in lines)


def ask(srv, qname, qtype):
    q = dns.message.make_query(qname, qtype, want_dnssec=True)
    return srv.query(q, timeout=3.0 * SLOW, retries=2)


def view(reply, ad=True):
    """What is compared between two daemons: rcode, AD (unless ad is
    False), the answer."""
    return (rcode_of(reply), bool(reply.flags & dns.flags.AD) and ad,
            answer_texts(reply))


def check_answer(name, reply, qname, qtype, rcode, want):
    assert rcode_of(reply) == rcode, "%s %s %s:\n%s" % (name, qname,
                                                       qtype, reply)
    texts = [t for t in answer_texts(reply) if " %s " % qtype in t]
    if want == "secure":
        assert texts and reply.flags & dns.flags.AD, (
            "%s %s: not a secure answer:\n%s" % (name, qname, reply))
    elif want == "any":
        assert texts, "%s %s: no answer:\n%s" % (name, qname, reply)
    elif want is None:
        assert not texts, "%s %s: %s" % (name, qname, reply)
    else:
        assert any(t.endswith(" " + want) for t in texts), (
            "%s %s: %s wanted:\n%s" % (name, qname, want, reply))


def run_one(cls, tmp, name, values, args):
    """Start cls on name in tmp; its answers to the config's queries and
    its output."""
    srv = cls(tmp)
    try:
        install(srv, name, values)
        srv.start(args=args)
        replies = [ask(srv, q, t) for q, t, _, _ in SPECS[name][0]]
        return replies, srv
    except BaseException:
        _finish(srv)
        raise


@pytest.mark.parametrize("name", configs())
def test_real_config(name, tmp_path, signednet_net, pki, resolver, redis,
                     stub):
    queries, ref = SPECS[name]
    os.makedirs(tmp_path / "files")
    values = prepare(str(tmp_path / "files"), name, signednet_net, pki,
                     resolver, redis, stub)

    # ours: checkconf, start (-v: verbosity at least 1), the answers
    os.makedirs(tmp_path / "ours")
    ours = ConfServer(tmp_path / "ours")
    install(ours, name, values)
    cc = subprocess.run([CHECKCONF_BIN, ours.conf], capture_output=True,
                        text=True, cwd=ours.dir)
    assert cc.returncode == 0, "%s: unbound-checkconf:\n%s%s" % (
        name, cc.stdout, cc.stderr)
    replies, ours = run_one(ConfServer, tmp_path / "ours", name, values,
                            ("-d", "-v"))
    try:
        for (q, t, rcode, want), r in zip(queries, replies):
            check_answer(name, r, q, t, rcode, want)
    finally:
        _finish(ours)
    said = [l for l in ours.output().splitlines()
            if NOT_HONOURED.search(l)]
    assert not said, "%s: an option not honoured:\n%s" % (
        name, "\n".join(said))

    # the reference on the same config: the same answers
    if ref == "117":
        cls = ConfRef
        os.makedirs(tmp_path / "ref")
        probe = ConfRef(tmp_path / "ref")
        install(probe, name, values)
        cc = subprocess.run([DEB_CHECKCONF, probe.conf],
                            capture_output=True, text=True, cwd=probe.dir)
        assert cc.returncode == 0, (
            "%s is marked as one Unbound 1.17 takes:\n%s%s" % (
                name, cc.stdout, cc.stderr))
    elif UB126:
        cls = Conf126
        os.makedirs(tmp_path / "ref")
    else:
        return      # options 1.17 lacks, no 1.26 given: ours only
    ref_replies, refsrv = run_one(cls, tmp_path / "ref", name, values,
                                  ("-d",))
    _finish(refsrv)
    ad = name not in AD_DIFFERS
    assert ([view(r, ad) for r in replies] ==
            [view(r, ad) for r in ref_replies]), (
        "%s: ours and %s differ" % (name, cls.binary))
