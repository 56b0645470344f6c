# SPDX-License-Identifier: BSD-3-Clause
"""The harness's guard against a resolver that could reach the real root.

The daemon (like Unbound) falls back to its compiled-in root hints, the
real root servers, when a config has no `root-hints:`. Every config a
test hands to a resolver must therefore name a loopback root itself:
`unsafe_reason(conf)` reads an unbound.conf (with its `include:` and
`include-toplevel:` files) and says why it is unsafe, or None when it is
safe:

- safe: a `forward-zone:` for "." whose forward-addr are all loopback
  (no forward-host: that name would be looked up through the root; no
  forward-first: its fallback is the root hints), or
  the last `root-hints:` names a readable file whose root NS all have
  addresses and every A/AAAA in it is loopback;
- and in every case each stub-addr / forward-addr anywhere is loopback;
- a config whose server: has `do-not-query-address: 0.0.0.0/0` and
  `::/0` passes too: the resolver may ask no address at all;
- a config with an include file that does not exist passes: the daemon
  refuses it at start (a test of that error needs it).

`check(conf)` raises UnsafeConfig with that reason. This is a text-level
check, deliberately strict: a config it cannot follow is refused.
"""
import glob
import ipaddress
import os
import re


class UnsafeConfig(AssertionError):
    pass


class _Unstartable(Exception):
    """The config names an include file that does not exist: the daemon
    (as Unbound) refuses it and starts nothing."""


def _is_loopback(text):
    """'127.0.0.5', '::1', '127.0.0.5@5353', '::1@53#tls.name'."""
    host = text.split("#", 1)[0].split("@", 1)[0].strip()
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _strip_comment(line):
    out, quote = [], None
    for ch in line:
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            break
        out.append(ch)
    return "".join(out)


_ITEM = re.compile(r'([A-Za-z0-9-]+):\s*("[^"]*"|\'[^\']*\'|\S*)')


def _items(path, seen):
    """(option, value) pairs of path in order, includes expanded in
    place (globs too), clause names as (name, None)."""
    real = os.path.realpath(path)
    if real in seen:
        return
    seen.add(real)
    with open(path) as f:
        text = f.read()
    for line in text.splitlines():
        for m in _ITEM.finditer(_strip_comment(line)):
            opt, val = m.group(1).lower(), m.group(2)
            if len(val) >= 2 and val[0] == val[-1] and val[0] in "\"'":
                val = val[1:-1]
            if opt in ("include", "include-toplevel"):
                names = sorted(glob.glob(val)) if any(
                    c in val for c in "*?[") else [val]
                for n in names:
                    if not os.path.exists(n):
                        raise _Unstartable(n)
                    yield from _items(n, seen)
            elif opt in ("server", "forward-zone", "stub-zone",
                         "remote-control", "auth-zone", "view",
                         "python", "dynlib", "dnstap", "cachedb",
                         "rpz", "ipset", "dnscrypt") and val == "":
                yield opt, None
            else:
                yield opt, val


def _hints_reason(path, directories):
    if not os.path.isabs(path):
        for d in directories:
            alt = os.path.join(d, path)
            if d and os.path.exists(alt):
                path = alt
                break
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        return "root-hints file %s cannot be read: %s" % (path, e)
    ns, addrs = set(), {}
    for line in lines:
        f = _strip_comment(line.replace(";", "#", 1)).split()
        if not f or f[0].startswith("$"):
            continue
        up = [x.upper() for x in f]
        for t in ("NS", "A", "AAAA"):
            if t in up[1:-1]:
                i = up.index(t, 1)
                rtype, owner, data = t, f[0].lower(), f[i + 1]
                break
        else:
            continue
        if rtype == "NS" and owner == ".":
            ns.add(data.lower().rstrip(".") + ".")
        elif rtype in ("A", "AAAA"):
            if not _is_loopback(data):
                return "root-hints %s: %s %s %s is not loopback" % (
                    path, owner, rtype, data)
            addrs.setdefault(owner.rstrip(".") + ".", []).append(data)
    if not ns:
        return "root-hints %s: no NS records for the root" % path
    missing = sorted(n for n in ns if n not in addrs)
    if missing:
        return ("root-hints %s: no address for %s (it would be looked up "
                "through the root)" % (path, ", ".join(missing)))
    return None


def unsafe_reason(conf, base=None):
    """Why the config at conf could send a query off loopback, or None.
    A relative root-hints path is looked for under directory: (default:
    the config's own), then base (the directory unbound starts in), then
    the current directory."""
    clause = None
    hints = None
    blocked = set()
    directory = os.path.dirname(os.path.abspath(conf))
    zones = []      # [clause, name, addrs, hosts, first]
    try:
        for opt, val in _items(conf, set()):
            if val is None:
                clause = opt
                if opt in ("forward-zone", "stub-zone"):
                    zones.append([opt, None, [], [], False])
                continue
            if clause == "server" and opt == "root-hints":
                hints = val
            elif clause == "server" and opt == "directory" and val:
                directory = val
            elif clause == "server" and opt == "do-not-query-address":
                try:
                    net = ipaddress.ip_network(val, strict=False)
                    if net.prefixlen == 0:
                        blocked.add(net.version)
                except ValueError:
                    pass
            elif clause in ("forward-zone", "stub-zone") and zones:
                z = zones[-1]
                if opt == "name":
                    z[1] = val.rstrip(".") + "."
                elif opt in ("forward-addr", "stub-addr"):
                    z[2].append(val)
                elif opt in ("forward-host", "stub-host"):
                    z[3].append(val)
                elif opt in ("forward-first", "stub-first"):
                    z[4] = val.lower() == "yes"
    except _Unstartable:
        return None
    except OSError as e:
        return "cannot read the config: %s" % e
    for kind, name, addrs, hosts, first in zones:
        for a in addrs:
            if not _is_loopback(a):
                return "%s %s: address %s is not loopback" % (kind, name, a)
    if blocked == {4, 6}:
        return None
    fwd_root = [z for z in zones if z[0] == "forward-zone" and z[1] == "."]
    if fwd_root and not fwd_root[-1][4]:
        kind, name, addrs, hosts, first = fwd_root[-1]
        if hosts:
            return ('forward-zone ".": forward-host %s would be looked up '
                    "through the root" % hosts[0])
        if not addrs:
            return 'forward-zone ".": no forward-addr'
        return None
    if not hints:
        return ("neither root-hints: nor a forward-zone for \".\": the "
                "resolver would use the built-in root hints (the real "
                "root servers)")
    return _hints_reason(hints, [directory, base])


def check(conf):
    why = unsafe_reason(conf)
    if why:
        raise UnsafeConfig("refusing to start a resolver with %s: %s" %
                           (conf, why))
