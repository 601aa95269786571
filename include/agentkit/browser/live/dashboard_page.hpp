// agentkit/browser/live/dashboard_page.hpp — the live view's page, served from the binary by
// browser/live/dashboard.hpp: HTML, one script and one stylesheet, no framework, nothing from the
// network (the Content-Security-Policy forbids it anyway: no inline script or style).
//
// The page shows the views (agents) and their tabs, the live screen (JPEG frames over the
// WebSocket, each acknowledged once shown: the server sends the next only then), the step
// timeline with artifact links, the console and network of the current tab, and the controls
// (pause, resume, step, take control, hand back). While a person has control, mouse, wheel and
// keyboard events on the screen are forwarded in CSS pixels of the agent's viewport.
// Page text is only ever set with textContent, never parsed as HTML.
#pragma once

#include <string>
#include <string_view>

namespace agentkit::browser {

/// The dashboard's HTML; `{{TOKEN}}` is replaced by the server's token (URL-safe characters only).
inline constexpr std::string_view dashboard_html = R"html(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<title>agentkit live view</title>
<link rel="stylesheet" href="/app.css?token={{TOKEN}}">
<script src="/app.js?token={{TOKEN}}" defer></script>
</head>
<body>
<header>
  <strong>agentkit live view</strong>
  <select id="view" aria-label="view"></select>
  <span id="gate" class="gate">connecting</span>
  <button id="pause">Pause</button>
  <button id="resume">Resume</button>
  <button id="step">Step</button>
  <button id="take">Take control</button>
  <button id="handback">Hand back</button>
  <span id="status"></span>
</header>
<main>
  <section id="left">
    <ul id="tabs"></ul>
    <div id="screenbox" tabindex="0"><img id="screen" alt="the agent's screen" draggable="false"></div>
    <div id="frameinfo"></div>
    <pre id="report"></pre>
  </section>
  <section id="right">
    <h2>Steps</h2>
    <ol id="steps"></ol>
    <h2>Console <button id="refresh">Refresh</button></h2>
    <ul id="console"></ul>
    <h2>Network</h2>
    <ul id="network"></ul>
  </section>
</main>
</body>
</html>
)html";

/// The dashboard's stylesheet.
inline constexpr std::string_view dashboard_css = R"css(
body { font: 13px/1.4 system-ui, sans-serif; margin: 0; background: #f4f4f4; color: #222; }
header { display: flex; gap: 8px; align-items: center; padding: 6px 10px; background: #222; color: #eee; }
header button { font: inherit; }
.gate { padding: 2px 8px; border-radius: 3px; background: #2a6; color: #fff; }
.gate.paused { background: #c80; }
.gate.controlled { background: #c33; }
main { display: flex; gap: 10px; padding: 10px; }
#left { flex: 3; min-width: 0; }
#right { flex: 2; min-width: 0; max-height: calc(100vh - 60px); overflow: auto; }
#screenbox { background: #000; display: inline-block; max-width: 100%; outline: none; }
#screenbox.controlled { box-shadow: 0 0 0 3px #c33; cursor: crosshair; }
#screen { display: block; max-width: 100%; user-select: none; }
#tabs { list-style: none; padding: 0; margin: 0 0 6px; display: flex; gap: 6px; flex-wrap: wrap; }
#tabs li { background: #ddd; padding: 2px 6px; border-radius: 3px; max-width: 30em; overflow: hidden; white-space: nowrap; text-overflow: ellipsis; }
#tabs li.active { background: #9cf; }
#steps li { background: #fff; margin: 4px 0; padding: 4px 6px; border-left: 4px solid #2a6; }
#steps li.waiting { border-color: #c80; }
#steps li.running { border-color: #69c; }
#steps li.error { border-color: #c33; }
#steps .args, #steps .head, #steps .err { white-space: pre-wrap; font-family: monospace; font-size: 12px; margin: 2px 0; }
#steps .err { color: #c33; }
#console li, #network li { font-family: monospace; font-size: 12px; white-space: pre-wrap; }
#report { white-space: pre-wrap; background: #fff; padding: 4px; }
h2 { font-size: 14px; margin: 10px 0 4px; }
)css";

/// The dashboard's script.
inline constexpr std::string_view dashboard_js = R"js('use strict';
(function () {
  const token = new URL(document.currentScript.src).searchParams.get('token');
  const $ = (id) => document.getElementById(id);
  const q = (path, params) => {
    const u = new URL(path, location.origin);
    u.searchParams.set('token', token);
    for (const [k, v] of Object.entries(params || {})) u.searchParams.set(k, v);
    return u;
  };
  const state = { view: null, ws: null, meta: null, url: null, frames: 0, lastSeq: 0, gate: null, steps: new Map() };
  window.agentkitLive = state;  // for tests and for the curious
  // every change is announced, so a waiting script (a test, an extension) is woken, not polling
  const changed = () => document.dispatchEvent(new Event('agentkit:update'));

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  async function loadViews() {
    const r = await fetch(q('/api/views'));
    const views = await r.json();
    const sel = $('view');
    sel.textContent = '';
    for (const v of views) sel.appendChild(el('option', '', v.name));
    if (views.length && !state.view) connect(views[0].name);
    state.views = views;
    renderTabs(views.find((v) => v.name === state.view));
    changed();
  }

  function renderTabs(v) {
    const ul = $('tabs');
    ul.textContent = '';
    if (!v) return;
    for (const t of v.tabs) {
      const li = el('li', t.active ? 'active' : '', t.id + ': ' + (t.title || t.url));
      li.title = t.url;
      ul.appendChild(li);
    }
  }

  function renderGate(g) {
    state.gate = g;
    const s = $('gate');
    s.className = 'gate ' + g.mode;
    s.textContent = g.mode + (g.waiting ? ' (' + g.waiting + ' waiting: ' + g.waiting_tool + ')' : '');
    $('screenbox').classList.toggle('controlled', g.mode === 'controlled');
  }

  function renderStep(s) {
    state.steps.set(s.id, s);
    let li = document.getElementById('step-' + s.id);
    if (!li) {
      li = el('li');
      li.id = 'step-' + s.id;
      $('steps').appendChild(li);
    }
    li.className = s.state;
    li.textContent = '';
    const when = new Date(s.started_ms).toLocaleTimeString();
    li.appendChild(el('div', 'title', '#' + s.id + ' ' + s.tool + ' — ' + s.state + ' — ' + when +
      (s.state === 'ok' || s.state === 'error' ? ' — ' + s.ms + ' ms, ~' + s.tokens + ' tokens' : '')));
    li.appendChild(el('div', 'args', JSON.stringify(s.args)));
    if (s.head) li.appendChild(el('div', 'head', s.head));
    if (s.error) li.appendChild(el('div', 'err', s.error));
    for (const a of s.artifacts) {
      const link = el('a', 'artifact', a);
      link.href = q('/artifact', { view: state.view, id: a }).toString();
      link.target = '_blank';
      link.rel = 'noopener noreferrer';
      li.appendChild(link);
      li.appendChild(document.createTextNode(' '));
    }
  }

  async function loadEvents() {
    if (!state.view) return;
    for (const kind of ['console', 'network']) {
      const r = await fetch(q('/api/events', { view: state.view, kind }));
      if (!r.ok) continue;
      const items = await r.json();
      const ul = $(kind);
      ul.textContent = '';
      for (const i of items.slice(-200))
        ul.appendChild(el('li', '', kind === 'console' ? '[' + i.level + '] ' + i.text
          : i.method + ' ' + i.status + ' ' + i.url + (i.error ? ' (' + i.error + ')' : '')));
    }
    changed();
  }

  // The tabs, console and network lists are read again once the agent's calls pause (250 ms
  // after the last step ended, at most 1 s after the first): a burst of calls costs the agent's
  // machine one refresh, not three requests per call.
  let refreshTimer = 0, refreshBy = 0;
  function refreshSoon() {
    const now = Date.now();
    if (!refreshTimer) refreshBy = now + 1000;
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(() => { refreshTimer = 0; loadViews(); loadEvents(); }, Math.max(0, Math.min(250, refreshBy - now)));
  }

  function send(o) { if (state.ws && state.ws.readyState === 1) state.ws.send(JSON.stringify(o)); }

  function connect(name) {
    if (state.ws) state.ws.close();
    state.view = name;
    state.steps.clear();
    $('steps').textContent = '';
    const u = q('/ws', { view: name });
    u.protocol = 'ws:';
    const ws = new WebSocket(u.toString());
    ws.binaryType = 'blob';
    state.ws = ws;
    ws.onmessage = (m) => {
      if (typeof m.data !== 'string') {
        const meta = state.meta;
        const url = URL.createObjectURL(m.data);
        const img = $('screen');
        img.onload = () => {
          if (state.url) URL.revokeObjectURL(state.url);
          state.url = url;
          state.frames++;
          state.lastSeq = meta.seq;
          $('frameinfo').textContent = 'frame ' + meta.seq + ' (' + Math.round(meta.css_width) + '×' + Math.round(meta.css_height) + ' CSS px)';
          send({ type: 'ack', seq: meta.seq });
          changed();
        };
        img.onerror = () => send({ type: 'ack', seq: meta.seq });
        img.src = url;
        return;
      }
      const e = JSON.parse(m.data);
      if (e.type === 'frame') state.meta = e;
      else if (e.type === 'hello') { renderGate(e.view.gate); renderTabs(e.view); for (const s of e.steps) renderStep(s); loadEvents(); }
      else if (e.type === 'gate') renderGate(e.gate);
      else if (e.type === 'step') { renderStep(e.step); if (e.step.state === 'ok' || e.step.state === 'error') refreshSoon(); }
      else if (e.type === 'report') { $('report').textContent = e.text; state.report = e.text; }
      else if (e.type === 'error') { $('status').textContent = e.message; state.lastError = e.message; }
      changed();
    };
    ws.onopen = () => { state.open = true; if (document.hidden) send({ type: 'visibility', visible: false }); changed(); };
    ws.onclose = () => { state.open = false; $('status').textContent = 'disconnected'; changed(); };
  }

  // a hidden page takes no frames (the browser then encodes none for it)
  document.addEventListener('visibilitychange', () => send({ type: 'visibility', visible: !document.hidden }));
  $('view').onchange = (e) => connect(e.target.value);
  $('pause').onclick = () => send({ type: 'pause' });
  $('resume').onclick = () => send({ type: 'resume' });
  $('step').onclick = () => send({ type: 'step' });
  $('take').onclick = () => { send({ type: 'take' }); $('screenbox').focus(); };
  $('handback').onclick = () => send({ type: 'handback' });
  $('refresh').onclick = loadEvents;

  // A person's input, while they have control, in CSS pixels of the agent's viewport.
  const box = $('screenbox'), img = $('screen');
  const controlled = () => state.gate && state.gate.mode === 'controlled' && state.meta;
  const point = (e) => {
    const r = img.getBoundingClientRect();
    return { x: (e.clientX - r.left) / r.width * state.meta.css_width, y: (e.clientY - r.top) / r.height * state.meta.css_height };
  };
  const mods = (e) => (e.altKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.metaKey ? 4 : 0) | (e.shiftKey ? 8 : 0);
  const buttons = ['left', 'middle', 'right'];
  const mouse = (kind) => (e) => {
    if (!controlled()) return;
    e.preventDefault();
    const p = point(e);
    send({ type: 'input', event: { type: 'mouse', event: kind, x: p.x, y: p.y, button: kind === 'mouseMoved' ? 'none' : buttons[e.button] || 'left',
      clickCount: kind === 'mouseMoved' ? 0 : (e.detail || 1), modifiers: mods(e) } });
  };
  img.addEventListener('mousedown', mouse('mousePressed'));
  img.addEventListener('mouseup', mouse('mouseReleased'));
  let lastMove = 0;
  img.addEventListener('mousemove', (e) => { const t = performance.now(); if (t - lastMove > 30) { lastMove = t; mouse('mouseMoved')(e); } });
  img.addEventListener('wheel', (e) => {
    if (!controlled()) return;
    e.preventDefault();
    const p = point(e);
    send({ type: 'input', event: { type: 'mouse', event: 'mouseWheel', x: p.x, y: p.y, deltaX: e.deltaX, deltaY: e.deltaY, modifiers: mods(e) } });
  }, { passive: false });
  img.addEventListener('contextmenu', (e) => { if (controlled()) e.preventDefault(); });
  box.addEventListener('keydown', (e) => {
    if (!controlled()) return;
    e.preventDefault();
    const printable = e.key.length === 1 && !e.ctrlKey && !e.metaKey;
    send({ type: 'input', event: { type: 'key', event: printable ? 'keyDown' : 'rawKeyDown', key: e.key, code: e.code, text: printable ? e.key : '',
      keyCode: e.keyCode, modifiers: mods(e) } });
  });
  box.addEventListener('keyup', (e) => {
    if (!controlled()) return;
    e.preventDefault();
    send({ type: 'input', event: { type: 'key', event: 'keyUp', key: e.key, code: e.code, keyCode: e.keyCode, modifiers: mods(e) } });
  });
  box.addEventListener('paste', (e) => {
    if (!controlled()) return;
    e.preventDefault();
    const t = e.clipboardData.getData('text');
    if (t) send({ type: 'input', event: { type: 'text', text: t } });
  });

  loadViews();
})();
)js";

}  // namespace agentkit::browser
