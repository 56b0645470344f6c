#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""What the callgrind benchmarks of one cache hit share (cookie_callgrind,
defence_callgrind): the cache dump with the one answer they ask for, the
query, a sender that waits for each reply, and the total Ir of a dump."""
import socket
import struct

import dns.edns
import dns.message

DUMP = ("START_RRSET_CACHE\n;rrset 86400 1 0 8 0\n"
        "www.example.com.\t86400\tIN\tA\t192.0.2.80\n"
        "END_RRSET_CACHE\nSTART_MSG_CACHE\n"
        "msg www.example.com. IN A 32896 1 86400 0 1 0 0\n"
        "www.example.com. IN A 0\nEND_MSG_CACHE\nEOF\n")


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def query(opt):
    q = dns.message.make_query("www.example.com.", "A", use_edns=0,
                               payload=1232)
    if opt is not None:
        q.use_edns(0, payload=1232,
                   options=[dns.edns.GenericOption(10, opt)])
    return q.to_wire()


def send(port, wire, n):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        s.settimeout(5)
        for i in range(n):
            w = struct.pack(">H", i & 0xffff) + wire[2:]
            s.sendto(w, ("127.0.0.1", port))
            s.recv(4096)


def total(path):
    tot = 0
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith(("totals:", "summary:")):
                tot = int(line.split()[1])
    return tot
