#!/usr/bin/env python3
"""Opens watches in bursts and checks every one gets its event (docs/benchmarks.md, 2026-12-05 night).

Each round: a ConfigMap is created, N watches from its resourceVersion are opened at once (HTTP/1.1 over TLS, one
connection each), a second ConfigMap is created, and every watch is read until that one's event arrives (15 s at
most). Then the client hangs up on all N and deletes the round's ConfigMaps, so the server writes to connections
already gone while the next round opens new ones. Prints the watches that did not get their event, and what they
were answered.

    python3 docs/tools/watch-burst.py data/admin.kubeconfig [watches per round, 300] [rounds, 20]
"""
import http.client
import json
import re
import selectors
import socket
import ssl
import sys
import time
from urllib.parse import urlparse

kubeconfig = open(sys.argv[1]).read()
TOKEN = re.search(r'token:\s*(\S+)', kubeconfig).group(1)
server = urlparse(re.search(r'server:\s*(\S+)', kubeconfig).group(1))
HOST, PORT = server.hostname, server.port or 443
N = int(sys.argv[2]) if len(sys.argv) > 2 else 300
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 20
BASE = '/api/v1/namespaces/default/configmaps'
ctx = ssl.create_default_context()
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE
ctx.set_alpn_protocols(['http/1.1'])


def call(method, path, body=None):
    c = http.client.HTTPSConnection(HOST, PORT, context=ctx)
    c.request(method, path, body=body, headers={'Authorization': 'Bearer ' + TOKEN,
                                                 'Content-Type': 'application/json'})
    data = c.getresponse().read()
    c.close()
    return json.loads(data)


def create(name):
    return call('POST', BASE, json.dumps({'metadata': {'name': name, 'labels': {'watch-burst': 'y'}}}))[
        'metadata']['resourceVersion']


missed = 0
for rnd in range(ROUNDS):
    stamp = time.time_ns() % 10**9
    rv = create('seed-%d-%d' % (rnd, stamp))
    socks = []
    for i in range(N):
        s = ctx.wrap_socket(socket.create_connection((HOST, PORT)))
        s.sendall(('GET %s?watch=true&timeoutSeconds=120&resourceVersion=%s HTTP/1.1\r\nHost: x\r\n'
                   'Authorization: Bearer %s\r\n\r\n' % (BASE, rv, TOKEN)).encode())
        socks.append(s)
    marker = ('marker-%d-%d' % (rnd, stamp)).encode()
    create(marker.decode())
    got, done, ended = [b''] * N, [False] * N, [False] * N
    sel = selectors.DefaultSelector()
    for i, s in enumerate(socks):
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, i)
    left, deadline = N, time.time() + 15
    while left and time.time() < deadline:
        for key, _ in sel.select(0.5):
            i = key.data
            try:
                while True:
                    d = key.fileobj.recv(65536)
                    if not d or marker in got[i] + d:
                        got[i] += d
                        ended[i], done[i] = not d, bool(d)
                        sel.unregister(key.fileobj)
                        left -= 1
                        break
                    got[i] += d
            except (ssl.SSLWantReadError, BlockingIOError):
                pass
    bad = [i for i in range(N) if not done[i]]
    missed += len(bad)
    print('round %d: %d of %d watches got the event' % (rnd, N - len(bad), N), flush=True)
    for i in bad[:3]:
        print('  watch %d (%s): %r' % (i, 'connection closed' if ended[i] else 'still open', got[i][-300:]))
    for s in socks:
        s.close()
    call('DELETE', BASE + '?labelSelector=watch-burst')
print('%d of %d watches missed their event' % (missed, N * ROUNDS))
sys.exit(1 if missed else 0)
