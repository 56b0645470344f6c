#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Seeds for fuzz_query_https (testdata/fuzz/query_https/): HTTP/2 client
frames after the connection preface (the harness sends the preface and
an empty SETTINGS itself), made with Python's h2. The first byte of each
seed picks the write size (low 3 bits) and the client (the rest).

    /usr/bin/python3 testdata/fuzz/make_https_seeds.py"""
import base64
import os

import dns.message
import h2.config
import h2.connection
import h2.settings

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "query_https")


def client():
    c = h2.connection.H2Connection(h2.config.H2Configuration(
        client_side=True, header_encoding="utf-8"))
    c.initiate_connection()
    c.data_to_send()  # the harness sends its own preface
    return c


def wire(name, rdtype="A", qid=0):
    q = dns.message.make_query(name, rdtype)
    q.id = qid
    return q.to_wire()


def b64(w):
    return base64.urlsafe_b64encode(w).decode().rstrip("=")


def headers(method, path, extra=()):
    return [(":method", method), (":path", path), (":scheme", "http"),
            (":authority", "x")] + list(extra)


def get(c, path):
    sid = c.get_next_available_stream_id()
    c.send_headers(sid, headers("GET", path), end_stream=True)
    return sid


def post(c, body, ctype="application/dns-message", pieces=1, end=True):
    sid = c.get_next_available_stream_id()
    c.send_headers(sid, headers("POST", "/dns-query", [
        ("content-type", ctype), ("content-length", str(len(body)))]))
    step = max(1, len(body) // pieces)
    for i in range(0, len(body), step):
        last = i + step >= len(body)
        c.send_data(sid, body[i:i + step], end_stream=last and end)
    return sid


def seeds():
    c = client()
    get(c, "/dns-query?dns=" + b64(wire("www.example.com")))
    yield "get", 0x07, c.data_to_send()

    c = client()
    post(c, wire("www.example.com", qid=0x1234))
    yield "post", 0x07, c.data_to_send()

    c = client()
    post(c, wire("www.example.com", "AAAA"), pieces=5)
    yield "post-pieces-bytewise", 0x00, c.data_to_send()

    c = client()
    get(c, "/nope?dns=" + b64(wire("a.example.com")))
    get(c, "/dns-query?foo")
    sid = c.get_next_available_stream_id()
    c.send_headers(sid, headers("PUT", "/dns-query"), end_stream=True)
    post(c, wire("a.example.com"), ctype="text/plain")
    get(c, "/dns-query?dns=!!!!")
    get(c, "/dns-query?dns=" + b64(b"abc"))
    get(c, "/dns-query")
    get(c, "/dns-query?dns=" + b64(wire("localhost")))
    yield "errors-mixed", 0x05, c.data_to_send()

    c = client()
    sid = c.get_next_available_stream_id()
    c.send_headers(sid, headers("POST", "/dns-query", [
        ("content-type", "application/dns-message"),
        ("content-length", "70000")]))
    c.send_data(sid, b"x" * 16000)
    c.reset_stream(sid)
    yield "too-large-then-reset", 0x06, c.data_to_send()

    c = client()
    post(c, b"\0" * 5000)
    yield "over-query-budget", 0x07, c.data_to_send()

    c = client()
    for i in range(12):
        get(c, "/dns-query?dns=" + b64(wire("h%d.example.com" % i, qid=i)))
    yield "many-streams", 0x07, c.data_to_send()

    c = client()
    get(c, "/dns-query?dns=" + b64(wire("big.example.com", "TXT")))
    c.ping(b"12345678")
    c.increment_flow_control_window(100000)
    c.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 10})
    get(c, "/dns-query?dns=" + b64(wire("www.example.com")))
    c.close_connection()
    yield "ping-window-goaway", 0x04, c.data_to_send()

    c = client()
    post(c, wire("www.example.com"), end=False)
    yield "post-no-end", 0x07, c.data_to_send()

    yield "http1", 0x07, b"GET /dns-query HTTP/1.1\r\nHost: x\r\n\r\n"


def main():
    import h2.settings  # noqa: F401  (used by seeds)
    os.makedirs(OUT, exist_ok=True)
    for name, first, data in seeds():
        with open(os.path.join(OUT, "seed-" + name), "wb") as f:
            f.write(bytes([first]) + data)


if __name__ == "__main__":
    main()
