// agentkit/browser/detail/aria_script.hpp — the page as Playwright MCP's aria snapshot ("ai"
// mode) writes it, computed in the page: roles, names, states, refs (e1, f1e2) and the clean-up
// pass, then the YAML; and the locator Playwright code names an element by. Runs in agentkit's
// isolated world (its state is invisible to the page). Written from the rules Playwright's
// output follows (checked line by line against Playwright's own snapshots of the same pages).
// Over 1,000 lines because it is one script, shipped whole to the page: the snapshot, the
// locators and the testing tools' queries share its role, name, visibility and text rules, and
// splitting it would split those rules across strings (or ship them twice).
#pragma once

namespace agentkit::browser::detail {

/// `function(opts)` → {yaml, nextSeq}, or {error: "ref"} when opts.rootRef names no element.
/// opts: mainSeq (the main frame's number, 0: no prefix), nextSeq (the next frame number),
/// depth (0: all), boxes, rootRef, testIdAttribute. Keeps the snapshot's refs for kAriaElementScript.
/// opts.query instead: the testing tools' questions, answered with the same roles, names and text
/// rules: {kind: 'role', role, name} or {kind: 'text', text} → {locator} (null: nothing found) of
/// the first match in the page and its same-origin frames; with opts.stateless, called on an
/// element (`this`, in any world, leaving nothing behind): {kind: 'items', items} →
/// {texts} or {missing} (without an element: in the whole page), {kind: 'value'} → {value, checked}, {kind: 'locator'} → {locator}.
/// {kind: 'lines', lines, text | regex}
/// → {matched: [line indices], query} or {error}: JavaScript's own case folding and RegExp
/// ("/re/flags" or a bare pattern) for browser_find.
inline constexpr const char* kAriaSnapshotScript = R"JS(function(opts) {
  // agentkit: the page as Playwright MCP's aria snapshot ("ai" mode) writes it, with its refs.
  // Runs in agentkit's isolated world; its state (refs of the last snapshot, each element's
  // cached ref, per-document counters, frame numbers) lives there, invisible to the page.
  opts = opts || {};
  const scopeEl = opts.stateless ? this : null;
  const fresh = () => ({
    refs: new Map(), cache: new WeakMap(), counters: new WeakMap(), seqOf: new WeakMap(), nextSeq: 1,
    lastList: [],
  });
  const S = opts.stateless ? fresh() : (window.__akAria || (window.__akAria = fresh()));
  if (typeof opts.nextSeq === 'number' && opts.nextSeq > S.nextSeq) S.nextSeq = opts.nextSeq;

  const kRoles = new Set(('alert alertdialog application article banner blockquote button caption cell checkbox code ' +
    'columnheader combobox complementary composite contentinfo definition deletion dialog directory document emphasis ' +
    'feed figure form generic grid gridcell group heading img input insertion landmark link list listbox listitem log ' +
    'main mark marquee math meter menu menubar menuitem menuitemcheckbox menuitemradio navigation none note option ' +
    'paragraph presentation progressbar radio radiogroup range region roletype row rowgroup rowheader scrollbar search ' +
    'searchbox section sectionhead select separator slider spinbutton status strong structure subscript superscript ' +
    'switch tab table tablist tabpanel term textbox time timer toolbar tooltip tree treegrid treeitem widget window').split(' '));
  const kGlobalAria = ['aria-atomic', 'aria-busy', 'aria-controls', 'aria-current', 'aria-describedby', 'aria-details',
    'aria-dropeffect', 'aria-flowto', 'aria-grabbed', 'aria-hidden', 'aria-keyshortcuts', 'aria-live', 'aria-owns',
    'aria-relevant', 'aria-label', 'aria-labelledby', 'aria-roledescription'];
  const kNoName = new Set(['caption', 'code', 'definition', 'deletion', 'emphasis', 'generic', 'insertion', 'mark',
    'paragraph', 'presentation', 'strong', 'subscript', 'suggestion', 'superscript', 'term', 'time']);
  const kFromContent = new Set(['button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'row', 'rowheader', 'switch', 'tab', 'tooltip', 'treeitem']);
  const kDescendantContent = new Set(['none', '', 'caption', 'code', 'contentinfo', 'definition', 'deletion', 'emphasis',
    'insertion', 'list', 'listitem', 'mark', 'paragraph', 'presentation', 'region', 'row', 'rowgroup', 'section',
    'strong', 'subscript', 'superscript', 'table', 'term', 'time']);
  const kChecked = new Set(['checkbox', 'menuitemcheckbox', 'option', 'radio', 'switch', 'menuitemradio', 'treeitem']);
  const kDisabled = new Set(['application', 'button', 'composite', 'gridcell', 'group', 'input', 'link', 'menuitem',
    'scrollbar', 'separator', 'tab', 'checkbox', 'columnheader', 'combobox', 'grid', 'listbox', 'menu', 'menubar',
    'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'radiogroup', 'row', 'rowheader', 'searchbox', 'select',
    'slider', 'spinbutton', 'switch', 'tablist', 'textbox', 'toolbar', 'tree', 'treegrid', 'treeitem']);
  const kExpanded = new Set(['application', 'button', 'checkbox', 'combobox', 'gridcell', 'link', 'listbox', 'menuitem',
    'row', 'rowheader', 'tab', 'treeitem', 'columnheader', 'menuitemcheckbox', 'menuitemradio', 'switch']);
  const kInvalid = new Set(['application', 'checkbox', 'columnheader', 'combobox', 'gridcell', 'listbox', 'radiogroup',
    'rowheader', 'searchbox', 'slider', 'spinbutton', 'switch', 'textbox', 'tree']);
  const kLevel = new Set(['heading', 'listitem', 'row', 'treeitem']);
  const kSelected = new Set(['gridcell', 'option', 'row', 'tab', 'rowheader', 'columnheader', 'treeitem']);

  const styleCache = new Map();
  const style = (el, pseudo) => {
    const key = pseudo ? null : el;
    if (key && styleCache.has(key)) return styleCache.get(key);
    const view = el.ownerDocument.defaultView;
    const s = view ? view.getComputedStyle(el, pseudo) : null;
    if (key) styleCache.set(key, s);
    return s;
  };
  const tag = el => el.localName ? el.localName.toUpperCase() : '';
  const parentOf = el => el.parentElement || (el.parentNode && el.parentNode.host) || null;
  const attr = (el, n) => el.getAttribute(n);

  function styleVisible(el) {
    const s = style(el);
    if (!s) return true;
    if (typeof el.checkVisibility === 'function' && !el.checkVisibility()) {
      if (!(tag(el) === 'OPTION' && el.closest('select')) && tag(el) !== 'SLOT') return false;
    }
    if (s.visibility !== 'visible') return false;
    return true;
  }
  const hiddenCache = new Map();
  function hiddenForAria(el) {
    const t = tag(el);
    if (t === 'STYLE' || t === 'SCRIPT' || t === 'NOSCRIPT' || t === 'TEMPLATE') return true;
    if (hiddenCache.has(el)) return hiddenCache.get(el);
    let r = false;
    const s = style(el);
    if (s && s.display === 'contents' && t !== 'SLOT') {
      let any = false;
      for (const c of el.childNodes) {
        if (c.nodeType === 1 && !hiddenForAria(c)) { any = true; break; }
        if (c.nodeType === 3 && c.nodeValue.trim() && textRectNonEmpty(c)) { any = true; break; }
      }
      if (!any) r = true;
    }
    if (!r && !(t === 'OPTION' && el.closest('select')) && t !== 'SLOT' && s && (s.visibility !== 'visible' ||
        (typeof el.checkVisibility === 'function' && !el.checkVisibility()))) r = true;
    if (!r) r = hiddenByAncestry(el);
    hiddenCache.set(el, r);
    return r;
  }
  const ancestryCache = new Map();
  function hiddenByAncestry(el) {
    if (ancestryCache.has(el)) return ancestryCache.get(el);
    let r = false;
    const s = style(el);
    if ((s && s.display === 'none') || (attr(el, 'aria-hidden') || '').toLowerCase() === 'true') r = true;
    else if (el.parentElement === null && el.parentNode && el.parentNode.host === undefined && el.parentNode.nodeType !== 11) r = false;
    else {
      const p = el.assignedSlot ? el.assignedSlot : parentOf(el);
      if (el.parentElement && el.parentElement.shadowRoot && !el.assignedSlot) r = true;
      else if (p) r = hiddenByAncestry(p);
    }
    ancestryCache.set(el, r);
    return r;
  }
  function textRectNonEmpty(t) {
    const range = t.ownerDocument.createRange();
    range.selectNode(t);
    const r = range.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  }
  function box(el) {
    const s = style(el);
    if (!s) return { visible: true, inline: false, cursor: '' };
    if (s.display === 'contents') {
      for (const c of el.childNodes) {
        if (c.nodeType === 1) {
          const b = box(c);
          if (b.visible) return { visible: true, inline: false, cursor: s.cursor };
        } else if (c.nodeType === 3 && c.nodeValue && textRectNonEmpty(c)) {
          return { visible: true, inline: true, cursor: s.cursor };
        }
      }
      return { visible: false, inline: false, cursor: s.cursor };
    }
    if (!styleVisible(el)) return { visible: false, inline: false, cursor: s.cursor };
    const r = el.getBoundingClientRect();
    return { visible: r.width > 0 && r.height > 0, inline: s.display === 'inline', cursor: s.cursor, rect: r };
  }

  // ---- roles
  function hasGlobalAria(el) {
    return kGlobalAria.some(a => el.hasAttribute(a));
  }
  function focusable(el) {
    const t = tag(el);
    if (['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'DETAILS', 'SUMMARY', 'IFRAME'].includes(t) && !el.disabled) return true;
    if (t === 'A' && el.hasAttribute('href')) return true;
    const ti = attr(el, 'tabindex');
    return ti !== null && !isNaN(parseInt(ti, 10));
  }
  function explicitRole(el) {
    const r = attr(el, 'role');
    if (!r) return null;
    for (const tok of r.split(/\s+/)) if (kRoles.has(tok)) return tok;
    return null;
  }
  function inLandmarkContext(el) {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const t = tag(p);
      if (['ARTICLE', 'ASIDE', 'MAIN', 'NAV', 'SECTION'].includes(t) && !p.hasAttribute('role')) return true;
      const r = attr(p, 'role');
      if (r && ['article', 'complementary', 'main', 'navigation', 'region'].includes(r)) return true;
    }
    return false;
  }
  function thRole(el) {
    const scope = (attr(el, 'scope') || '').toLowerCase();
    if (scope === 'col' || scope === 'colgroup') return 'columnheader';
    if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
    const next = el.nextElementSibling, prev = el.previousElementSibling;
    if (!next && !prev) {
      const table = el.closest('table');
      if (!table || table.rows.length <= 1) return null;
      return 'columnheader';
    }
    if (next && prev && tag(next) === 'TH' && tag(prev) === 'TH') return 'columnheader';
    const nonEmptyTd = x => x && tag(x) === 'TD' && x.textContent.trim();
    if (nonEmptyTd(next) || nonEmptyTd(prev)) return 'rowheader';
    return 'columnheader';
  }
  function implicitRole(el) {
    const t = tag(el);
    switch (t) {
      case 'A': case 'AREA': return el.hasAttribute('href') ? 'link' : null;
      case 'ARTICLE': return 'article';
      case 'ASIDE': return 'complementary';
      case 'BLOCKQUOTE': return 'blockquote';
      case 'BUTTON': return 'button';
      case 'CAPTION': return 'caption';
      case 'CODE': return 'code';
      case 'DATALIST': return 'listbox';
      case 'DD': return 'definition';
      case 'DEL': return 'deletion';
      case 'DETAILS': return 'group';
      case 'DFN': case 'DT': return 'term';
      case 'DIALOG': return 'dialog';
      case 'EM': return 'emphasis';
      case 'FIELDSET': case 'OPTGROUP': return 'group';
      case 'FIGURE': return 'figure';
      case 'FOOTER': return inLandmarkContext(el) ? null : 'contentinfo';
      case 'HEADER': return inLandmarkContext(el) ? null : 'banner';
      case 'FORM': return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'form' : null;
      case 'SECTION': return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : null;
      case 'H1': case 'H2': case 'H3': case 'H4': case 'H5': case 'H6': return 'heading';
      case 'HR': return 'separator';
      case 'HTML': return 'document';
      case 'IMG':
        if (attr(el, 'alt') === '' && !attr(el, 'title') && !hasGlobalAria(el) && attr(el, 'tabindex') === null) return 'presentation';
        return 'img';
      case 'SVG': case 'svg': return 'img';
      case 'INPUT': {
        const type = (el.type || '').toLowerCase();
        if (['email', 'search', 'tel', 'text', 'url', ''].includes(type)) {
          const list = el.list;
          if (list && tag(list) === 'DATALIST') return 'combobox';
          return type === 'search' ? 'searchbox' : 'textbox';
        }
        if (type === 'hidden') return null;
        if (type === 'file') return 'button';
        if (['button', 'image', 'reset', 'submit'].includes(type)) return 'button';
        if (type === 'checkbox') return 'checkbox';
        if (type === 'radio') return 'radio';
        if (type === 'number') return 'spinbutton';
        if (type === 'range') return 'slider';
        return 'textbox';
      }
      case 'INS': return 'insertion';
      case 'LI': return 'listitem';
      case 'MAIN': return 'main';
      case 'MARK': return 'mark';
      case 'MATH': return 'math';
      case 'MENU': case 'OL': case 'UL': return 'list';
      case 'METER': return 'meter';
      case 'NAV': return 'navigation';
      case 'OPTION': return 'option';
      case 'OUTPUT': return 'status';
      case 'P': return 'paragraph';
      case 'PROGRESS': return 'progressbar';
      case 'SEARCH': return 'search';
      case 'SELECT': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'STRONG': return 'strong';
      case 'SUB': return 'subscript';
      case 'SUP': return 'superscript';
      case 'TABLE': return 'table';
      case 'THEAD': case 'TBODY': case 'TFOOT': return 'rowgroup';
      case 'TR': return 'row';
      case 'TD': {
        const table = el.closest('table');
        const r = table && explicitRole(table);
        return r === 'grid' || r === 'treegrid' ? 'gridcell' : 'cell';
      }
      case 'TH': return thRole(el);
      case 'TEXTAREA': return 'textbox';
      case 'TIME': return 'time';
    }
    return null;
  }
  const kOwners = { DD: ['DL', 'DIV'], DT: ['DL', 'DIV'], DIV: ['DL'], LI: ['OL', 'UL'], TBODY: ['TABLE'], THEAD: ['TABLE'],
    TFOOT: ['TABLE'], TR: ['THEAD', 'TBODY', 'TFOOT', 'TABLE'], TD: ['TR'], TH: ['TR'] };
  function inheritsPresentation(el) {
    const owners = kOwners[tag(el)];
    if (!owners) return false;
    const p = el.parentElement;
    if (!p || !owners.includes(tag(p))) return false;
    const r = explicitRole(p);
    if ((r === 'none' || r === 'presentation') && !focusable(p) && !hasGlobalAria(p)) return true;
    return inheritsPresentation(p);
  }
  const roleCache = new Map();
  function role(el) {
    if (roleCache.has(el)) return roleCache.get(el);
    let r = explicitRole(el);
    if (r === 'none' || r === 'presentation') {
      if (focusable(el) || hasGlobalAria(el)) r = implicitRole(el);
    } else if (!r) {
      r = implicitRole(el);
      if (r && inheritsPresentation(el)) r = 'presentation';
    }
    roleCache.set(el, r);
    return r;
  }

  // ---- accessible names
  const norm = s => s.replace(/[\u200b\u00ad]/g, '').trim().replace(/\s+/g, ' ');
  function flatten(s) {
    return s.replace(/[\u200b\u00ad]/g, '').replace(/[ \t\n\r\f]+/g, ' ').trim();
  }
  function pseudoText(el, which) {
    const s = style(el, which);
    if (!s) return '';
    const c = s.content;
    if (!c || c === 'none' || c === 'normal' || s.display === 'none' || s.visibility === 'hidden') return '';
    const parsed = parseContent(el, c);
    if (parsed === null) return '';
    return s.display !== 'inline' && s.display ? ' ' + parsed + ' ' : parsed;
  }
  function parseContent(el, c) {
    let src = c;
    const slash = findAltSlash(src);
    if (slash >= 0) src = src.slice(slash + 1);
    let out = '';
    let i = 0;
    while (i < src.length) {
      const ch = src[i];
      if (ch === ' ' || ch === '\t') { ++i; continue; }
      if (ch === '"' || ch === "'") {
        let j = i + 1, s = '';
        while (j < src.length && src[j] !== ch) {
          if (src[j] === '\\' && j + 1 < src.length) { s += src[j + 1]; j += 2; continue; }
          s += src[j++];
        }
        if (j >= src.length) return null;
        out += s;
        i = j + 1;
        continue;
      }
      const m = /^attr\(\s*([^\s)]+)\s*\)/.exec(src.slice(i));
      if (m) { out += attr(el, m[1]) || ''; i += m[0].length; continue; }
      return null;
    }
    return out;
  }
  function findAltSlash(s) {
    let q = null;
    for (let i = 0; i < s.length; ++i) {
      const ch = s[i];
      if (q) { if (ch === '\\') ++i; else if (ch === q) q = null; continue; }
      if (ch === '"' || ch === "'") q = ch;
      else if (ch === '/') return i;
    }
    return -1;
  }
  function labelsOf(el) {
    const out = [];
    if (el.labels) for (const l of el.labels) out.push(l);
    return out;
  }
  function childrenForName(el) {
    if (tag(el) === 'SLOT') {
      const assigned = el.assignedNodes();
      if (assigned.length) return assigned;
    }
    const list = [];
    for (const c of el.childNodes) if (!(c.nodeType === 1 && c.assignedSlot)) list.push(c);
    if (el.shadowRoot) for (const c of el.shadowRoot.childNodes) list.push(c);
    const owns = attr(el, 'aria-owns');
    if (owns) for (const id of owns.split(/\s+/)) { const o = id && el.ownerDocument.getElementById(id); if (o) list.push(o); }
    return list;
  }
  function selectedOptionsText(el) {
    if (tag(el) === 'SELECT') {
      const sel = [...el.selectedOptions];
      if (!sel.length && el.options.length) return [el.options[0]].map(o => o.label || o.textContent).join(' ');
      return sel.map(o => o.label || o.textContent).join(' ');
    }
    if (tag(el) === 'INPUT') return el.value;
    const opts = el.querySelectorAll('[role=option][aria-selected=true]');
    return [...opts].map(o => textAlt(o, { inLabel: true }, new Set())).join(' ');
  }
  // The accessible name: text and the elements that gave it.
  function textAlt(el, ctx, contributors) {
    if (hiddenForAria(el) && !ctx.hiddenRoot) return '';
    const r = role(el) || '';
    if (!ctx.inLabelledBy) {
      const ids = (attr(el, 'aria-labelledby') || '').split(/\s+/).filter(Boolean);
      const refs = ids.map(id => el.ownerDocument.getElementById(id)).filter(Boolean);
      if (refs.length) {
        const t = refs.map(x => textAlt(x, { inLabelledBy: true, fromContent: true, hiddenRoot: hiddenForAria(x), embedded: true }, contributors)).join(' ');
        if (t.trim()) return t;
      }
    }
    if (ctx.embedded && !ctx.self) {
      if (r === 'textbox' || r === 'searchbox') {
        contributors.add(el);
        return tag(el) === 'INPUT' || tag(el) === 'TEXTAREA' ? el.value : el.textContent;
      }
      if (r === 'combobox' || r === 'listbox') { contributors.add(el); return selectedOptionsText(el); }
      if (['progressbar', 'scrollbar', 'slider', 'spinbutton', 'meter'].includes(r)) {
        contributors.add(el);
        return attr(el, 'aria-valuetext') || attr(el, 'aria-valuenow') || attr(el, 'value') || (el.value !== undefined ? String(el.value) : '');
      }
      if (r === 'menu') return '';
    }
    const label = attr(el, 'aria-label');
    if (label && label.trim()) { contributors.add(el); return label; }
    const t = tag(el);
    if (r !== 'none' && r !== 'presentation') {
      if (t === 'INPUT' && ['button', 'submit', 'reset'].includes((el.type || '').toLowerCase())) {
        contributors.add(el);
        const type = el.type.toLowerCase();
        if (el.value) return el.value;
        if (type === 'submit') return 'Submit';
        if (type === 'reset') return 'Reset';
        return attr(el, 'title') || '';
      }
      if (t === 'INPUT' && (el.type || '').toLowerCase() === 'file') {
        const ls = labelsOf(el);
        if (ls.length && !ctx.inLabel) return ls.map(l => textAlt(l, { inLabel: true, fromContent: true, embedded: true, labelOf: el }, contributors)).join(' ');
        contributors.add(el);
        return 'Choose File';
      }
      if (t === 'INPUT' && (el.type || '').toLowerCase() === 'image') {
        const ls = labelsOf(el);
        if (ls.length && !ctx.inLabel) return ls.map(l => textAlt(l, { inLabel: true, fromContent: true, embedded: true, labelOf: el }, contributors)).join(' ');
        contributors.add(el);
        return attr(el, 'alt') || attr(el, 'title') || 'Submit';
      }
      if (t === 'BUTTON' && !ctx.inLabel) {
        const ls = labelsOf(el);
        if (ls.length) return ls.map(l => textAlt(l, { inLabel: true, fromContent: true, embedded: true, labelOf: el }, contributors)).join(' ');
      }
      if (t === 'OUTPUT' && !ctx.inLabel) {
        const ls = labelsOf(el);
        if (ls.length) return ls.map(l => textAlt(l, { inLabel: true, fromContent: true, embedded: true, labelOf: el }, contributors)).join(' ');
        if (attr(el, 'title')) { contributors.add(el); return attr(el, 'title'); }
      }
      if (['TEXTAREA', 'SELECT', 'INPUT', 'METER', 'PROGRESS'].includes(t) && !ctx.inLabel) {
        const ls = labelsOf(el);
        if (ls.length) return ls.map(l => textAlt(l, { inLabel: true, fromContent: true, embedded: true, labelOf: el }, contributors)).join(' ');
        const title = attr(el, 'title');
        if (title && title.trim()) { contributors.add(el); return title; }
        const type = (el.type || '').toLowerCase();
        if ((t === 'TEXTAREA' || (t === 'INPUT' && ['text', 'password', 'number', 'search', 'tel', 'email', 'url', ''].includes(type)))) {
          const ph = attr(el, 'placeholder');
          if (ph) { contributors.add(el); return ph; }
        }
        if (t !== 'INPUT' || !['checkbox', 'radio'].includes(type)) {
          if (!(t === 'INPUT' && ['button', 'submit', 'reset', 'image', 'file'].includes(type))) return '';
        }
      }
      if (t === 'FIELDSET') {
        for (const c of el.children) if (tag(c) === 'LEGEND') return textAlt(c, { fromContent: true, embedded: true, inLabel: true }, contributors);
        if (attr(el, 'title')) { contributors.add(el); return attr(el, 'title'); }
      }
      if (t === 'FIGURE') {
        for (const c of el.children) if (tag(c) === 'FIGCAPTION') return textAlt(c, { fromContent: true, embedded: true, inLabel: true }, contributors);
        if (attr(el, 'title')) { contributors.add(el); return attr(el, 'title'); }
      }
      if (t === 'IMG') {
        const alt = attr(el, 'alt');
        if (alt && alt.trim()) { contributors.add(el); return alt; }
        if (attr(el, 'title')) { contributors.add(el); return attr(el, 'title'); }
        return '';
      }
      if (t === 'TABLE') {
        for (const c of el.children) if (tag(c) === 'CAPTION') return textAlt(c, { fromContent: true, embedded: true, inLabel: true }, contributors);
        if (attr(el, 'summary')) { contributors.add(el); return attr(el, 'summary'); }
      }
      if (t === 'AREA') {
        if (attr(el, 'alt')) { contributors.add(el); return attr(el, 'alt'); }
        if (attr(el, 'title')) { contributors.add(el); return attr(el, 'title'); }
      }
      if (t === 'SVG' || t === 'svg') {
        for (const c of el.children) if (tag(c) === 'TITLE') { contributors.add(c); return c.textContent; }
      }
    }
    const fromContent = kFromContent.has(r) || t === 'SUMMARY' || ctx.fromContent || ctx.inLabel ||
      (!ctx.self && kDescendantContent.has(r));
    if (fromContent) {
      let out = pseudoText(el, '::before');
      const s = style(el);
      for (const c of childrenForName(el)) {
        if (c.nodeType === 3) { out += c.nodeValue; continue; }
        if (c.nodeType !== 1) continue;
        const cs = style(c);
        const block = (cs && cs.display !== 'inline') || tag(c) === 'BR';
        if (c === ctx.labelOf) continue;  // a control's own label names it without its value
        const sub = textAlt(c, { fromContent: !!(ctx.inLabel || ctx.inLabelledBy), embedded: true, inLabel: ctx.inLabel, inLabelledBy: ctx.inLabelledBy, hiddenRoot: ctx.hiddenRoot, labelOf: ctx.labelOf }, contributors);
        out += block ? ' ' + sub + ' ' : sub;
      }
      out += pseudoText(el, '::after');
      if (out.trim()) { contributors.add(el); return ctx.self ? out.trim() : out; }
    }
    const title = attr(el, 'title');
    if (r !== 'none' && r !== 'presentation' && title && title.trim()) { contributors.add(el); return title; }
    return '';
  }
  function accessibleName(el, r) {
    if (kNoName.has(r) && (explicitRole(el) === r || r !== 'generic')) return { name: '', contributors: new Set() };
    const contributors = new Set();
    const n = textAlt(el, { self: true }, contributors);
    return { name: norm(flatten(n)), contributors };
  }

  // ---- states
  function checkedState(el, r) {
    if (tag(el) === 'INPUT' && el.indeterminate && (el.type === 'checkbox')) return 'mixed';
    if (tag(el) === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) return el.checked;
    const a = attr(el, 'aria-checked');
    if (a === 'true') return true;
    if (a === 'mixed') return 'mixed';
    return false;
  }
  function disabledState(el) {
    const t = tag(el);
    if (['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'OPTION', 'OPTGROUP'].includes(t)) {
      if (el.hasAttribute('disabled')) return true;
      if (t === 'OPTION' && el.closest('optgroup[disabled]')) return true;
      const fs = el.closest('fieldset[disabled]');
      if (fs) {
        const legend = [...fs.children].find(c => tag(c) === 'LEGEND');
        if (!legend || !legend.contains(el)) return true;
      }
    }
    for (let p = el; p; p = parentOf(p)) {
      const a = p.getAttribute && p.getAttribute('aria-disabled');
      if (a === null || a === undefined) continue;
      return a.toLowerCase() === 'true';
    }
    return false;
  }
  function levelOf(el) {
    const m = /^H([1-6])$/.exec(tag(el));
    if (m) return +m[1];
    const a = parseInt(attr(el, 'aria-level'), 10);
    return a >= 1 ? a : 0;
  }

  // ---- the tree
  function docOf(el) { return el.ownerDocument; }
  function nextRef(doc, prefix) {
    const n = (S.counters.get(doc) || 0) + 1;
    S.counters.set(doc, n);
    return prefix + 'e' + n;
  }
  function refFor(el, r, name, prefix) {
    const c = S.cache.get(el);
    if (c && c.role === r && c.name === name && c.prefix === prefix) return c.ref;
    const ref = nextRef(docOf(el), prefix);
    S.cache.set(el, { role: r, name, ref, prefix });
    return ref;
  }
  function frameSeq(iframe) {
    if (!S.seqOf.has(iframe)) S.seqOf.set(iframe, S.nextSeq++);
    return S.seqOf.get(iframe);
  }

  function build(rootEl, prefix, list) {
    const visited = new Set();
    const fragment = { role: 'fragment', name: '', children: [], props: {} };
    function toNode(el, b) {
      const t = tag(el);
      const pointer = b.visible && style(el) && style(el).pointerEvents !== 'none';
      if (t === 'IFRAME' || t === 'FRAME') {
        const n = { role: 'iframe', name: '', children: [], props: {}, el, box: b, states: {} };
        if (pointer) n.ref = refFor(el, 'iframe', '', prefix);
        if (el === docOf(el).activeElement && docOf(el).hasFocus()) n.states.active = true;
        return n;
      }
      let r = role(el) || 'generic';
      if (r === 'none' || r === 'presentation') return null;
      if (r === 'generic' && b.inline && el.childNodes.length === 1 && el.childNodes[0].nodeType === 3) return null;
      const an = accessibleName(el, r);
      const n = { role: r, name: an.name, contributors: an.contributors, children: [], props: {}, el, box: b, states: {} };
      if (pointer) n.ref = refFor(el, r, an.name, prefix);
      if (kChecked.has(r)) n.states.checked = checkedState(el, r);
      if (kDisabled.has(r)) n.states.disabled = disabledState(el);
      if (kExpanded.has(r)) { const a = attr(el, 'aria-expanded'); n.states.expanded = a === 'true'; }
      if (kInvalid.has(r)) {
        const a = (attr(el, 'aria-invalid') || '').trim().toLowerCase();
        n.states.invalid = !a || a === 'false' ? false : (a === 'grammar' || a === 'spelling' ? a : true);
      }
      if (kLevel.has(r)) n.states.level = levelOf(el);
      if (r === 'button') { const a = attr(el, 'aria-pressed'); n.states.pressed = a === 'true' ? true : a === 'mixed' ? 'mixed' : false; }
      if (kSelected.has(r)) n.states.selected = t === 'OPTION' ? el.selected : attr(el, 'aria-selected') === 'true';
      if (el === docOf(el).activeElement && docOf(el).hasFocus()) n.states.active = true;
      if ((t === 'INPUT' || t === 'TEXTAREA') && !['checkbox', 'radio', 'file'].includes((el.type || '').toLowerCase()))
        n.children.push(el.value);
      return n;
    }
    function visit(container, node, parentVisible) {
      if (visited.has(node)) return;
      visited.add(node);
      if (node.nodeType === 3) {
        if (!node.nodeValue) return;
        if (!parentVisible) return;
        if (container.role === 'textbox') return;
        container.children.push(node.nodeValue);
        return;
      }
      if (node.nodeType !== 1) return;
      const el = node;
      const b = box(el);
      const visible = !hiddenForAria(el) || b.visible;
      const owned = [];
      const owns = attr(el, 'aria-owns');
      if (owns) for (const id of owns.split(/\s+/)) { const o = id && docOf(el).getElementById(id); if (o) owned.push(o); }
      let n = visible ? toNode(el, b) : null;
      if (n) {
        if ((attr(el, 'aria-hidden') || '').toLowerCase() === 'true') n.props['aria-hidden'] = true;
        list.push(n);
        container.children.push(n);
      }
      const target = n || container;
      const s = style(el);
      const blocky = (s && s.display !== 'inline') || tag(el) === 'BR';
      if (blocky) target.children.push(' ');
      target.children.push(pseudoText(el, '::before'));
      if (tag(el) === 'SLOT' && el.assignedNodes().length) {
        for (const c of el.assignedNodes()) visit(target, c, visible);
      } else {
        for (const c of el.childNodes) if (!(c.nodeType === 1 && c.assignedSlot)) visit(target, c, visible);
        if (el.shadowRoot) for (const c of el.shadowRoot.childNodes) visit(target, c, visible);
      }
      for (const o of owned) visit(target, o, visible);
      target.children.push(pseudoText(el, '::after'));
      if (blocky) target.children.push(' ');
      if (n) {
        if (n.children.length === 1 && n.children[0] === n.name) n.children = [];
        if (n.role === 'link' && el.hasAttribute('href')) {
          let url = attr(el, 'href');
          if (url.startsWith('data:')) { const c = url.indexOf(','); if (c >= 0) url = url.slice(0, c + 1) + '…'; }
          n.props.url = url;
        }
        if (n.role === 'textbox' && el.hasAttribute('placeholder') && attr(el, 'placeholder') !== n.name)
          n.props.placeholder = attr(el, 'placeholder');
      }
    }
    visit(fragment, rootEl, true);
    return fragment;
  }

  // ---- distillation
  function distill(fragment, maxDepth) {
    const byRef = new Map();
    const collect = n => { if (typeof n === 'string') return; if (n.ref) byRef.set(n.el, n.ref); n.children.forEach(collect); };
    collect(fragment);
    const pending = new Set();
    const contentRefs = n => {
      const out = [];
      if (!n.contributors) return out;
      for (const el of n.contributors) {
        if (el === n.el) continue;
        const r = byRef.get(el);
        if (r) out.push(r);
      }
      return out;
    };
    const isLeafGeneric = n => n.role === 'generic' && n.children.every(c => typeof c === 'string');
    const noProps = n => !Object.keys(n.props).length;
    const clickRoot = (n, ancestors) => n.ref && n.box && n.box.cursor === 'pointer' &&
      !ancestors.some(a => a.ref && a.box && a.box.cursor === 'pointer');
    function traverse(node, ancestors, depth) {
      const out = [];
      for (const child of node.children) {
        if (typeof child === 'string') { out.push(child); continue; }
        // enter
        if (child.ref) {
          for (const r of contentRefs(child)) pending.add(r);
          if (!isLeafGeneric(child) && !(maxDepth && depth > maxDepth)) pending.delete(child.ref);
        }
        traverse(child, [...ancestors, node], depth + 1);
        const verdict = exit(child, [...ancestors, node]);
        if (verdict === 'remove') continue;
        if (verdict === 'unwrap') { out.push(...child.children); continue; }
        out.push(child);
      }
      node.children = out;
    }
    function exit(n, ancestors) {
      // mergeStringChildren
      const merged = [];
      let run = null;
      const flush = () => { if (run !== null) { const s = norm(run); if (s) merged.push(s); run = null; } };
      for (const c of n.children) {
        if (typeof c === 'string') run = (run || '') + c;
        else { flush(); merged.push(c); }
      }
      flush();
      n.children = merged;
      if (n.children.length === 1 && n.children[0] === n.name) n.children = [];
      // removeNamelessImages
      if (n.role === 'img' && !n.name && !n.children.length && !clickRoot(n, ancestors)) return 'remove';
      // removeRedundantNames
      if (n.ref) {
        const refs = contentRefs(n);
        if (refs.length) {
          if (!refs.some(r => pending.has(r))) n.name = '';
          else refs.forEach(r => pending.delete(r));
        }
      }
      // inlineTextIntoGeneric
      if (n.role === 'generic' && noProps(n) && n.children.length === 1) {
        const c = n.children[0];
        if (typeof c !== 'string' && c.role === 'generic' && !c.name && !c.states.active && noProps(c) &&
            c.children.length === 1 && typeof c.children[0] === 'string')
          n.children = [c.children[0]];
      }
      // removeNameRepeatingChild
      const parent = ancestors[ancestors.length - 1];
      if (n.role === 'generic' && !n.states.active && noProps(n) && parent && parent.name) {
        let text;
        if (n.name && !n.children.length) text = n.name;
        else if (n.name) text = undefined;
        else if (n.children.length === 1 && typeof n.children[0] === 'string') text = n.children[0];
        if (text !== undefined && text === parent.name) {
          if (n.ref) pending.add(n.ref);
          return 'remove';
        }
      }
      // unwrapSingleChildGenerics
      if (n.role === 'generic' && !n.name && n.children.length <= 1 &&
          n.children.every(c => typeof c !== 'string' && c.ref)) {
        if (n.children.length === 0 && clickRoot(n, ancestors)) return null;
        return 'unwrap';
      }
      return null;
    }
    traverse(fragment, [], 0);
    // the fragment's own string children
    const merged = [];
    let run = null;
    for (const c of fragment.children) {
      if (typeof c === 'string') run = (run || '') + c;
      else { if (run !== null && norm(run)) merged.push(norm(run)); run = null; merged.push(c); }
    }
    if (run !== null && norm(run)) merged.push(norm(run));
    fragment.children = merged;
  }

  // ---- YAML
  function needsQuotes(s) {
    if (!s.length) return true;
    if (/^\s|\s$/.test(s)) return true;
    if (/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/.test(s)) return true;
    if (s.startsWith('-')) return true;
    if (/[\n:](\s|$)/.test(s)) return true;
    if (/\s#/.test(s)) return true;
    if (/[\n\r]/.test(s)) return true;
    if (/^[&*\],?!>|@"'#%]/.test(s)) return true;
    if (/[{}`]/.test(s)) return true;
    if (/^\[/.test(s)) return true;
    if (!isNaN(Number(s))) return true;
    if (['y', 'n', 'yes', 'no', 'true', 'false', 'on', 'off', 'null'].includes(s.toLowerCase())) return true;
    return false;
  }
  function escapeValue(s) {
    if (!needsQuotes(s)) return s;
    return '"' + s.replace(/[\\"\x00-\x1f\x7f-\x9f]/g, c => {
      switch (c) {
        case '\\': return '\\\\';
        case '"': return '\\"';
        case '\b': return '\\b';
        case '\f': return '\\f';
        case '\n': return '\\n';
        case '\r': return '\\r';
        case '\t': return '\\t';
      }
      return '\\x' + c.charCodeAt(0).toString(16).padStart(2, '0');
    }) + '"';
  }
  function escapeKey(s) {
    if (!needsQuotes(s)) return s;
    return "'" + s.replace(/'/g, "''") + "'";
  }
  function keyOf(n, pointerAbove, boxes) {
    let k = n.role;
    if (n.name && n.name.length <= 900) {
      k += ' ' + JSON.stringify(n.name);
    }
    const st = n.states || {};
    if (st.checked === 'mixed') k += ' [checked=mixed]'; else if (st.checked === true) k += ' [checked]';
    if (st.disabled) k += ' [disabled]';
    if (st.expanded) k += ' [expanded]';
    if (st.active) k += ' [active]';
    if (st.invalid === 'grammar' || st.invalid === 'spelling') k += ' [invalid=' + st.invalid + ']'; else if (st.invalid) k += ' [invalid]';
    if (st.level) k += ' [level=' + st.level + ']';
    if (st.pressed === 'mixed') k += ' [pressed=mixed]'; else if (st.pressed === true) k += ' [pressed]';
    if (st.selected) k += ' [selected]';
    if (n.props['aria-hidden']) k += ' [aria-hidden]';
    let pointer = false;
    if (n.ref) {
      k += ' [ref=' + n.ref + ']';
      if (!pointerAbove && n.box && n.box.cursor === 'pointer') { k += ' [cursor=pointer]'; pointer = true; }
    }
    if (boxes && n.box && n.box.rect) {
      const r = n.box.rect;
      k += ' [box=' + [r.x, r.y, r.width, r.height].map(Math.round).join(',') + ']';
    }
    return { key: k, pointer };
  }
  function render(fragment, maxDepth, boxes, lines, baseIndent, frames, depthBase) {
    function renderNode(n, indent, depth, pointerAbove) {
      const pad = '  '.repeat(indent);
      if (typeof n === 'string') { lines.push(pad + '- text: ' + escapeValue(n)); return; }
      const { key, pointer } = keyOf(n, pointerAbove, boxes);
      const atLimit = maxDepth > 0 && depth >= maxDepth;
      const single = n.children.length === 1 && typeof n.children[0] === 'string' ? n.children[0] : null;
      const props = [];
      if (n.props.url !== undefined) props.push(pad + '  - /url: ' + escapeValue(n.props.url));
      if (n.props.placeholder !== undefined) props.push(pad + '  - /placeholder: ' + escapeValue(n.props.placeholder));
      if (n.role === 'iframe' && n.el && frames) {
        const sub = frames(n, maxDepth ? maxDepth - depth - 1 : 0);  // at the limit: -1, the whole frame
        if (sub && sub.length) {
          lines.push(pad + '- ' + escapeKey(key) + ':');
          for (const l of sub) lines.push(pad + '  ' + l);
          return;
        }
      }
      if (!props.length && single === null && (!n.children.length || atLimit)) { lines.push(pad + '- ' + escapeKey(key)); return; }
      if (!props.length && single !== null) { lines.push(pad + '- ' + escapeKey(key) + ': ' + escapeValue(single)); return; }
      lines.push(pad + '- ' + escapeKey(key) + ':');
      lines.push(...props);
      if (single !== null) { lines.push(pad + '  - text: ' + escapeValue(single)); return; }
      if (atLimit) return;
      for (const c of n.children) renderNode(c, indent + 1, depth + 1, pointerAbove || pointer);
    }
    for (const c of fragment.children) renderNode(c, baseIndent, depthBase, false);
  }

  function snapshotDoc(doc, prefix, maxDepth, rootEl) {
    const root = rootEl || doc.querySelector('body,frameset') || doc.documentElement;
    if (!root) return [];
    const list = [];
    const fragment = build(root, prefix, list);
    distill(fragment, maxDepth);
    for (const n of list) if (n.ref) S.refs.set(n.ref, n.el);
    const lines = [];
    const frames = (n, childDepth) => {
      let childDoc = null;
      try { childDoc = n.el.contentDocument; } catch (e) { childDoc = null; }
      if (!childDoc || !n.ref) return null;
      const seq = frameSeq(n.el);
      return snapshotDoc(childDoc, 'f' + seq, childDepth < 0 ? 0 : childDepth);
    };
    render(fragment, maxDepth || 0, !!opts.boxes, lines, 0, frames, 0);
    return lines;
  }


  // ---- locators: how Playwright code names an element (getByRole, getByTestId, ...), unique in
  // its document where one of the candidates is, else the best one with .first()/.nth(i).
  function locatorFor(target) {
    styleCache.clear(); hiddenCache.clear(); ancestryCache.clear(); roleCache.clear();
    let el = target;
    const t0 = tag(el);
    if (!['INPUT', 'TEXTAREA', 'SELECT'].includes(t0) && !el.isContentEditable) {
      const up = el.closest('button, select, input, [role=button], [role=checkbox], [role=radio], a, [role=link]');
      if (up && box(up).visible) el = up;
    }
    const doc = el.ownerDocument;
    const all = [...doc.querySelectorAll('*')].filter(x => !hiddenForAria(x) || box(x).visible);
    const nameOf = new Map();
    const nm = x => { if (!nameOf.has(x)) { const r = role(x) || ''; nameOf.set(x, r && r !== 'none' && r !== 'presentation' ? accessibleName(x, r).name : ''); } return nameOf.get(x); };
    const lower = s => s.toLowerCase();
    const ownText = x => norm(flatten(x.textContent || ''));
    const cands = [];
    const testId = opts.testIdAttribute || 'data-testid';
    const push = (score, desc, match) => cands.push({ score, desc, match });
    if (el.hasAttribute(testId)) {
      const v = attr(el, testId);
      push(1, { kind: 'testid', value: v }, x => x.getAttribute(testId) === v);
    }
    for (const a of ['data-testid', 'data-test-id', 'data-test']) {
      if (a !== testId && el.hasAttribute(a)) {
        const v = attr(el, a);
        push(2, { kind: 'css', value: '[' + a + '="' + v.replace(/"/g, '\\"') + '"]' }, x => x.getAttribute(a) === v);
      }
    }
    const r = role(el) || '';
    const name = r && r !== 'generic' ? nm(el) : '';
    const cut = (s, n) => { if (s.length <= n) return s; const c = s.slice(0, n + 1); const sp = c.lastIndexOf(' '); return (sp > 0 ? c.slice(0, sp) : s.slice(0, n)).trim(); };
    if (r && r !== 'generic' && r !== 'none' && r !== 'presentation' && name) {
      const names = [...new Set([cut(name, 30), cut(name, 80)])];
      for (const n of names) {
        push(100 + (n === name ? 0 : 1), { kind: 'role', role: r, name: n }, x => (role(x) || '') === r && lower(nm(x)).includes(lower(n)));
      }
      if (name.length <= 80)
        push(105, { kind: 'role', role: r, name, exact: true }, x => (role(x) || '') === r && nm(x) === name);
    }
    if ((t0 === 'INPUT' || t0 === 'TEXTAREA') && attr(el, 'placeholder')) {
      const v = attr(el, 'placeholder');
      push(120, { kind: 'placeholder', value: v }, x => lower(x.getAttribute('placeholder') || '').includes(lower(v)));
    }
    if (el.labels && el.labels.length) {
      const v = norm(flatten([...el.labels].map(l => l.textContent).join(' ')));
      if (v) push(140, { kind: 'label', value: v }, x => x.labels && lower(norm(flatten([...x.labels].map(l => l.textContent).join(' ')))).includes(lower(v)));
    }
    if (['IMG', 'AREA', 'INPUT'].includes(tag(el)) && attr(el, 'alt')) {
      const v = attr(el, 'alt');
      push(160, { kind: 'alt', value: v }, x => lower(x.getAttribute('alt') || '').includes(lower(v)));
    }
    const text = ownText(el);
    if (text && !['INPUT', 'TEXTAREA', 'SELECT'].includes(tag(el)) && (!r || r === 'generic' || r === 'paragraph' || (!name && kFromContent.has(r)))) {
      const v = cut(text, 30);
      const smallest = x => { const tx = lower(ownText(x)); if (!tx.includes(lower(v))) return false; for (const c of x.children) if (lower(ownText(c)).includes(lower(v))) return false; return true; };
      push(180, { kind: 'text', value: v }, smallest);
    }
    if (attr(el, 'title')) {
      const v = attr(el, 'title');
      push(200, { kind: 'title', value: v }, x => lower(x.getAttribute('title') || '').includes(lower(v)));
    }
    if (el.id && !/[0-9a-f]{8}-|^\d|[:.]/.test(el.id)) push(500, { kind: 'css', value: '#' + el.id }, x => x.id === el.id);
    if (r && r !== 'generic' && r !== 'none' && r !== 'presentation') push(510, { kind: 'role', role: r }, x => (role(x) || '') === r);
    if (t0 === 'INPUT' && attr(el, 'name')) { const v = attr(el, 'name'); push(520, { kind: 'css', value: 'input[name="' + v + '"]' }, x => tag(x) === 'INPUT' && x.getAttribute('name') === v); }
    push(530, { kind: 'css', value: el.localName }, x => x.localName === el.localName);
    cands.sort((a, b) => a.score - b.score);
    let chosen = null;
    for (const c of cands) {
      const m = all.filter(c.match);
      if (m.length === 1 && m[0] === el) { chosen = Object.assign({}, c.desc); break; }
    }
    if (!chosen) {
      for (const c of cands) {
        const m = all.filter(c.match);
        const i = m.indexOf(el);
        if (i >= 0) { chosen = Object.assign({}, c.desc, { nth: i }); break; }
      }
    }
    if (!chosen) chosen = { kind: 'css', value: el.localName };
    const frames = [];
    for (let d = doc; d.defaultView && d.defaultView.frameElement; d = d.defaultView.frameElement.ownerDocument) {
      const f = d.defaultView.frameElement;
      const pdoc = f.ownerDocument;
      const fname = attr(f, 'name'), ftitle = attr(f, 'title');
      let desc;
      if (fname) desc = { kind: 'css', value: 'iframe[name="' + fname + '"]' };
      else if (ftitle) desc = { kind: 'css', value: 'iframe[title="' + ftitle + '"]' };
      else {
        const list = [...pdoc.querySelectorAll('iframe')];
        desc = { kind: 'css', value: 'iframe' };
        if (list.length > 1) desc.nth = list.indexOf(f);
      }
      frames.unshift(desc);
    }
    return { frames, target: chosen };
  }
  S.locatorFor = locatorFor;

  // ---- queries (the testing tools): elements as Playwright's getByRole and getByText find them
  // The smallest elements below `root` whose text holds `needle` (case-insensitive, spaces
  // collapsed): an element whose element children hold it too gives way to them.
  function textMatches(root, needle) {
    const want = norm(flatten(needle)).toLowerCase();
    const textOf = x => (tag(x) === 'INPUT' && ['button', 'submit', 'reset'].includes(x.type)) ? x.value : (x.textContent || '');
    const holds = x => !['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'TITLE'].includes(tag(x)) &&
      norm(flatten(textOf(x))).toLowerCase().includes(want);
    const out = [];
    const walk = x => {
      let inner = false;
      for (const c of x.children) if (holds(c)) { inner = true; walk(c); }
      if (!inner) out.push(x);
    };
    for (const c of root.children) if (holds(c)) walk(c);
    return out;
  }
  function runQuery(q) {
    if (q.kind === 'lines') {  // browser_find: which lines hold q.text (case-insensitive) or match q.regex
      if (typeof q.regex === 'string') {
        const lit = /^\/(.*)\/([a-z]*)$/s.exec(q.regex);
        let re;
        try { re = lit ? new RegExp(lit[1], lit[2].replace(/g/g, '')) : new RegExp(q.regex); } catch (e) { return { error: String(e.message || e) }; }
        const test = line => { re.lastIndex = 0; return re.test(line); };
        return { matched: (q.lines || []).map((l, i) => test(l) ? i : -1).filter(i => i >= 0), query: String(re) };
      }
      const needle = String(q.text || '').toLowerCase();
      return { matched: (q.lines || []).map((l, i) => l.toLowerCase().includes(needle) ? i : -1).filter(i => i >= 0) };
    }
    styleCache.clear(); hiddenCache.clear(); ancestryCache.clear(); roleCache.clear();
    if (q.kind === 'items') {
      const texts = [];
      for (const item of q.items || []) {
        const m = textMatches(scopeEl || document.body || document.documentElement, String(item));
        if (!m.length) return { missing: String(item) };
        texts.push(m[0].textContent || '');
      }
      return { texts };
    }
    if (q.kind === 'locator') return { locator: locatorFor(scopeEl) };
    if (q.kind === 'value') {
      const t = tag(scopeEl), r = role(scopeEl) || '';
      const value = ['INPUT', 'TEXTAREA', 'SELECT'].includes(t) ? scopeEl.value : null;
      let checked = null;
      if (t === 'INPUT' && (scopeEl.type === 'checkbox' || scopeEl.type === 'radio')) checked = !!scopeEl.checked;
      else if (kChecked.has(r)) checked = checkedState(scopeEl, r) === true;
      return { value, checked, tag: t.toLowerCase(), role: r };
    }
    const docs = [];
    const addDoc = d => {
      docs.push(d);
      for (const f of d.querySelectorAll('iframe, frame')) {
        let c = null;
        try { c = f.contentDocument; } catch (e) { c = null; }
        if (c) addDoc(c);
      }
    };
    addDoc(document);
    const want = norm(flatten(String(q.name || ''))).toLowerCase();
    for (const d of docs) {
      const root = d.body || d.documentElement;
      if (!root) continue;
      let found = null;
      if (q.kind === 'role') {
        for (const x of [root, ...root.querySelectorAll('*')]) {
          if ((role(x) || '') !== q.role || hiddenForAria(x)) continue;
          if (want && !accessibleName(x, q.role).name.toLowerCase().includes(want)) continue;
          found = x;
          break;
        }
      } else {
        found = textMatches(root, String(q.text || '')).find(x => box(x).visible) || null;
      }
      if (found) return { locator: locatorFor(found) };
    }
    return { locator: null };
  }
  if (opts.query) return runQuery(opts.query);

  if (opts.locatorOnly) return null;
  S.refs = new Map();
  const mainPrefix = opts.mainSeq ? 'f' + opts.mainSeq : '';
  let rootEl = null;
  if (opts.rootRef) {
    rootEl = (S.lastRefs && S.lastRefs.get(opts.rootRef)) || null;
    if (!rootEl) return { error: 'ref' };
  }
  const lines = snapshotDoc(rootEl ? rootEl.ownerDocument : document, mainPrefix, opts.depth || 0, rootEl);
  if (rootEl) for (const [k, v] of S.lastRefs) if (!S.refs.has(k)) S.refs.set(k, v);
  S.lastRefs = S.refs;
  return { yaml: lines.join('\n'), nextSeq: S.nextSeq };
})JS";

/// `function(ref)` → the element of an aria ref of the last snapshot (null when none or gone).
/// A target that is no aria ref is a CSS selector, matched in the main document.
inline constexpr const char* kAriaElementScript = R"JS(function(ref) {
  if (!/^(f\d+)?e\d+$/.test(ref)) { try { return document.querySelector(ref); } catch (e) { return null; } }
  const S = window.__akAria;
  const el = S && S.lastRefs && S.lastRefs.get(ref);
  return el && el.isConnected ? el : null;
})JS";

/// `function(ref)` → {frames: [...], target: {...}}: how Playwright code names the element of an
/// aria ref (null when none or gone). Each part: kind (testid, role, placeholder, label, alt,
/// text, title, css), value or role/name/exact, and nth when not unique.
inline constexpr const char* kAriaLocatorScript = R"JS(function(ref) {
  if (!/^(f\d+)?e\d+$/.test(ref)) {
    let found = null;
    try { found = document.querySelector(ref); } catch (e) { found = null; }
    return found ? { frames: [], target: { kind: 'css', value: ref } } : null;
  }
  const S = window.__akAria;
  const el = S && S.lastRefs && S.lastRefs.get(ref);
  return el && el.isConnected && S.locatorFor ? S.locatorFor(el) : null;
})JS";

}  // namespace agentkit::browser::detail
