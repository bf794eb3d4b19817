// Walks the page and returns one line per meaningful node, indented by
// depth. Interactive elements get a stable data-hermes-ref attribute, kept
// across snapshots of the same page, so the model can name them.
(function (full) {
  const ATTR = 'data-hermes-ref';
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK', 'svg', 'SVG', 'IFRAME', 'CANVAS']);
  const ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
    'option', 'switch', 'textbox', 'searchbox', 'combobox', 'slider', 'spinbutton', 'treeitem']);
  const textMax = full ? 2000 : 160;
  let next = 0;
  for (const el of document.querySelectorAll('[' + ATTR + ']')) {
    const n = parseInt(el.getAttribute(ATTR).slice(1), 10);
    if (n > next) next = n;
  }
  const lines = [];
  const clean = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const cut = (s, n) => (s.length > n ? s.slice(0, n) + '…' : s);
  const q = (s) => JSON.stringify(cut(clean(s), 200));

  function hidden(el) {
    if (el.hidden || el.getAttribute('aria-hidden') === 'true') return true;
    const cs = getComputedStyle(el);
    return cs.display === 'none' || cs.visibility === 'hidden';
  }

  function ref(el) {
    let r = el.getAttribute(ATTR);
    if (!r) {
      r = 'e' + (++next);
      el.setAttribute(ATTR, r);
    }
    return r;
  }

  function labelOf(el) {
    const aria = el.getAttribute('aria-label');
    if (aria) return aria;
    const by = el.getAttribute('aria-labelledby');
    if (by) {
      const t = by.split(/\s+/).map((id) => document.getElementById(id)).filter(Boolean).map((e) => e.textContent).join(' ');
      if (clean(t)) return t;
    }
    if (el.labels && el.labels.length) return Array.from(el.labels).map((l) => l.textContent).join(' ');
    return el.getAttribute('title') || el.getAttribute('name') || '';
  }

  // interactive returns the line describing el when it is something the
  // model can act on, or null.
  function interactive(el) {
    const tag = el.tagName;
    const role = el.getAttribute('role');
    if (tag === 'A' && el.hasAttribute('href')) {
      const href = el.getAttribute('href');
      return 'link ' + q(labelOf(el) || el.innerText || el.textContent) + (href && !href.startsWith('javascript:') ? ' -> ' + cut(href, 120) : '');
    }
    if (tag === 'BUTTON') return 'button ' + q(el.innerText || el.textContent || labelOf(el)) + (el.disabled ? ' [disabled]' : '');
    if (tag === 'INPUT') {
      const type = (el.getAttribute('type') || 'text').toLowerCase();
      if (type === 'hidden') return null;
      if (['submit', 'button', 'reset', 'image'].includes(type)) return 'button ' + q(el.value || labelOf(el) || type);
      if (type === 'checkbox' || type === 'radio') return type + ' ' + q(labelOf(el)) + (el.checked ? ' [checked]' : '');
      let s = (type === 'text' ? 'textbox' : 'textbox[' + type + ']') + ' ' + q(labelOf(el));
      if (el.placeholder) s += ' placeholder=' + q(el.placeholder);
      if (el.value && type !== 'password') s += ' value=' + q(el.value);
      return s + (el.disabled ? ' [disabled]' : '');
    }
    if (tag === 'TEXTAREA') {
      let s = 'textbox[multiline] ' + q(labelOf(el));
      if (el.placeholder) s += ' placeholder=' + q(el.placeholder);
      if (el.value) s += ' value=' + q(el.value);
      return s;
    }
    if (tag === 'SELECT') {
      const opts = Array.from(el.options).slice(0, 30).map((o) => clean(o.text));
      const sel = el.selectedOptions.length ? clean(el.selectedOptions[0].text) : '';
      return 'combobox ' + q(labelOf(el)) + ' value=' + q(sel) + ' options=' + q(opts.join(' | '));
    }
    if (role && ROLES.has(role)) return role + ' ' + q(labelOf(el) || el.innerText || el.textContent);
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return 'textbox[editable] ' + q(labelOf(el) || el.innerText);
    if (el.hasAttribute('onclick') || (el.tabIndex >= 0 && el.hasAttribute('tabindex'))) return 'clickable ' + q(labelOf(el) || el.innerText || el.textContent);
    return null;
  }

  function walk(node, depth) {
    for (let c = node.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === Node.TEXT_NODE) {
        const t = clean(c.textContent);
        if (t) lines.push('  '.repeat(depth) + '- text: ' + cut(t, textMax));
        continue;
      }
      if (c.nodeType !== Node.ELEMENT_NODE || SKIP.has(c.tagName) || hidden(c)) continue;
      const line = interactive(c);
      if (line) {
        lines.push('  '.repeat(depth) + '- ' + line + ' [ref=@' + ref(c) + ']');
        if (c.tagName === 'SELECT' || c.tagName === 'A' || c.tagName === 'BUTTON') continue;
        walk(c, depth + 1);
        continue;
      }
      const h = /^H([1-6])$/.exec(c.tagName);
      if (h) {
        lines.push('  '.repeat(depth) + '- heading ' + q(c.innerText || c.textContent) + ' [level=' + h[1] + ']');
        continue;
      }
      if (c.tagName === 'IMG') {
        const alt = c.getAttribute('alt');
        if (alt) lines.push('  '.repeat(depth) + '- img ' + q(alt));
        continue;
      }
      let d = depth;
      if (full && ['UL', 'OL', 'TABLE', 'FORM', 'NAV', 'DIALOG'].includes(c.tagName)) {
        lines.push('  '.repeat(depth) + '- ' + c.tagName.toLowerCase() + (labelOf(c) ? ' ' + q(labelOf(c)) : ''));
        d++;
      } else if (['FORM', 'DIALOG'].includes(c.tagName) || c.getAttribute('role') === 'dialog') {
        lines.push('  '.repeat(depth) + '- ' + (c.getAttribute('role') || c.tagName.toLowerCase()));
        d++;
      }
      walk(c, d);
      if (c.shadowRoot) walk(c.shadowRoot, d);
    }
  }

  if (document.body) walk(document.body, 0);
  return lines.join('\n');
})
