# SPDX-License-Identifier: BSD-3-Clause
"""A small DNS over TLS server for tests (Python's ssl module, threads),
on a loopback address and port, for the cases Debian's Unbound cannot
be made to do: it answers every A question with one address, can close
a connection after half an answer, and records what a client did:
connections, handshakes that failed (the client refused the
certificate), resumed sessions, and any plain DNS: a TCP connection
whose first byte is not a TLS handshake record, or a UDP datagram on
the same address and port (a plain listener that must see nothing).
The query messages are kept as they came: `wires` over TLS,
`plain_wires` over UDP and plain TCP (the first frame; not answered)."""
import socket
import ssl
import struct
import threading

import dns.message
import dns.rrset


class TlsDnsServer:
    """mode "answer": A ANSWER_IP for every name; "half": the first
    reply on each connection is cut after half its bytes and the
    connection closed (the upstream dies mid-answer); "garbage": a
    frame too short for a DNS message instead of the reply; "mute": the
    TCP connection is accepted, the handshake never answered."""

    def __init__(self, cert, key, addr="127.0.0.1", port=0,
                 answer_ip="192.0.2.53", mode="answer"):
        self.answer_ip = answer_ip
        self.mode = mode
        self.ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.ctx.load_cert_chain(cert, key)
        self.lock = threading.Lock()
        self.connections = 0
        self.handshake_failures = 0
        self.resumed = 0
        self.queries = 0
        self.plain_tcp = 0
        self.plain_udp = 0
        self.wires = []
        self.plain_wires = []
        self.sni = []
        self.ctx.sni_callback = self._sni
        self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.tcp.bind((addr, port))
        self.addr, self.port = self.tcp.getsockname()
        self.tcp.listen(64)
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind((self.addr, self.port))
        self.stopping = False
        self.threads = [threading.Thread(target=self._accept, daemon=True),
                        threading.Thread(target=self._udp, daemon=True)]
        for t in self.threads:
            t.start()

    def _sni(self, sslobj, name, ctx):
        with self.lock:
            self.sni.append(name)

    def _count(self, what, n=1):
        with self.lock:
            setattr(self, what, getattr(self, what) + n)

    def _udp(self):
        while not self.stopping:
            try:
                data, _ = self.udp.recvfrom(65535)
            except OSError:
                return
            if data and not self.stopping:
                self._count("plain_udp")
                with self.lock:
                    self.plain_wires.append(data)

    def _accept(self):
        while not self.stopping:
            try:
                conn, _ = self.tcp.accept()
            except OSError:
                return
            if self.stopping:
                conn.close()
                return
            threading.Thread(target=self._serve, args=(conn,),
                             daemon=True).start()

    def _reply(self, wire):
        q = dns.message.from_wire(wire)
        r = dns.message.make_response(q)
        if q.question and q.question[0].rdtype == 1:
            r.answer.append(dns.rrset.from_text(
                q.question[0].name, 300, "IN", "A", self.answer_ip))
        return r.to_wire()

    def _serve(self, conn):
        conn.settimeout(10)
        try:
            first = conn.recv(1, socket.MSG_PEEK)
        except OSError:
            conn.close()
            return
        if not first:
            conn.close()
            return
        self._count("connections")
        if first[0] != 0x16:   # not a TLS handshake record: plain DNS
            self._count("plain_tcp")
            self._keep_plain_frame(conn)
            conn.close()
            return
        if self.mode == "mute":
            try:
                while conn.recv(4096):
                    pass
            except OSError:
                pass
            conn.close()
            return
        try:
            tls = self.ctx.wrap_socket(conn, server_side=True)
        except (ssl.SSLError, OSError):
            self._count("handshake_failures")
            conn.close()
            return
        if tls.session_reused:
            self._count("resumed")
        try:
            self._frames(tls)
        except (ssl.SSLError, OSError, ValueError):
            pass
        finally:
            try:
                tls.close()
            except OSError:
                pass

    def _keep_plain_frame(self, conn):
        buf = b""
        try:
            while len(buf) < 2 or len(buf) < 2 + struct.unpack(
                    "!H", buf[:2])[0]:
                chunk = conn.recv(65535)
                if not chunk:
                    return
                buf += chunk
        except OSError:
            return
        with self.lock:
            self.plain_wires.append(buf[2:2 + struct.unpack("!H",
                                                            buf[:2])[0]])

    def _frames(self, tls):
        buf = b""
        while True:
            while len(buf) < 2 or len(buf) < 2 + struct.unpack(
                    "!H", buf[:2])[0]:
                chunk = tls.recv(65535)
                if not chunk:
                    return
                buf += chunk
            n = struct.unpack("!H", buf[:2])[0]
            wire, buf = buf[2:2 + n], buf[2 + n:]
            self._count("queries")
            with self.lock:
                self.wires.append(wire)
            out = self._reply(wire)
            frame = struct.pack("!H", len(out)) + out
            if self.mode == "garbage":
                tls.sendall(b"\x00\x05hello")
                continue
            if self.mode == "half":
                tls.sendall(frame[:len(frame) // 2])
                return   # close mid-answer
            tls.sendall(frame)

    def stop(self):
        self.stopping = True
        for s in (self.tcp, self.udp):
            try:   # shutdown wakes a blocked accept()/recvfrom()
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()
        for t in self.threads:
            t.join(timeout=2)
