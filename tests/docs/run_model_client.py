#!/usr/bin/env python3
"""docs/model-client.md's program (weather_agent) against a fake provider on 127.0.0.1.

The fake answers in each API's documented streaming format (Server-Sent Events): first two
get_weather calls (arguments split across many deltas), then a final answer built from the tool
results the program sent back. Each run checks the program's exit status, its report (the answer
carries what the tool returned, both calls ran speculatively), every request it sent (endpoint,
headers, model, "stream": true, the tools) and that the key appears nowhere in its output.

  anthropic          ANTHROPIC_API_KEY set; the first request gets HTTP 429 with Retry-After: 2
                     (the program must wait those 2 s, not its own 1 s backoff, and resend the
                     same body)
  openai_responses   OPENAI_API_KEY set, --provider openai_responses --base-url <fake>/v1
  openai_compatible  no key, --provider openai_compatible --base-url <fake>/v1: no Authorization

  run_model_client.py <weather_agent binary>
"""

import http.server
import json
import os
import re
import subprocess
import sys
import threading
import time

KEY = "sk-docs-test-7d1f0c9e2b"
MODEL = "fake-weather-model"


def pieces(s, n=4):
    return [s[i:i + n] for i in range(0, len(s), n)]


def named(event, data):
    return f"event: {event}\ndata: {json.dumps(data)}\n\n"


def plain(data):
    return f"data: {data if isinstance(data, str) else json.dumps(data)}\n\n"


CALLS = [("Oslo", "1"), ("Lisbon", "2")]


def tool_results(api, body):
    """{call id: text} of the tool results in a request."""
    out = {}
    if api == "anthropic":
        for m in body.get("messages", []):
            if isinstance(m.get("content"), list):
                for b in m["content"]:
                    if b.get("type") == "tool_result":
                        c = b.get("content")
                        out[b.get("tool_use_id")] = c if isinstance(c, str) else " ".join(x.get("text", "") for x in c)
    elif api == "openai_responses":
        for it in body.get("input", []):
            if it.get("type") == "function_call_output":
                o = it.get("output")
                out[it.get("call_id")] = o if isinstance(o, str) else " ".join(x.get("text", "") for x in o)
    else:
        for m in body.get("messages", []):
            if m.get("role") == "tool":
                c = m.get("content")
                out[m.get("tool_call_id")] = c if isinstance(c, str) else " ".join(x.get("text", "") for x in c)
    return out


def call_id(api, n):
    return ("toolu_docs_0" if api == "anthropic" else "call_docs_0") + n


def stream_calls(api):
    events = []
    if api == "anthropic":
        events.append(named("message_start", {"type": "message_start", "message": {
            "id": "msg_docs_1", "type": "message", "role": "assistant", "model": MODEL, "content": [],
            "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 40, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 300, "output_tokens": 1}}}))
        for i, (city, n) in enumerate(CALLS):
            events.append(named("content_block_start", {"type": "content_block_start", "index": i, "content_block": {
                "type": "tool_use", "id": call_id(api, n), "name": "get_weather", "input": {}}}))
            for p in [""] + pieces(json.dumps({"city": city})):
                events.append(named("content_block_delta", {"type": "content_block_delta", "index": i,
                                                            "delta": {"type": "input_json_delta", "partial_json": p}}))
            events.append(named("content_block_stop", {"type": "content_block_stop", "index": i}))
        events.append(named("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                                              "usage": {"output_tokens": 30}}))
        events.append(named("message_stop", {"type": "message_stop"}))
    elif api == "openai_responses":
        final = {"id": "resp_docs_1", "object": "response", "status": "completed", "model": MODEL, "output": [],
                 "usage": {"input_tokens": 340, "input_tokens_details": {"cached_tokens": 256}, "output_tokens": 30,
                           "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 370}}
        events.append(named("response.created", {"type": "response.created", "sequence_number": 0,
                                                 "response": dict(final, status="in_progress", usage=None)}))
        for i, (city, n) in enumerate(CALLS):
            args = json.dumps({"city": city})
            item = {"type": "function_call", "id": f"fc_docs_{n}", "call_id": call_id(api, n), "name": "get_weather",
                    "arguments": "", "status": "in_progress"}
            events.append(named("response.output_item.added", {"type": "response.output_item.added", "output_index": i, "item": item}))
            for p in pieces(args):
                events.append(named("response.function_call_arguments.delta", {
                    "type": "response.function_call_arguments.delta", "item_id": item["id"], "output_index": i, "delta": p}))
            done = dict(item, arguments=args, status="completed")
            events.append(named("response.function_call_arguments.done", {
                "type": "response.function_call_arguments.done", "item_id": item["id"], "output_index": i, "arguments": args}))
            events.append(named("response.output_item.done", {"type": "response.output_item.done", "output_index": i, "item": done}))
            final["output"].append(done)
        events.append(named("response.completed", {"type": "response.completed", "response": final}))
    else:
        def chunk(delta, finish=None, usage=None, choices=True):
            return plain({"id": "chatcmpl-docs1", "object": "chat.completion.chunk", "created": 1741569952, "model": MODEL,
                          "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}] if choices else [],
                          "usage": usage})
        events.append(chunk({"role": "assistant", "content": None}))
        for i, (city, n) in enumerate(CALLS):
            events.append(chunk({"tool_calls": [{"index": i, "id": call_id(api, n), "type": "function",
                                                 "function": {"name": "get_weather", "arguments": ""}}]}))
            for p in pieces(json.dumps({"city": city})):
                events.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": p}}]}))
        events.append(chunk({}, finish="tool_calls"))
        events.append(chunk(None, usage={"prompt_tokens": 340, "completion_tokens": 30, "total_tokens": 370,
                                         "prompt_tokens_details": {"cached_tokens": 256}}, choices=False))
        events.append(plain("[DONE]"))
    return events


def stream_answer(api, text):
    events = []
    if api == "anthropic":
        events.append(named("message_start", {"type": "message_start", "message": {
            "id": "msg_docs_2", "type": "message", "role": "assistant", "model": MODEL, "content": [],
            "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 60, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 340, "output_tokens": 1}}}))
        events.append(named("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}))
        events.append(named("ping", {"type": "ping"}))
        for p in pieces(text, 7):
            events.append(named("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                        "delta": {"type": "text_delta", "text": p}}))
        events.append(named("content_block_stop", {"type": "content_block_stop", "index": 0}))
        events.append(named("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                              "usage": {"output_tokens": 25}}))
        events.append(named("message_stop", {"type": "message_stop"}))
    elif api == "openai_responses":
        item = {"type": "message", "id": "msg_docs_2", "status": "completed", "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": []}]}
        final = {"id": "resp_docs_2", "object": "response", "status": "completed", "model": MODEL, "output": [item],
                 "usage": {"input_tokens": 400, "input_tokens_details": {"cached_tokens": 384}, "output_tokens": 25,
                           "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 425}}
        events.append(named("response.created", {"type": "response.created", "response": dict(final, status="in_progress", output=[])}))
        events.append(named("response.output_item.added", {"type": "response.output_item.added", "output_index": 0,
                                                           "item": dict(item, status="in_progress", content=[])}))
        for p in pieces(text, 7):
            events.append(named("response.output_text.delta", {"type": "response.output_text.delta", "item_id": "msg_docs_2",
                                                               "output_index": 0, "content_index": 0, "delta": p}))
        events.append(named("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}))
        events.append(named("response.completed", {"type": "response.completed", "response": final}))
    else:
        def chunk(delta, finish=None):
            return plain({"id": "chatcmpl-docs2", "object": "chat.completion.chunk", "created": 1741569953, "model": MODEL,
                          "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]})
        events.append(chunk({"role": "assistant", "content": ""}))
        for p in pieces(text, 7):
            events.append(chunk({"content": p}))
        events.append(chunk({}, finish="stop"))
        events.append(plain({"id": "chatcmpl-docs2", "object": "chat.completion.chunk", "model": MODEL, "choices": [],
                             "usage": {"prompt_tokens": 400, "completion_tokens": 25, "total_tokens": 425,
                                       "prompt_tokens_details": {"cached_tokens": 384}}}))
        events.append(plain("[DONE]"))
    return events


class Fake:
    def __init__(self, api, rate_limit_first):
        self.api = api
        self.rate_limit_first = rate_limit_first
        self.requests = []
        self.lock = threading.Lock()


def handler_for(fake):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"  # the body ends when the connection closes

        def log_message(self, fmt, *args):
            pass

        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("content-length", "0"))).decode("utf-8", "replace")
            with fake.lock:
                index = len(fake.requests)
                fake.requests.append({"path": self.path, "t": time.monotonic(), "raw": raw,
                                      "headers": {k.lower(): v for k, v in self.headers.items()}})
            if fake.rate_limit_first:
                if index == 0:
                    body = json.dumps({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}).encode()
                    self.send_response(429)
                    self.send_header("content-type", "application/json")
                    self.send_header("retry-after", "2")  # longer than the session's first backoff (1 s)
                    self.send_header("content-length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                index -= 1
            sent = json.loads(raw)
            if index == 0:
                events = stream_calls(fake.api)
            else:
                results = tool_results(fake.api, sent)
                seen = [results.get(call_id(fake.api, n), "(missing)") for _, n in CALLS]
                events = stream_answer(fake.api, "From the weather service: " + " | ".join(seen))
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("request-id" if fake.api == "anthropic" else "x-request-id", f"req_docs_{index}")
            self.end_headers()
            for e in events:
                self.wfile.write(e.encode())
                self.wfile.flush()

    return Handler


class Failure(Exception):
    pass


def check(cond, what, context=""):
    if not cond:
        raise Failure(what + (("\n" + context) if context else ""))


def run(binary, api):
    fake = Fake(api, rate_limit_first=api == "anthropic")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler_for(fake))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")}
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1"
    if api == "anthropic":
        env["ANTHROPIC_API_KEY"] = KEY
        args = [binary, "--base-url", f"http://127.0.0.1:{port}", "--model", MODEL]
        path = "/v1/messages"
    elif api == "openai_responses":
        env["OPENAI_API_KEY"] = KEY
        args = [binary, "--provider", api, "--base-url", f"http://127.0.0.1:{port}/v1", "--model", MODEL]
        path = "/v1/responses"
    else:
        args = [binary, "--provider", api, "--base-url", f"http://127.0.0.1:{port}/v1", "--model", MODEL]
        path = "/v1/chat/completions"
    try:
        proc = subprocess.run(args, env=env, capture_output=True, text=True, timeout=90)
    finally:
        server.shutdown()
        server.server_close()
    out, err = proc.stdout, proc.stderr
    both = f"--- stdout ---\n{out}\n--- stderr ---\n{err}"
    reqs = fake.requests
    check(proc.returncode == 0, f"{api}: exit status 0, got {proc.returncode}", both)
    check(KEY not in out and KEY not in err, f"{api}: the key appears nowhere in the output", both)
    m = re.search(r"^Result: (.*)$", out, re.M)
    check(m, f"{api}: a Result line", both)
    # the answer is built by the fake from the tool results the program sent back, which the
    # program's get_weather produced: both cities' weather must have made the round trip
    check("Oslo: 4 C, light rain" in m.group(1) and "Lisbon: 19 C, sunny" in m.group(1),
          f"{api}: the answer carries both tool results", both)
    check(re.search(r"- 2 tool calls, 0 failed, .*2 speculative", out), f"{api}: both calls ran while the stream was open", both)
    # on_delta: the answer's words reached stderr piece by piece, and each call was announced
    check(m.group(1) in err.replace("\n[calling get_weather]\n", ""), f"{api}: the streamed words on stderr", both)
    check(err.count("[calling get_weather]") == 2, f"{api}: both calls announced as they began", both)
    expected = 3 if api == "anthropic" else 2
    check(len(reqs) == expected, f"{api}: {expected} requests, got {len(reqs)}", both)
    for i, r in enumerate(reqs):
        where = f"{api} request {i + 1}"
        check(r["path"] == path, f"{where}: POST {path}, got {r['path']}")
        b = json.loads(r["raw"])
        check(b.get("model") == MODEL, f"{where}: model {MODEL}", r["raw"][:500])
        check(b.get("stream") is True, f"{where}: \"stream\": true", r["raw"][:500])
        names = [t.get("name") or t.get("function", {}).get("name") for t in b.get("tools", [])]
        check("get_weather" in names, f"{where}: get_weather offered", str(names))
        h = r["headers"]
        if api == "anthropic":
            check(h.get("x-api-key") == KEY and h.get("anthropic-version") == "2023-06-01", f"{where}: x-api-key, anthropic-version", str(h))
        elif api == "openai_responses":
            check(h.get("authorization") == "Bearer " + KEY, f"{where}: Authorization: Bearer", str(h))
        else:
            check("authorization" not in h, f"{where}: no key sent to a local server", str(h))
            check(b.get("stream_options", {}).get("include_usage") is True, f"{where}: stream_options.include_usage", r["raw"][:500])
    if api == "anthropic":
        check(reqs[0]["raw"] == reqs[1]["raw"], "anthropic: the request after the 429 is the same")
        waited = reqs[1]["t"] - reqs[0]["t"]
        check(waited >= 1.95, f"anthropic: waited Retry-After (2 s) before retrying, not {waited:.2f} s", both)
    print(f"ok: {api}: {len(reqs)} requests; {m.group(1)}")


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        for api in ("anthropic", "openai_responses", "openai_compatible"):
            run(sys.argv[1], api)
    except Failure as f:
        print(f"FAIL: {f}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
