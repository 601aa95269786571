#!/usr/bin/env python3
"""docs/maskers.md's embedding-model program against a stand-in model on 127.0.0.1.

The stand-in answers POST /v1/embeddings in the OpenAI shape with a "model" that maps words to a
few meanings ("zettelkasten" with the knowledge graph's words, "plus" with the sum's), so that a
request sharing no word with its tool finds it by meaning. It checks the program's output against
the page (expect_output.py --section), that the key reached the stand-in in the Authorization header
and nowhere in the program's output, and hands the program a second address where nothing listens.

  run_embeddings.py <program>
"""
import http.server
import json
import os
import re
import socket
import subprocess
import sys
import threading

KEY = "sk-docs-embeddings-3b9e1f"
HERE = os.path.dirname(os.path.abspath(__file__))
PAGE = os.path.join(HERE, "..", "..", "docs", "maskers.md")
MEANING = {"zettelkasten": 0, "entities": 0, "graph": 0, "knowledge": 0, "plus": 1, "add": 1, "numbers": 1, "sum": 1,
           "file": 2, "read": 2, "contents": 2, "navigate": 3, "url": 3}
seen = {"auth": set(), "texts": 0}


def vector(text):
    v = [0.01] * 4
    for w in re.findall(r"[a-z]+", text.lower()):
        if w in MEANING:
            v[MEANING[w]] += 1.0
    return v


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        seen["auth"].add(self.headers.get("Authorization", ""))
        texts = body["input"]
        seen["texts"] += len(texts)
        out = json.dumps({"object": "list", "model": body["model"],
                          "data": [{"object": "embedding", "index": i, "embedding": vector(t)} for i, t in enumerate(texts)]})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out.encode())


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    dead = socket.socket()
    dead.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    dead_url = f"http://127.0.0.1:{dead.getsockname()[1]}/v1"
    env = dict(os.environ, EMBEDDINGS_KEY=KEY)
    run = subprocess.run([sys.executable, "-B", os.path.join(HERE, "expect_output.py"), "--section",
                          "## Tool search with an embedding model", PAGE, sys.argv[1], url, dead_url],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    out = run.stdout.decode("utf-8", errors="replace")
    print(out)
    server.shutdown()
    dead.close()
    if run.returncode != 0:
        return run.returncode
    if seen["auth"] != {f"Bearer {KEY}"}:
        print(f"the key did not reach the model as a bearer token: {seen['auth']}")
        return 1
    if KEY in out:
        print("the key appears in the program's output")
        return 1
    if seen["texts"] == 0:
        print("the model was never asked")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
