#!/usr/bin/env python3
"""A logging proxy between `pinwatch snapshot --prometheus` and Prometheus,
for Benchmarks/fleet-100k.sh's QUERY_LOG: each query (GET or form POST) is
passed on as it came and answered as Prometheus answered it, and one line
per query is appended to LOG: when it was asked (epoch seconds), how long
Prometheus took to answer it whole (ms), the answer's bytes as sent
(gzip when the client asked for it), the query's length and its first
characters.

    query-log.py PORT UPSTREAM LOG

Listens on 127.0.0.1:PORT only; the script that starts it ends it by PID.
"""
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, upstream, log_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def forward(self, body):
        started = time.time()
        # The same work for Prometheus as without the proxy: its gzip too.
        headers = {name: self.headers[name] for name in ("Content-Type", "Accept-Encoding") if self.headers[name]}
        request = urllib.request.Request(upstream + self.path, data=body, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=600) as answer:
                data, status, encoding = answer.read(), answer.status, answer.headers["Content-Encoding"]
        except urllib.error.HTTPError as error:
            data, status, encoding = error.read(), error.code, error.headers["Content-Encoding"]
        took = time.time() - started
        form = body.decode() if body is not None else urllib.parse.urlparse(self.path).query
        query = urllib.parse.parse_qs(form).get("query", [""])[0]
        with lock, open(log_path, "a") as log:
            log.write(f"{started:.3f} {took * 1000:.1f} {len(data)} {len(query)} {query[:100]}\n")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        if encoding:
            self.send_header("Content-Encoding", encoding)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.forward(None)

    def do_POST(self):
        self.forward(self.rfile.read(int(self.headers.get("Content-Length", "0"))))

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
