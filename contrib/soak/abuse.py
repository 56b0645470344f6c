# SPDX-License-Identifier: BSD-3-Clause
"""TCP abuse, in parallel with the load: clients that never send, send
one byte at a time, pipeline hundreds of queries and never read, or
reset the connection in the middle of an answer. Each kind runs in its
own thread until stop is set and counts what happened."""
import socket
import struct
import threading
import time

import dns.message


def frame(name, rdtype="A", qid=1):
    q = dns.message.make_query(name, rdtype)
    q.id = qid
    w = q.to_wire()
    return struct.pack("!H", len(w)) + w


class Abuse:
    def __init__(self, port):
        self.port = port
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.counts = {}
        self.threads = []
        # [start, end] (end None while on) of the accept() faults, filled
        # by the operations' schedule: connections made then wait in the
        # listen backlog, unaccepted, past the idle timeout
        self.accept_faults = []

    def accept_fault_between(self, t0, t1):
        return any(s <= t1 and (e is None or e >= t0)
                   for s, e in list(self.accept_faults))

    def count(self, what, n=1):
        with self.lock:
            self.counts[what] = self.counts.get(what, 0) + n

    def connect(self, timeout=5.0):
        s = socket.create_connection(("127.0.0.1", self.port), timeout)
        s.settimeout(timeout)
        return s

    def start(self):
        for fn in (self.silent, self.one_byte, self.pipeline_no_read,
                   self.reset_mid_answer):
            t = threading.Thread(target=self.guard, args=(fn,), daemon=True)
            t.start()
            self.threads.append(t)

    def join(self):
        self.stop.set()
        for t in self.threads:
            t.join(30)

    def guard(self, fn):
        while not self.stop.is_set():
            try:
                fn()
            except OSError as e:
                self.count("%s: %s" % (fn.__name__, type(e).__name__))
                self.stop.wait(0.2)

    def silent(self):
        """10 connections that never send; the server's idle timeout
        (tcp-idle-timeout: 3 s) should close them."""
        socks = [self.connect() for _ in range(10)]
        self.count("silent: opened", len(socks))
        t0 = time.time()
        for s in socks:
            s.settimeout(max(0.1, 15 - (time.time() - t0)))
            try:
                if s.recv(1) == b"":
                    self.count("silent: closed by server")
            except socket.timeout:
                self.count("silent: still open after 15 s" +
                           (" (accept() fault in that time)"
                            if self.accept_fault_between(t0, time.time())
                            else ""))
            except ConnectionResetError:
                self.count("silent: reset by server")
            s.close()

    def one_byte(self):
        """One query, one byte every 50 ms; the answer must come (or the
        server closes a client this slow)."""
        with self.connect() as s:
            for b in frame("www.example.tld1.", qid=7):
                s.send(bytes([b]))
                if self.stop.wait(0.05):
                    return
            try:
                hdr = s.recv(2)
                self.count("one_byte: answered" if len(hdr) == 2 else
                           "one_byte: closed")
            except socket.timeout:
                self.count("one_byte: no answer")

    def pipeline_no_read(self):
        """300 queries in one write, never read; hold 5 s, then close."""
        with self.connect() as s:
            data = b"".join(frame("www.example.tld%d." % (1 + i % 2),
                                  qid=i) for i in range(300))
            s.settimeout(5)
            try:
                s.sendall(data)
                self.count("pipeline: 300 sent")
            except socket.timeout:
                self.count("pipeline: send blocked")
            self.stop.wait(5)

    def reset_mid_answer(self):
        """Ask for a large answer (100 A records), then close with RST
        before reading it."""
        s = self.connect()
        s.sendall(frame("many.example.tld1.", qid=9))
        time.sleep(0.005)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                     struct.pack("ii", 1, 0))
        s.close()
        self.count("reset: sent")
        self.stop.wait(0.05)
