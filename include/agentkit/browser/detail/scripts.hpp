// agentkit/browser/detail/scripts.hpp — the JavaScript the engine runs in pages: waits (DOM
// quiet, text, element state), element facts and edits, structured extraction and the
// WebSocket guard. Each is a function declaration called with Runtime.callFunctionOn or
// Runtime.evaluate; none runs model-written code.
#pragma once

namespace agentkit::browser::detail {

// A JavaScript function: resolves when the DOM had no mutation for `quiet` ms and no CSS
// transition or animation that ends within the bound is running (a modal's fade, a panel's
// slide: what it shows once it ends is what the action did; endless spinners do not count), or
// `max` ms passed.
inline constexpr const char* kQuietScript = R"JS((quiet, max) => new Promise(resolve => {
  const t0 = performance.now(); let last = t0;
  const mo = new MutationObserver(() => { last = performance.now(); });
  try { mo.observe(document, {subtree: true, childList: true, attributes: true, characterData: true}); } catch (e) {}
  const moving = (now) => {
    try {
      for (const a of document.getAnimations()) {
        if (a.playState !== 'running' || !a.effect) continue;
        const c = a.effect.getComputedTiming();
        if (isFinite(c.endTime) && c.localTime !== null && c.endTime - c.localTime <= max - (now - t0)) return true;
      }
    } catch (e) {}
    return false;
  };
  const tick = () => {
    const now = performance.now();
    const still = now - last >= quiet && !moving(now);
    if (still || now - t0 >= max) { mo.disconnect(); resolve(still ? 'quiet' : 'busy'); }
    else setTimeout(tick, Math.max(16, quiet - (now - last)));
  };
  setTimeout(tick, quiet);
}))JS";

// Deep page text (document + open shadow roots) and a MutationObserver-driven wait on it.
inline constexpr const char* kWaitTextScript = R"JS((needle, gone, timeout) => new Promise(resolve => {
  const deep = (root) => {
    let t = root === document ? (document.body ? document.body.innerText : '') : (root.textContent || '');
    const walk = (r) => { for (const el of r.querySelectorAll('*')) if (el.shadowRoot) { t += '\n' + el.shadowRoot.textContent; walk(el.shadowRoot); } };
    walk(root);
    return t;
  };
  const ok = () => { const has = deep(document).includes(needle); return gone ? !has : has; };
  if (ok()) { resolve(true); return; }
  let done = false, scheduled = false;
  const finish = (v) => { if (done) return; done = true; mo.disconnect(); clearInterval(iv); clearTimeout(to); resolve(v); };
  const check = () => { scheduled = false; if (ok()) finish(true); };
  const mo = new MutationObserver(() => { if (!scheduled) { scheduled = true; setTimeout(check, 0); } });
  mo.observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
  const iv = setInterval(check, 100);
  const to = setTimeout(() => finish(ok()), timeout);
}))JS";

// Element state wait (called on the element).
inline constexpr const char* kWaitStateScript = R"JS(function(state, timeout) {
  const el = this;
  const visible = () => { if (!el.isConnected) return false; const s = getComputedStyle(el); if (s.visibility === 'hidden' || s.display === 'none') return false; const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const checked = () => el.checked === true || el.getAttribute('aria-checked') === 'true';
  const disabled = () => el.disabled === true || el.getAttribute('aria-disabled') === 'true';
  const ok = () => {
    switch (state) {
      case 'visible': return visible();
      case 'hidden': return !visible();
      case 'enabled': return !disabled();
      case 'disabled': return disabled();
      case 'editable': return !disabled() && !el.readOnly;
      case 'checked': return checked();
      case 'unchecked': return !checked();
      case 'gone': return !el.isConnected;
    }
    return false;
  };
  return new Promise(resolve => {
    if (ok()) { resolve(true); return; }
    let done = false;
    const finish = (v) => { if (done) return; done = true; mo.disconnect(); clearInterval(iv); clearTimeout(to); resolve(v); };
    const mo = new MutationObserver(() => { if (ok()) finish(true); });
    mo.observe(el.ownerDocument, {subtree: true, childList: true, attributes: true, characterData: true});
    const iv = setInterval(() => { if (ok()) finish(true); }, 100);
    const to = setTimeout(() => finish(ok()), timeout);
  });
})JS";

inline constexpr const char* kDescribeScript = R"JS(function() {
  const self = this instanceof Node ? this : this.element || this;  // a ::before/::after: its element
  const el = self.nodeType === 1 ? self : self.parentElement;
  if (!el) return '#' + self.nodeName;
  let s = '<' + el.tagName.toLowerCase();
  if (el.id) s += ' id="' + el.id + '"';
  if (typeof el.className === 'string' && el.className.trim()) s += ' class="' + el.className.trim().slice(0, 60) + '"';
  s += '>';
  const t = (el.innerText || el.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 60);
  if (t) s += ' "' + t + '"';
  return s;
})JS";

// The element (or a text node's parent, a pseudo-element's element) and its ancestors as the
// page is rendered (a slotted node's slot first, across shadow roots), nearest first, at most
// 32: what a coordinate action hit, to name it by the nearest ref.
inline constexpr const char* kAncestorsScript = R"JS(function() {
  const up = (x) => x.assignedSlot || x.parentNode || (x instanceof ShadowRoot ? x.host : null);
  const out = [];
  const start = this instanceof Node ? this : this.element;  // a ::before/::after: its element
  for (let x = start; x && out.length < 32; x = up(x)) if (x.nodeType === 1) out.push(x);
  return out;
})JS";

// Whether a click at (x, y) that hit `n` reaches `this`: n is it, inside it as the page is
// rendered, or inside one of its labels (a hit pseudo-element, an icon font's glyph, stands for
// its element). A hit on a slotted text names the text's parent, a shadow host whose own shadow
// tree renders the text inside `this` (a web component's button labelled by its light-DOM
// text): then the host's child at the point decides.
inline constexpr const char* kContainsScript = R"JS(function(n, x, y) {
  const up = (v) => v.assignedSlot || v.parentNode || (v instanceof ShadowRoot ? v.host : null);
  const within = (v, t) => { for (let k = v; k; k = up(k)) if (k === t) return true; return false; };
  if (n && !(n instanceof Node)) n = n.element;  // a ::before/::after was hit: its element
  if (!n) return false;
  if (within(n, this)) return true;
  if (this.labels) for (const l of this.labels) if (within(n, l)) return true;
  if (!n.shadowRoot || typeof x !== 'number' || typeof y !== 'number') return false;
  for (const c of n.childNodes) {
    if (!c.assignedSlot || !within(c.assignedSlot, this)) continue;
    let rects = [];
    if (c.nodeType === 1) rects = c.getClientRects();
    else if (c.nodeType === 3) { const r = document.createRange(); r.selectNodeContents(c); rects = r.getClientRects(); }
    for (const b of rects) if (x >= b.left && x <= b.right && y >= b.top && y <= b.bottom) return true;
  }
  return false;
})JS";

// Where a person clicks a checkbox, radio or switch the page hides (a 0x0 or clipped native
// input under a styled toggle): its first visible label, else the nearest visible element around
// it (three levels at most, not the body) that holds no other control. null: none, or not such a
// control.
inline constexpr const char* kStandInScript = R"JS(function() {
  const t = (this.type || '').toLowerCase(), r = (this.getAttribute && this.getAttribute('role')) || '';
  if (!(t === 'checkbox' || t === 'radio' || r === 'switch' || r === 'checkbox' || r === 'radio')) return null;
  const shown = (e) => { const b = e.getBoundingClientRect(); return b.width >= 1 && b.height >= 1 && getComputedStyle(e).visibility !== 'hidden'; };
  if (this.labels) for (const l of this.labels) if (shown(l)) return l;
  const others = 'input,button,select,textarea,a[href],[role=button],[role=switch],[role=checkbox],[role=radio],[role=link]';
  let e = this.parentElement;
  for (let up = 0; e && up < 3 && e !== document.body && e !== document.documentElement; ++up, e = e.parentElement) {
    if ([...e.querySelectorAll(others)].some((o) => o !== this)) return null;
    if (shown(e)) return e;
  }
  return null;
})JS";

inline constexpr const char* kInfoScript = R"JS(function() {
  return {connected: this.isConnected, tag: (this.tagName || '').toLowerCase(), type: (this.type || '').toLowerCase(),
          checked: this.checked === true || this.getAttribute && this.getAttribute('aria-checked') === 'true',
          checkable: this.type === 'checkbox' || this.type === 'radio' || !!(this.getAttribute && this.getAttribute('aria-checked') !== null),
          multiple: !!this.multiple, disabled: !!this.disabled, editable: !!this.isContentEditable, readonly: this.readOnly === true};
})JS";

inline constexpr const char* kSelectAllScript = R"JS(function() {
  if ((this.tagName === 'INPUT' || this.tagName === 'TEXTAREA') && this.select) { this.select(); return 'input'; }
  if (this.isContentEditable) { const r = document.createRange(); r.selectNodeContents(this); const s = getSelection(); s.removeAllRanges(); s.addRange(r); return 'editable'; }
  return 'other';
})JS";

inline constexpr const char* kSetValueScript = R"JS(function(v) {
  const proto = this.tagName === 'TEXTAREA' ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(proto, 'value').set.call(this, v);
  this.dispatchEvent(new Event('input', {bubbles: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return this.value;
})JS";

inline constexpr const char* kSelectScript = R"JS(function(wanted) {
  if (this.tagName !== 'SELECT') return {error: 'not_select', tag: this.tagName.toLowerCase()};
  const opts = [...this.options];
  const label = (o) => (o.label || o.text || '').trim();
  const picked = [], missing = [];
  for (const w of wanted) {
    const o = opts.find(o => o.value === w) || opts.find(o => label(o) === w) ||
              opts.find(o => label(o).toLowerCase() === String(w).toLowerCase());
    if (!o) missing.push(w); else if (!picked.includes(o)) picked.push(o);
  }
  const available = opts.map(o => label(o) + (o.value !== label(o) ? ' (value ' + o.value + ')' : ''));
  if (missing.length) return {error: 'missing', missing, available};
  if (!this.multiple && picked.length > 1) return {error: 'single', available};
  const dis = picked.filter(o => o.disabled).map(label);
  if (dis.length || this.disabled) return {error: 'disabled', disabled: dis};
  for (const o of opts) o.selected = picked.includes(o);
  this.dispatchEvent(new Event('input', {bubbles: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return {selected: picked.map(label)};
})JS";

// Structured extraction, called on an element (or the document): a table as rows, a list, or the
// fields of a small schema found by their labels. No model-written code runs.
inline constexpr const char* kExtractScript = R"JS(function(kind, schema, maxItems) {
  const root = this.nodeType === 9 ? (this.body || this.documentElement) : this;
  const txt = (el) => (el ? (el.innerText !== undefined && el.innerText !== null ? el.innerText : (el.textContent || '')) : '').replace(/\s+/g, ' ').trim();
  const clip = (s) => s.length > 500 ? s.slice(0, 500) + '…' : s;
  const within = (sel) => (root.matches && root.matches(sel)) ? [root] : [...root.querySelectorAll(sel)];
  const table = () => {
    const t = within('table')[0];
    if (t) {
      const rows = [...t.rows];
      const thead = t.tHead && t.tHead.rows.length ? t.tHead.rows[t.tHead.rows.length - 1] : null;
      let headers = [], start = 0;
      if (thead) { headers = [...thead.cells].map(txt); start = 0; }
      else if (rows.length && [...rows[0].cells].every(c => c.tagName === 'TH')) { headers = [...rows[0].cells].map(txt); start = 1; }
      const out = [];
      let total = 0;
      for (let i = start; i < rows.length; i++) {
        const r = rows[i];
        if (t.tHead && t.tHead.contains(r)) continue;
        const cells = [...r.cells].map(txt);
        if (!cells.length || cells.every(c => !c)) continue;
        total++;
        if (out.length >= maxItems) continue;
        if (headers.length) { const o = {}; cells.forEach((c, j) => { o[headers[j] || ('column ' + (j + 1))] = clip(c); }); out.push(o); }
        else out.push(cells.map(clip));
      }
      return {kind: 'table', headers, rows: out, total_rows: total, caption: t.caption ? txt(t.caption) : undefined};
    }
    const g = within('[role=table],[role=grid],[role=treegrid]')[0];
    if (!g) return {kind: 'table', error: 'no table here'};
    const rows = [...g.querySelectorAll('[role=row]')];
    let headers = [];
    const out = [];
    let total = 0;
    for (const r of rows) {
      const hs = [...r.querySelectorAll('[role=columnheader]')];
      if (hs.length && !headers.length) { headers = hs.map(txt); continue; }
      const cells = [...r.querySelectorAll('[role=cell],[role=gridcell],[role=rowheader]')].map(txt);
      if (!cells.length) continue;
      total++;
      if (out.length >= maxItems) continue;
      if (headers.length) { const o = {}; cells.forEach((c, j) => { o[headers[j] || ('column ' + (j + 1))] = clip(c); }); out.push(o); }
      else out.push(cells.map(clip));
    }
    return {kind: 'table', headers, rows: out, total_rows: total};
  };
  const list = () => {
    let items = [];
    const l = within('ul,ol')[0];
    if (l) items = [...l.children].filter(c => c.tagName === 'LI');
    else { const al = within('[role=list]')[0]; if (al) items = [...al.querySelectorAll('[role=listitem]')]; }
    if (!items.length) {
      const kids = [...root.children];
      const tags = {};
      for (const k of kids) { const key = k.tagName + '.' + (typeof k.className === 'string' ? k.className : ''); tags[key] = (tags[key] || 0) + 1; }
      const best = Object.entries(tags).sort((a, b) => b[1] - a[1])[0];
      if (best && best[1] >= 2) items = kids.filter(k => k.tagName + '.' + (typeof k.className === 'string' ? k.className : '') === best[0]);
    }
    if (!items.length) return {kind: 'list', error: 'no list here'};
    const out = items.slice(0, maxItems).map(it => {
      const o = {text: clip(txt(it))};
      const a = it.matches('a[href]') ? it : it.querySelector('a[href]');
      if (a) o.link = a.href;
      return o;
    });
    return {kind: 'list', items: out, total_items: items.length};
  };
  const norm = (s) => String(s || '').toLowerCase().replace(/[^a-z0-9]+/g, '');
  const fields = () => {
    const pairs = [];
    const add = (label, value, el) => { label = txt({innerText: String(label || '')}); if (label && value !== undefined && value !== null) pairs.push([label, String(value).replace(/\s+/g, ' ').trim(), el]); };
    for (const dt of root.querySelectorAll('dt')) { let dd = dt.nextElementSibling; while (dd && dd.tagName !== 'DD' && dd.tagName !== 'DT') dd = dd.nextElementSibling; if (dd && dd.tagName === 'DD') add(txt(dt), txt(dd), dd); }
    for (const tr of root.querySelectorAll('tr')) { const c = [...tr.cells]; if (c.length === 2) add(txt(c[0]), txt(c[1]), c[1]); }
    for (const el of within('[itemprop]')) add(el.getAttribute('itemprop'), el.getAttribute('content') || el.getAttribute('datetime') || (el.value !== undefined && el.tagName !== 'LI' ? el.value : null) || txt(el), el);
    for (const el of within('[data-field]')) add(el.getAttribute('data-field'), txt(el), el);
    for (const el of within('input,select,textarea')) {
      const lab = (el.labels && el.labels[0]) ? txt(el.labels[0]) : (el.getAttribute('aria-label') || el.name || el.id);
      const v = el.type === 'checkbox' || el.type === 'radio' ? (el.checked ? 'true' : 'false') : el.type === 'password' ? '' : el.value;
      add(lab, v, el);
      if (el.name) add(el.name, v, el);
    }
    for (const el of within('[aria-label]')) if (!/^(INPUT|SELECT|TEXTAREA|BUTTON|A)$/.test(el.tagName)) add(el.getAttribute('aria-label'), txt(el), el);
    for (const el of root.querySelectorAll('p,li,span,div,td,label,strong,b')) {
      if (el.children.length > 3) continue;
      const t = txt(el);
      const m = t.length < 200 && t.match(/^([^:]{1,60}):\s*(.+)$/);
      if (m) add(m[1], m[2], el);
    }
    const h = within('h1')[0];
    if (h) { add('title', txt(h), h); add('heading', txt(h), h); add('name', txt(h), h); }
    const props = schema && schema.properties && typeof schema.properties === 'object' ? schema.properties : (schema || {});
    const out = {}, missing = [], sources = {};
    for (const [name, spec0] of Object.entries(props)) {
      const spec = typeof spec0 === 'string' ? {type: spec0} : (spec0 || {});
      const keys = [norm(name)];
      if (spec.label) keys.push(norm(spec.label));
      if (spec.description) keys.push(norm(spec.description));
      let hit = pairs.find(p => keys.includes(norm(p[0])));
      if (!hit) hit = pairs.find(p => keys.some(k => k.length >= 3 && (norm(p[0]).includes(k) || (norm(p[0]).length >= 3 && k.includes(norm(p[0]))))));
      if (!hit) { out[name] = null; missing.push(name); continue; }
      let v = hit[1];
      const type = spec.type || 'string';
      if (type === 'number' || type === 'integer') {
        const m = v.replace(/(\d),(?=\d{3}\b)/g, '$1').match(/-?\d+(\.\d+)?/);
        v = m ? (type === 'integer' ? parseInt(m[0], 10) : parseFloat(m[0])) : null;
        if (v === null) missing.push(name);
      } else if (type === 'boolean') {
        v = /^(true|yes|on|checked|1|in stock|available)$/i.test(v.trim());
      } else if (type === 'array') {
        v = v.split(/\s*[,;]\s*/).filter(Boolean);
      } else v = clip(v);
      out[name] = v;
      sources[name] = hit[0];
    }
    return {kind: 'fields', fields: out, missing, labels: sources};
  };
  if (kind === 'table') return table();
  if (kind === 'list') return list();
  if (kind === 'fields') return fields();
  const t = table();
  if (!t.error) return t;
  return list();
})JS";

// WebSocket connections are not seen by request interception. The WebSocket gate (a SOCKS5 proxy
// for agentkit's browser context, socket_gate.hpp) enforces the policy on them in the network
// stack when it is in use; this guard in every page and iframe refuses them first, with a clear
// error in the page, by the same origin rules (patterns parsed in C++), and reports through a
// binding. Alone it is partial: workers and the native constructor escape it.
// Console arguments cut to 1,000 characters before the browser serialises them (the console
// buffer keeps 2,000 per message, so the note saying the size stays): a page logging
// megabytes in a loop would otherwise hold the browser's DevTools pipe (and every call waiting
// on it) for as long as it takes to send them all. Installed in every page and frame; a page
// that fetches the native console from elsewhere is still bounded by the connection's summary
// of oversized events and the stop after max_oversized_console of them.
inline constexpr const char* kConsoleClipScript = R"JS((() => {
  const c = globalThis.console;
  if (!c || c.__agentkitClipped) return;
  const max = 1000;
  const clip = (v) => typeof v === 'string' && v.length > max ? v.slice(0, max) + '… (' + v.length + ' characters)' : v;
  for (const k of ['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir', 'dirxml', 'table', 'assert', 'group', 'groupCollapsed', 'timeLog']) {
    const f = c[k];
    if (typeof f !== 'function') continue;
    const w = {[k](...a) { return f.apply(this, a.map(clip)); }}[k];
    try { Object.defineProperty(c, k, {value: w, writable: true, configurable: true, enumerable: true}); } catch (e) {}
  }
  try { Object.defineProperty(c, '__agentkitClipped', {value: true}); } catch (e) {}
})())JS";

inline constexpr const char* kSocketGuardScript = R"JS((() => {
  const rules = __AGENTKIT_RULES__;
  // WebRTC and WebTransport never pass request interception (WebRTC's UDP is off outside a
  // proxy; TURN over TCP and QUIC are not): under origin lists a page has neither
  for (const k of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'WebTransport']) {
    try { Object.defineProperty(window, k, {value: undefined, writable: false, configurable: false}); } catch (e) {}
  }
  const Native = window.WebSocket;
  if (!Native || Native.__agentkitGuarded) return;
  const report = window.__agentkitBlocked;
  const dport = (s) => (s === 'https:' || s === 'wss:') ? 443 : 80;
  // the host spelled as policy_detail::canonical_host() spells it (URL() has already made
  // numeric, full-width and Unicode forms canonical): every spelling of this machine is localhost
  const canon = (h) => {
    const m = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(h);
    if (m) { const a = parseInt(m[1], 16), b = parseInt(m[2], 16); h = [a >> 8, a & 255, b >> 8, b & 255].join('.'); }
    if (h === 'localhost' || h.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(h) || h === '[::1]' || h === '[::]' || h === '0.0.0.0') return 'localhost';
    return h;
  };
  const matches = (p, u) => {
    const sch = u.protocol.slice(0, -1);
    if (p.scheme) {
      const same = p.scheme === sch || (p.scheme === 'http' && sch === 'ws') || (p.scheme === 'https' && sch === 'wss') ||
                   (p.scheme === 'ws' && sch === 'http') || (p.scheme === 'wss' && sch === 'https');
      if (!same) return false;
    }
    const port = u.port ? Number(u.port) : dport(u.protocol);
    if (p.port >= 0 && p.port !== port) return false;
    const h = canon(u.hostname.toLowerCase().replace(/\.$/, ''));
    if (p.host === '*') return true;
    if (p.host.startsWith('*.')) { const d = p.host.slice(2); return h === d || h.endsWith('.' + d); }
    return h === p.host;
  };
  const verdict = (url) => {
    let u;
    try { u = new URL(url, location.href); } catch (e) { return null; }
    for (const p of rules.blocked) if (matches(p, u)) return 'blocked_origins: ' + p.text;
    if (rules.allowed.length && !rules.allowed.some(p => matches(p, u))) return 'allowed_origins: not in the allowed list';
    return null;
  };
  const Guarded = function(url, protocols) {
    const why = verdict(String(url));
    if (why) {
      try { if (report) report(JSON.stringify({url: String(new URL(String(url), location.href)), rule: why, type: 'WebSocket'})); } catch (e) {}
      throw new DOMException('WebSocket to ' + url + ' blocked by the browser policy (' + why + ')', 'SecurityError');
    }
    return protocols === undefined ? new Native(url) : new Native(url, protocols);
  };
  Guarded.prototype = Native.prototype;
  for (const k of ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED']) Guarded[k] = Native[k];
  Guarded.__agentkitGuarded = true;
  Object.defineProperty(window, 'WebSocket', {value: Guarded, writable: false, configurable: false});
})())JS";

}  // namespace agentkit::browser::detail
