#!/usr/bin/env python3
"""Runs the program of docs/remote-browsers.md against Debian's chromedriver on 127.0.0.1 and a
page served on 127.0.0.1: it must read the page, click its button, exit 0, and leave no browser
behind (its WebDriver session deleted). Exit 77 (skipped) when chromedriver is not installed.

    run_grid_agent.py PROGRAM
"""
import http.server
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request

CHROMEDRIVER = "/usr/bin/chromedriver"
PAGE = (b"<!doctype html><title>Grid page</title><h1>Served to the grid</h1>"
        b"<button onclick=\"document.querySelector('h1').textContent='clicked on the grid'\">Press</button>")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def browsers_of(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            fields = stat[stat.rindex(")") + 2:].split()
            if int(fields[1]) != pid or fields[0] == "Z":
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().decode(errors="replace")
        except (OSError, ValueError):
            continue
        if "chrom" in cmd and "--type=" not in cmd:
            out.append(int(entry))
    return out


class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args):
        pass


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    if not os.access(CHROMEDRIVER, os.X_OK):
        print("chromedriver is not installed (Debian: chromium-driver): skipped")
        return 77
    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    port = free_port()
    driver = subprocess.Popen([CHROMEDRIVER, f"--port={port}", "--allowed-ips=127.0.0.1", "--silent"])
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(url + "/status", timeout=1) as r:
                    if b'"ready":true' in r.read():
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                print("chromedriver did not become ready within 20 s")
                return 1
            time.sleep(0.05)
        page = f"http://127.0.0.1:{site.server_address[1]}/"
        run = subprocess.run([sys.argv[1], url, page], capture_output=True, text=True, timeout=120)
        print(run.stdout)
        print(run.stderr, file=sys.stderr)
        ok = run.returncode == 0 and "Served to the grid" in run.stdout and "clicked on the grid" in run.stdout
        deadline = time.monotonic() + 15
        while browsers_of(driver.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = browsers_of(driver.pid)
        if left:
            print(f"the WebDriver session was not deleted: browsers {left} still run")
            ok = False
        print("run_grid_agent: " + ("passed" if ok else f"FAILED (exit {run.returncode})"))
        return 0 if ok else 1
    finally:
        driver.terminate()
        driver.wait(timeout=10)
        site.shutdown()


if __name__ == "__main__":
    sys.exit(main())
