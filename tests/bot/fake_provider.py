#!/usr/bin/env python3
"""agentkit-bot against a fake provider on 127.0.0.1 (no real provider, no key).

Serves the provider's API (Anthropic Messages, OpenAI Chat Completions or OpenAI Responses) on
an ephemeral 127.0.0.1 port, answering with responses in the provider's documented wire format,
runs agentkit-bot pointed at it (ANTHROPIC_BASE_URL / OPENAI_BASE_URL), records every request
the bot sends (also written to <work-dir>/requests.jsonl), and checks both sides.

Scenarios:
  ok            menu_enter(browser) -> browser_navigate(<the bundled page>) -> a final answer
                built from the page text the bot sent back. Checks the bot completes with that
                answer and that every request is well-formed for the provider: endpoint,
                headers, model, system prompt, tools in the provider's format, each tool result
                paired with its call id, the page snapshot in the last request; and that the
                usage fields of the responses add up in the bot's metrics.
  auth_error    HTTP 401 with the provider's documented error body: the bot stops after one
                request (no retry) with a clear error naming the status, URL and request id.
  rate_limited  HTTP 429 with Retry-After: 2 first: the bot waits those 2 s (not its own 1 s
                backoff), resends the same request, then completes as in `ok`.

  fake_provider.py --bot build/bin/agentkit-bot --provider anthropic --scenario ok --chromium PATH
"""

import argparse
import http.server
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

MODEL = "fake-model-1"
KEY = "test-key-not-secret"
CALL1 = {"anthropic": "toolu_fake_01", "openai_chat": "call_fake_01", "openai_responses": "call_fake_01"}
CALL2 = {"anthropic": "toolu_fake_02", "openai_chat": "call_fake_02", "openai_responses": "call_fake_02"}
PATHS = {"anthropic": "/v1/messages", "openai_chat": "/v1/chat/completions", "openai_responses": "/v1/responses"}
ANSWER_PREFIX = "The bundled page is the form titled"
RETRY_AFTER_S = 2  # longer than the bot's first backoff (1 s): the pause shows whether Retry-After was read


# ---- responses in each provider's documented format ------------------------------------------

def usage(provider):
    # 100 prompt tokens (80 of them from the cache) and 10 output tokens per response
    if provider == "anthropic":
        return {"input_tokens": 20, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 80,
                "output_tokens": 10, "service_tier": "standard"}
    if provider == "openai_chat":
        return {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110,
                "prompt_tokens_details": {"cached_tokens": 80, "audio_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                              "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}}
    return {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 80}, "output_tokens": 10,
            "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 110}


def tool_call_response(provider, n, call_id, name, args, text=None):
    if provider == "anthropic":
        content = []
        if text:
            content.append({"type": "text", "text": text})
        content.append({"type": "tool_use", "id": call_id, "name": name, "input": args})
        return {"id": f"msg_fake_{n}", "type": "message", "role": "assistant", "model": MODEL, "content": content,
                "stop_reason": "tool_use", "stop_sequence": None, "usage": usage(provider)}
    if provider == "openai_chat":
        return {"id": f"chatcmpl-fake{n}", "object": "chat.completion", "created": 1741569952, "model": MODEL,
                "choices": [{"index": 0, "message": {
                    "role": "assistant", "content": text,
                    "tool_calls": [{"id": call_id, "type": "function",
                                    "function": {"name": name, "arguments": json.dumps(args)}}],
                    "refusal": None, "annotations": []}, "logprobs": None, "finish_reason": "tool_calls"}],
                "usage": usage(provider), "service_tier": "default", "system_fingerprint": "fp_fake"}
    output = []
    if text:
        output.append({"type": "message", "id": f"msg_fake_{n}", "status": "completed", "role": "assistant",
                       "content": [{"type": "output_text", "text": text, "annotations": []}]})
    output.append({"type": "function_call", "id": f"fc_fake_{n}", "call_id": call_id, "name": name,
                   "arguments": json.dumps(args), "status": "completed"})
    return {"id": f"resp_fake_{n}", "object": "response", "created_at": 1741476542, "status": "completed",
            "model": MODEL, "output": output, "parallel_tool_calls": True, "usage": usage(provider)}


def answer_response(provider, n, text):
    if provider == "anthropic":
        return {"id": f"msg_fake_{n}", "type": "message", "role": "assistant", "model": MODEL,
                "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": None,
                "usage": usage(provider)}
    if provider == "openai_chat":
        return {"id": f"chatcmpl-fake{n}", "object": "chat.completion", "created": 1741569953, "model": MODEL,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text, "refusal": None,
                                                     "annotations": []},
                             "logprobs": None, "finish_reason": "stop"}],
                "usage": usage(provider)}
    return {"id": f"resp_fake_{n}", "object": "response", "created_at": 1741476543, "status": "completed",
            "model": MODEL,
            "output": [{"type": "message", "id": f"msg_fake_{n}", "status": "completed", "role": "assistant",
                        "content": [{"type": "output_text", "text": text, "annotations": []}]}],
            "usage": usage(provider)}


def is_text_answer(provider, response):
    """True for answer_response's shape: a final answer in words, no tool calls."""
    if provider == "anthropic":
        return [b.get("type") for b in response.get("content", [])] == ["text"]
    if provider == "openai_chat":
        return bool(response.get("choices")) and not response["choices"][0]["message"].get("tool_calls")
    return [it.get("type") for it in response.get("output", [])] == ["message"]


def sse_answer(provider, response):
    """A text answer (answer_response's) as the provider streams it: its words in pieces, its usage
    in the places the streaming format carries it (what agentkit-bot asks for unless --no-stream)."""
    def named(event, data):
        return f"event: {event}\ndata: {json.dumps(data)}\n\n"

    def plain(data):
        return f"data: {data if isinstance(data, str) else json.dumps(data)}\n\n"

    if provider == "anthropic":
        text = response["content"][0]["text"]
    elif provider == "openai_chat":
        text = response["choices"][0]["message"]["content"]
    else:
        text = response["output"][0]["content"][0]["text"]
    pieces = [text[i:i + 6] for i in range(0, len(text), 6)]
    u = response["usage"]
    ev = []
    if provider == "anthropic":
        start = dict(response, content=[], stop_reason=None, usage=dict(u, output_tokens=1))
        ev.append(named("message_start", {"type": "message_start", "message": start}))
        ev.append(named("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}))
        for p in pieces:
            ev.append(named("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}}))
        ev.append(named("content_block_stop", {"type": "content_block_stop", "index": 0}))
        ev.append(named("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                          "usage": {"output_tokens": u["output_tokens"]}}))
        ev.append(named("message_stop", {"type": "message_stop"}))
    elif provider == "openai_chat":
        def chunk(delta, finish=None):
            return plain({"id": response["id"], "object": "chat.completion.chunk", "created": response["created"], "model": MODEL,
                          "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]})
        ev.append(chunk({"role": "assistant", "content": ""}))
        ev += [chunk({"content": p}) for p in pieces]
        ev.append(chunk({}, finish="stop"))
        ev.append(plain({"id": response["id"], "object": "chat.completion.chunk", "created": response["created"], "model": MODEL,
                         "choices": [], "usage": u}))
        ev.append(plain("[DONE]"))
    else:
        item = response["output"][0]
        ev.append(named("response.created", {"type": "response.created", "response": dict(response, status="in_progress", output=[], usage=None)}))
        ev.append(named("response.output_item.added", {"type": "response.output_item.added", "output_index": 0,
                                                       "item": dict(item, status="in_progress", content=[])}))
        for p in pieces:
            ev.append(named("response.output_text.delta", {"type": "response.output_text.delta", "item_id": item["id"],
                                                           "output_index": 0, "content_index": 0, "delta": p}))
        ev.append(named("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}))
        ev.append(named("response.completed", {"type": "response.completed", "response": response}))
    return "".join(ev)


def auth_error_body(provider):
    if provider == "anthropic":
        return {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"},
                "request_id": "req_fake_401"}
    return {"error": {"message": "Incorrect API key provided: test-key***cret. You can find your API key at "
                                 "https://platform.openai.com/account/api-keys.",
                      "type": "invalid_request_error", "param": None, "code": "invalid_api_key"}}


def rate_limit_body(provider):
    if provider == "anthropic":
        return {"type": "error", "error": {"type": "rate_limit_error",
                                           "message": "Number of request tokens has exceeded your per-minute rate limit"}}
    return {"error": {"message": "Rate limit reached for requests", "type": "requests", "param": None,
                      "code": "rate_limit_exceeded"}}


# ---- reading the requests the bot sent --------------------------------------------------------

def texts(value):
    """Every string inside a JSON value, concatenated (what a model would read)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(texts(v) for v in value)
    if isinstance(value, dict):
        return "\n".join(texts(v) for v in value.values())
    return ""


def tool_names(provider, body):
    names = []
    for t in body.get("tools", []):
        if provider == "openai_chat":
            names.append(t.get("function", {}).get("name"))
        else:
            names.append(t.get("name"))
    return names


def tool_results(provider, body):
    """{call id: result text} of every tool result in the request."""
    out = {}
    if provider == "anthropic":
        for m in body.get("messages", []):
            if m.get("role") == "user" and isinstance(m.get("content"), list):
                for b in m["content"]:
                    if b.get("type") == "tool_result":
                        out[b.get("tool_use_id")] = texts(b.get("content"))
    elif provider == "openai_chat":
        for m in body.get("messages", []):
            if m.get("role") == "tool":
                out[m.get("tool_call_id")] = texts(m.get("content"))
    else:
        for item in body.get("input", []):
            if item.get("type") == "function_call_output":
                out[item.get("call_id")] = texts(item.get("output"))
    return out


def echoed_calls(provider, body):
    """[(call id, name, arguments)] of the model's tool calls echoed back in the request."""
    out = []
    if provider == "anthropic":
        for m in body.get("messages", []):
            if m.get("role") == "assistant" and isinstance(m.get("content"), list):
                out += [(b.get("id"), b.get("name"), b.get("input")) for b in m["content"] if b.get("type") == "tool_use"]
    elif provider == "openai_chat":
        for m in body.get("messages", []):
            for c in m.get("tool_calls") or []:
                out.append((c.get("id"), c["function"].get("name"), json.loads(c["function"].get("arguments"))))
    else:
        for it in body.get("input", []):
            if it.get("type") == "function_call":
                out.append((it.get("call_id"), it.get("name"), json.loads(it.get("arguments"))))
    return out


def fake_url(first_body, provider):
    m = re.search(r"http://127\.0\.0\.1:[0-9]+/", task_text(provider, first_body))
    return m.group(0) if m else None


def task_text(provider, body):
    items = body.get("messages" if provider != "openai_responses" else "input", [])
    for m in items:
        if m.get("role") == "user":
            return texts(m.get("content"))
    return ""


# ---- the fake server -------------------------------------------------------------------------

class Fake:
    def __init__(self, provider, scenario, log_path):
        self.provider = provider
        self.scenario = scenario
        self.log_path = log_path
        self.requests = []
        self.lock = threading.Lock()
        self.url = None  # the bundled page, read from the first request's task

    def answer(self, index, body):
        """(status, extra headers, body) for the index-th request (0-based)."""
        p = self.provider
        if self.scenario == "auth_error":
            return 401, {"request-id" if p == "anthropic" else "x-request-id": "req_fake_401"}, auth_error_body(p)
        if self.scenario == "rate_limited":
            if index == 0:
                return 429, {"retry-after": str(RETRY_AFTER_S)}, rate_limit_body(p)
            index -= 1
        if index == 0:
            m = re.search(r"http://127\.0\.0\.1:[0-9]+/", task_text(p, body) if isinstance(body, dict) else "")
            self.url = m.group(0) if m else None
            return 200, {}, tool_call_response(p, 1, CALL1[p], "menu_enter", {"mode": "browser"},
                                               text="I'll open the browser tools.")
        if index == 1:
            return 200, {}, tool_call_response(p, 2, CALL2[p], "browser_navigate",
                                               {"url": self.url or "http://127.0.0.1:1/"})
        if index == 2:
            seen = tool_results(p, body).get(CALL2[p], "") if isinstance(body, dict) else ""
            m = re.search(r'h1 "([^"]+)"', seen)
            heading = m.group(1) if m else "(no heading seen)"
            return 200, {}, answer_response(p, 3, f'{ANSWER_PREFIX} "{heading}".')
        return 400, {}, {"error": {"message": "fake provider: no more responses", "type": "invalid_request_error"}}


def make_handler(fake):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):  # quiet
            pass

        def do_POST(self):
            length = int(self.headers.get("content-length", "0"))
            raw = self.rfile.read(length).decode("utf-8", "replace")
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
            record = {"method": "POST", "path": self.path, "t": time.monotonic(),
                      "headers": {k.lower(): v for k, v in self.headers.items()}, "raw": raw, "body": body}
            with fake.lock:
                index = len(fake.requests)
                fake.requests.append(record)
                with open(fake.log_path, "a", encoding="utf-8") as f:
                    f.write(json.dumps(record) + "\n")
                status, headers, answer = fake.answer(index, body)
            # the answer in words, streamed when the bot asks for a stream (tool calls come whole:
            # a streaming client takes a plain JSON body too)
            streamed = status == 200 and isinstance(body, dict) and body.get("stream") is True and is_text_answer(fake.provider, answer)
            data = (sse_answer(fake.provider, answer) if streamed else json.dumps(answer)).encode()
            self.send_response(status)
            self.send_header("content-type", "text/event-stream" if streamed else "application/json")
            self.send_header("content-length", str(len(data)))
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            self.send_error(405, "the fake provider only takes POST")

    return Handler


# ---- checks ----------------------------------------------------------------------------------

class Failure(Exception):
    pass


def check(cond, what, context=""):
    if not cond:
        raise Failure(what + (("\n" + context) if context else ""))


def check_request(provider, i, rec):
    where = f"request {i + 1}"
    check(rec["path"] == PATHS[provider], f"{where}: POST to {PATHS[provider]}, got {rec['path']}")
    h = rec["headers"]
    check(h.get("content-type", "").startswith("application/json"), f"{where}: content-type application/json", str(h))
    if provider == "anthropic":
        check(h.get("x-api-key") == KEY, f"{where}: x-api-key carries the key", str(h))
        check(h.get("anthropic-version") == "2023-06-01", f"{where}: anthropic-version: 2023-06-01", str(h))
        check("authorization" not in h, f"{where}: no bearer token for Anthropic", str(h))
    else:
        check(h.get("authorization") == "Bearer " + KEY, f"{where}: Authorization: Bearer <key>", str(h))
        check("x-api-key" not in h, f"{where}: no x-api-key for OpenAI", str(h))
    b = rec["body"]
    check(isinstance(b, dict), f"{where}: the body is a JSON object", rec["raw"][:500])
    check(b.get("model") == MODEL, f"{where}: model {MODEL!r}, got {b.get('model')!r}")
    check(isinstance(b.get("tools"), list) and b["tools"], f"{where}: a tools list")
    ctx = json.dumps(b)[:3000]
    if provider == "anthropic":
        check(isinstance(b.get("max_tokens"), int) and b["max_tokens"] > 0, f"{where}: max_tokens", ctx)
        check(b.get("system"), f"{where}: a system prompt", ctx)
        msgs = b.get("messages")
        check(isinstance(msgs, list) and msgs and msgs[0].get("role") == "user", f"{where}: messages start with the user", ctx)
        for k, m in enumerate(msgs):
            check(m.get("role") in ("user", "assistant"), f"{where}: message {k} role user/assistant", ctx)
            if k:
                check(m.get("role") != msgs[k - 1].get("role"), f"{where}: roles alternate", ctx)
        for t in b["tools"]:
            check(isinstance(t.get("name"), str) and t["name"], f"{where}: every tool has a name", json.dumps(t))
            if "type" not in t:  # a custom (client) tool
                check(isinstance(t.get("input_schema"), dict) and t["input_schema"].get("type") == "object",
                      f"{where}: tool {t.get('name')} has an input_schema object", json.dumps(t))
        check(json.dumps(b).count('"cache_control"') <= 4, f"{where}: at most 4 cache_control breakpoints", ctx)
        if "advanced-tool-use" not in h.get("anthropic-beta", ""):  # beta content only with the beta header
            check('"defer_loading"' not in rec["raw"] and '"tool_reference"' not in rec["raw"],
                  f"{where}: no defer_loading / tool_reference without anthropic-beta: advanced-tool-use-...", ctx)
    elif provider == "openai_chat":
        check(isinstance(b.get("max_tokens", b.get("max_completion_tokens")), int), f"{where}: a token limit", ctx)
        msgs = b.get("messages")
        check(isinstance(msgs, list) and msgs and msgs[0].get("role") in ("system", "developer") and msgs[0].get("content"),
              f"{where}: the system prompt first", ctx)
        for t in b["tools"]:
            f = t.get("function", {})
            check(t.get("type") == "function" and isinstance(f.get("name"), str) and isinstance(f.get("parameters"), dict),
                  f"{where}: every tool is {{type: function, function: {{name, parameters}}}}", json.dumps(t))
        for k, m in enumerate(msgs):  # tool messages directly answer the assistant's tool_calls
            if m.get("role") == "assistant" and m.get("tool_calls"):
                ids = [c["id"] for c in m["tool_calls"]]
                following = [x.get("tool_call_id") for x in msgs[k + 1:k + 1 + len(ids)]]
                check(following == ids, f"{where}: tool messages follow their assistant message in order", ctx)
                for c in m["tool_calls"]:
                    check(c.get("type") == "function" and isinstance(c["function"].get("arguments"), str),
                          f"{where}: echoed tool_calls keep arguments as a JSON string", ctx)
    else:
        check(b.get("instructions"), f"{where}: instructions (the system prompt)", ctx)
        check(isinstance(b.get("input"), list) and b["input"], f"{where}: an input list", ctx)
        check(isinstance(b.get("max_output_tokens"), int), f"{where}: max_output_tokens", ctx)
        for t in b["tools"]:
            check(t.get("type") == "function" and isinstance(t.get("name"), str) and isinstance(t.get("parameters"), dict),
                  f"{where}: every tool is {{type: function, name, parameters}}", json.dumps(t))
        calls = {it.get("call_id"): k for k, it in enumerate(b["input"]) if it.get("type") == "function_call"}
        for k, it in enumerate(b["input"]):
            if it.get("type") == "function_call_output":
                check(it.get("call_id") in calls and calls[it["call_id"]] < k,
                      f"{where}: each function_call_output follows its function_call", ctx)
    task = task_text(provider, b)
    check("http://127.0.0.1:" in task and "parcel" in task.lower(), f"{where}: the task names the bundled page", task)


def check_ok_exchange(provider, reqs, out, err, rc):
    both = f"--- stdout ---\n{out}\n--- stderr ---\n{err}"
    check(rc == 0, f"agentkit-bot exited with {rc}", both)
    check(len(reqs) == 3, f"3 requests (tool call, tool call, answer), got {len(reqs)}", both)
    b1, b2, b3 = (r["body"] for r in reqs)
    # the menu: the agent starts at ROOT with menu_enter offered; browser tools appear once entered
    check("menu_enter" in tool_names(provider, b1), "request 1 offers menu_enter", str(tool_names(provider, b1)))
    check("browser_navigate" in tool_names(provider, b2), "request 2 offers browser_navigate",
          str(tool_names(provider, b2)))
    # request 2 echoes the model's call and carries its result under the same id
    r2 = tool_results(provider, b2)
    check(list(r2) == [CALL1[provider]], f"request 2 carries exactly the result of {CALL1[provider]}", json.dumps(b2)[:3000])
    check("browser" in r2[CALL1[provider]].lower(), "the menu_enter result mentions the browser mode", r2[CALL1[provider]])
    check(echoed_calls(provider, b2) == [(CALL1[provider], "menu_enter", {"mode": "browser"})],
          "request 2 echoes the model's menu_enter call with its id and arguments", json.dumps(b2)[:3000])
    check(echoed_calls(provider, b3)[-1] == (CALL2[provider], "browser_navigate", {"url": fake_url(b1, provider)}),
          "request 3 echoes the browser_navigate call", json.dumps(b3)[:3000])
    # request 3 carries the page the browser opened
    r3 = tool_results(provider, b3)
    check(CALL2[provider] in r3, f"request 3 carries the result of {CALL2[provider]}", json.dumps(b3)[:3000])
    page = r3[CALL2[provider]]
    check("Parcel quote" in page and "[ref=" in page, "the browser_navigate result is a snapshot of the bundled page", page)
    check(f'\nResult: {ANSWER_PREFIX} "Parcel quote".\n' in "\n" + out, "the report's Result is the model's answer", both)
    check(re.search(r"\[session\] turns=3 rt=3 in=300 out=30 cache_read=240 ", out),
          "usage fields of the 3 responses add up: in=300 out=30 cache_read=240", both)
    check(re.search(r"\[browser\] calls=1 .* mode=browser", out), "one browser call, ending in browser mode", both)
    check("[site] pages_served=1 " in out, "the bundled page was served once", both)
    check("menu starts at ROOT" in err, "the loop starts at the menu's ROOT", both)
    # the answer was streamed, and the bot showed its words as they came (on stderr, before the report)
    check(reqs[2]["body"].get("stream") is True, "request 3 asks for a stream", json.dumps(reqs[2]["body"])[:500])
    check(f'{ANSWER_PREFIX} "Parcel quote".' in err, "the streamed words are shown on stderr", both)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bot", required=True)
    ap.add_argument("--provider", choices=sorted(PATHS), required=True)
    ap.add_argument("--scenario", choices=["ok", "auth_error", "rate_limited"], default="ok")
    ap.add_argument("--chromium", default="")
    ap.add_argument("--work-dir", default="")
    ap.add_argument("--timeout", type=float, default=120)
    a = ap.parse_args()

    work = a.work_dir or tempfile.mkdtemp(prefix="agentkit-bot-fake-")
    os.makedirs(work, exist_ok=True)
    log_path = os.path.join(work, f"requests-{a.provider}-{a.scenario}.jsonl")
    if os.path.exists(log_path):
        os.remove(log_path)

    fake = Fake(a.provider, a.scenario, log_path)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), make_handler(fake))
    port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    env = {k: v for k, v in os.environ.items()
           if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL",
                        "AGENTKIT_OPENAI_API", "AGENTKIT_MODEL")}
    env["AGENTKIT_MODEL"] = MODEL
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1"
    if a.provider == "anthropic":
        env["ANTHROPIC_API_KEY"] = KEY
        env["ANTHROPIC_BASE_URL"] = f"http://127.0.0.1:{port}"
    else:
        env["OPENAI_API_KEY"] = KEY
        env["OPENAI_BASE_URL"] = f"http://127.0.0.1:{port}/v1/"
        env["AGENTKIT_OPENAI_API"] = "chat" if a.provider == "openai_chat" else "responses"
    cmd = [a.bot]
    if a.chromium:
        cmd += ["--chromium", a.chromium]
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=a.timeout)
    finally:
        server.shutdown()
        server.server_close()
    out, err, rc = proc.stdout, proc.stderr, proc.returncode
    reqs = fake.requests
    both = f"--- stdout ---\n{out}\n--- stderr ---\n{err}\n(requests recorded in {log_path})"

    try:
        check(reqs, "the bot sent at least one request to the fake provider", both)
        for i, rec in enumerate(reqs):
            check_request(a.provider, i, rec)
        url = f"http://127.0.0.1:{port}{PATHS[a.provider]}"
        if a.scenario == "ok":
            check_ok_exchange(a.provider, reqs, out, err, rc)
        elif a.scenario == "rate_limited":
            check(len(reqs) == 4, f"4 requests (429, then the 3 of the exchange), got {len(reqs)}", both)
            check(reqs[0]["raw"] == reqs[1]["raw"], "after the 429 the bot resends the same request body")
            waited = reqs[1]["t"] - reqs[0]["t"]
            check(waited >= RETRY_AFTER_S - 0.05, f"the bot waited Retry-After ({RETRY_AFTER_S} s) before retrying, "
                  f"not its own backoff: {waited:.2f} s", both)
            check_ok_exchange(a.provider, reqs[1:], out.replace("rt=4", "rt=3", 1), err, rc)
            check(re.search(r"\[session\] turns=3 rt=4 ", out), "4 round trips for 3 turns in the metrics", both)
        else:
            check(rc == 1, f"exit status 1 on a provider error, got {rc}", both)
            check(len(reqs) == 1, f"no retry after HTTP 401: 1 request, got {len(reqs)}", both)
            check("agentkit-bot: the model call failed: error[provider.auth]" in err, "a clear provider.auth error", both)
            check(f"(HTTP 401 from {url}, request id req_fake_401)" in err, "the status, URL and request id", both)
            said = "invalid x-api-key" if a.provider == "anthropic" else "Incorrect API key provided"
            check(said in err, "the provider's own message", both)
            check("Check the API key" in err, "what to do about it", both)
            check(out.startswith("Result: (no final answer: stopped: model error — error[provider.auth]"),
                  "the report says why there is no answer", both)
    except Failure as f:
        print(f"FAIL ({a.provider}, {a.scenario}): {f}", file=sys.stderr)
        if "stdout ---" not in str(f):
            print(both, file=sys.stderr)
        return 1
    print(f"ok: agentkit-bot against a fake {a.provider} ({a.scenario}): {len(reqs)} requests checked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
