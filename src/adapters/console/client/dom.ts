/// <reference lib="dom" />
// A tiny element builder for the console: h('p', { class: 'x' }, 'text', child). No templates
// parsed from strings, so nothing the server returns is ever interpreted as markup.

export type Child = Node | string | number | false | null | undefined | Child[];
type Attrs = Record<string, string | number | boolean | EventListener | null | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: Child[]): void {
  for (const c of children) {
    if (c === false || c === null || c === undefined) continue;
    if (Array.isArray(c)) append(parent, c);
    else parent.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

let ids = 0;
/** A unique element id (labels point at their inputs by id). */
export const uid = (prefix: string): string => `${prefix}-${++ids}`;

/** A labelled input; `hint` is tied to it with aria-describedby. */
export function field(label: string, attrs: Attrs & { name: string }, hint?: Child): HTMLElement {
  const id = uid(attrs.name);
  const hintId = hint ? `${id}-hint` : undefined;
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    hint ? h('p', { class: 'hint', id: hintId }, hint) : null,
    h('input', { id, ...(hintId ? { 'aria-describedby': hintId } : {}), ...attrs }),
  );
}

export type StatusLine = HTMLElement & { show(kind: 'ok' | 'error' | 'info', text: Child): void; clear(): void };

/** The status line of a form or section: role=status, announced politely. */
export function statusLine(): StatusLine {
  const el = h('div', { class: 'status', role: 'status', 'aria-live': 'polite' });
  return Object.assign(el, {
    show(kind: 'ok' | 'error' | 'info', text: Child) {
      el.className = `status ${kind}`;
      el.replaceChildren();
      append(el, [text]);
    },
    clear() {
      el.className = 'status';
      el.replaceChildren();
    },
  });
}

export function formValues(form: HTMLFormElement): Record<string, string> {
  const out: Record<string, string> = {};
  new FormData(form).forEach((v, k) => {
    out[k] = typeof v === 'string' ? v : '';
  });
  return out;
}

/** Disables the form's buttons while `work` runs. */
export async function busy<T>(form: HTMLElement, work: () => Promise<T>): Promise<T> {
  const buttons = [...form.querySelectorAll('button')];
  for (const b of buttons) b.disabled = true;
  form.setAttribute('aria-busy', 'true');
  try {
    return await work();
  } finally {
    for (const b of buttons) b.disabled = false;
    form.removeAttribute('aria-busy');
  }
}

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return 'never';
  const d = new Date(iso);
  return d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function timeEl(iso: string | null | undefined): Child {
  if (!iso) return 'never';
  return h('time', { datetime: iso }, dateTime(iso));
}
