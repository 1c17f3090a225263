// A tiny markdown renderer for model text. It builds DOM nodes and sets only
// textContent, so nothing in the text can become markup or script: no innerHTML, no
// attributes from the text except the href of a link, and only absolute http(s) links
// (rel="noopener noreferrer"). What it understands: paragraphs (a single newline is a
// line break, as in chat), fenced code blocks, `code`, **bold**, *italic* / _italic_,
// bullet and numbered lists, headings, quotes, [links](https://…) and bare
// http(s) URLs; a line that ends in a JSON object or array is shown pretty-printed as
// a code block. Anything else stays literal text.

/** safeURL returns the normalised href of an absolute http(s) URL, else null. */
export function safeURL(raw) {
  let u;
  try {
    u = new URL(raw.trim());
  } catch {
    return null;
  }
  return u.protocol === "http:" || u.protocol === "https:" ? u.href : null;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function link(href, label) {
  const a = el("a");
  a.href = href;
  a.rel = "noopener noreferrer";
  a.target = "_blank";
  a.append(...label);
  return a;
}

const wordChar = /[\p{L}\p{N}]/u;

// findClose finds the closing delimiter of an inline span that starts at from: not
// escaped, not after a space, and for _ and __ not inside a word (snake_case, a__b).
function findClose(s, delim, from) {
  const under = delim[0] === "_";
  for (let j = from; j <= s.length - delim.length; j++) {
    if (s[j] === "\\") {
      j++;
      continue;
    }
    if (!s.startsWith(delim, j) || j === from || /\s/.test(s[j - 1])) continue;
    if (under && wordChar.test(s[j + delim.length] ?? "")) continue;
    if (delim.length === 1 && s[j + 1] === delim) {
      j++; // a double delimiter is not a single one's end
      continue;
    }
    return j;
  }
  return -1;
}

/** inline parses one line (or paragraph) of inline markdown into nodes. */
export function inline(s) {
  const out = [];
  let text = "";
  const flush = () => {
    if (text) out.push(document.createTextNode(text));
    text = "";
  };
  for (let i = 0; i < s.length; ) {
    const c = s[i];
    if (c === "\\" && i + 1 < s.length && /[\\`*_[\]()#+\-.!>]/.test(s[i + 1])) {
      text += s[i + 1];
      i += 2;
      continue;
    }
    if (c === "`") {
      const j = s.indexOf("`", i + 1);
      if (j > i + 1) {
        flush();
        out.push(el("code", "", s.slice(i + 1, j)));
        i = j + 1;
        continue;
      }
    }
    if ((c === "*" || c === "_") && s[i + 1] === c && !/\s/.test(s[i + 2] ?? " ") && (c === "*" || i === 0 || !wordChar.test(s[i - 1]))) {
      const j = findClose(s, c + c, i + 2);
      if (j > 0) {
        flush();
        const b = el("strong");
        b.append(...inline(s.slice(i + 2, j)));
        out.push(b);
        i = j + 2;
        continue;
      }
    }
    if ((c === "*" || c === "_") && s[i + 1] !== c && s[i + 1] !== undefined && s[i + 1] !== " ") {
      // _ only opens at a word's start, so snake_case names stay as they are.
      const opens = c === "*" || i === 0 || !wordChar.test(s[i - 1]);
      const j = opens ? findClose(s, c, i + 1) : -1;
      if (j > 0) {
        flush();
        const em = el("em");
        em.append(...inline(s.slice(i + 1, j)));
        out.push(em);
        i = j + 1;
        continue;
      }
    }
    if (c === "[") {
      const close = findClose(s, "]", i + 1);
      if (close > 0 && s[close + 1] === "(") {
        const end = s.indexOf(")", close + 2);
        if (end > 0) {
          const href = safeURL(s.slice(close + 2, end));
          if (href) {
            flush();
            out.push(link(href, inline(s.slice(i + 1, close))));
            i = end + 1;
            continue;
          }
          // Not an http(s) link: the whole thing stays literal text.
          text += s.slice(i, end + 1);
          i = end + 1;
          continue;
        }
      }
    }
    if ((c === "h" || c === "H") && /^https?:\/\//i.test(s.slice(i, i + 8)) && (i === 0 || !wordChar.test(s[i - 1]))) {
      let j = i;
      while (j < s.length && !/[\s<>"]/.test(s[j])) j++;
      while (j > i && /[.,;:!?)\]'*_]/.test(s[j - 1])) j--; // trailing punctuation is not the URL's
      const href = safeURL(s.slice(i, j));
      if (href) {
        flush();
        out.push(link(href, [document.createTextNode(s.slice(i, j))]));
        i = j;
        continue;
      }
    }
    text += c;
    i++;
  }
  flush();
  return out;
}

const bullet = /^\s{0,3}[-*+]\s+(.*)$/;
const numbered = /^\s{0,3}(\d{1,9})[.)]\s+(.*)$/;
const heading = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const fence = /^\s{0,3}(```+|~~~+)\s*([\w+-]*)\s*$/;
const quote = /^\s{0,3}>\s?(.*)$/;

// jsonLine matches a line that ends in a JSON object or array, after an optional label
// ("read_data_file: {…}", as the offline model reports a tool's object result).
const jsonLine = /^(.*?:\s*)?([[{].*[\]}])\s*$/;

// jsonBlock returns the nodes for a line that ends in a JSON object or array of some
// size: the label as a paragraph, the value pretty-printed as a code block. Other
// lines give null.
function jsonBlock(line) {
  const m = jsonLine.exec(line);
  if (!m || m[2].length < 40) return null;
  let value;
  try {
    value = JSON.parse(m[2]);
  } catch {
    return null;
  }
  const nodes = [];
  if (m[1]) {
    const p = el("p");
    p.append(...inline(m[1].trim()));
    nodes.push(p);
  }
  const pre = el("pre", "json");
  const code = el("code", "", JSON.stringify(value, null, 2));
  code.dataset.lang = "json";
  pre.append(code);
  nodes.push(pre);
  return nodes;
}

/** renderMarkdown renders text as a DocumentFragment of safe nodes. */
export function renderMarkdown(text) {
  const frag = document.createDocumentFragment();
  const lines = String(text).replace(/\r\n?/g, "\n").split("\n");
  let para = null; // the lines of the open paragraph
  let list = null; // the open list element
  const closePara = () => {
    if (!para) return;
    const p = el("p");
    para.forEach((line, k) => {
      if (k > 0) p.append(el("br"));
      p.append(...inline(line));
    });
    frag.append(p);
    para = null;
  };
  const closeAll = () => {
    closePara();
    list = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    let m;
    if ((m = fence.exec(line))) {
      closeAll();
      const body = [];
      for (i++; i < lines.length && !lines[i].trim().startsWith(m[1]); i++) body.push(lines[i]);
      const pre = el("pre");
      const code = el("code", "", body.join("\n"));
      if (m[2]) code.dataset.lang = m[2];
      pre.append(code);
      frag.append(pre);
      continue;
    }
    if (line.trim() === "") {
      closeAll();
      continue;
    }
    if ((m = heading.exec(line))) {
      closeAll();
      const h = el("h" + Math.min(6, m[1].length + 2), "md-h");
      h.append(...inline(m[2]));
      frag.append(h);
      continue;
    }
    const b = bullet.exec(line);
    const n = b ? null : numbered.exec(line);
    if (b || n) {
      closePara();
      const tag = b ? "ul" : "ol";
      if (!list || list.tagName.toLowerCase() !== tag) {
        list = el(tag);
        if (n && n[1] !== "1") list.start = Number(n[1]);
        frag.append(list);
      }
      const li = el("li");
      li.append(...inline(b ? b[1] : n[2]));
      list.append(li);
      continue;
    }
    if ((m = quote.exec(line))) {
      closeAll();
      const q = el("blockquote");
      q.append(...inline(m[1]));
      frag.append(q);
      continue;
    }
    if (list && /^\s{2,}\S/.test(line)) {
      // a continuation line of the last list item
      list.lastElementChild.append(el("br"), ...inline(line.trim()));
      continue;
    }
    const json = jsonBlock(line);
    if (json) {
      closeAll();
      frag.append(...json);
      continue;
    }
    list = null;
    (para ??= []).push(line);
  }
  closeAll();
  return frag;
}
