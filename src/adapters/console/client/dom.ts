/// <reference lib="dom" />
// A tiny element builder for the console: h('p', { class: 'x' }, 'text', child). No templates
// parsed from strings, so nothing the server returns is ever interpreted as markup. Also the
// console's few components, each styled once in console.css and used on every page: a field (a
// label, its hint and its error line), a checkbox group, a select, a chip for names and URLs,
// a status line, and the one way dates are written.

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

/**
 * The wrapper of one input (or one group): `data-field` names the API argument its errors are
 * about (the input's name unless told), and its error line is filled by setFieldError. A change
 * of the input takes the error away.
 */
function fieldBox(tag: 'div' | 'fieldset', className: string, fieldName: string, errorId: string, ...children: Child[]): HTMLElement {
  const box = h(tag, { class: className, 'data-field': fieldName }, ...children, h('p', { class: 'field-error', id: errorId, hidden: true }));
  const clear = () => clearFieldError(box);
  box.addEventListener('input', clear);
  box.addEventListener('change', clear);
  return box;
}

/** A labelled input; `hint` is tied to it with aria-describedby. `field`: the API argument, when not the input's name. */
export function field(label: string, attrs: Attrs & { name: string }, hint?: Child, opts: { field?: string } = {}): HTMLElement {
  const id = uid(attrs.name);
  const hintId = hint ? `${id}-hint` : undefined;
  return fieldBox(
    'div',
    'field',
    opts.field ?? attrs.name,
    `${id}-error`,
    h('label', { for: id }, label),
    hint ? h('p', { class: 'hint', id: hintId }, hint) : null,
    h('input', { id, ...(hintId ? { 'aria-describedby': hintId } : {}), ...attrs }),
  );
}

/** A labelled select of [value, label] options. */
export function selectField(label: string, attrs: Attrs & { name: string }, options: [string, string][], selected: string, hint?: Child, opts: { field?: string } = {}): HTMLElement {
  const id = uid(attrs.name);
  const hintId = hint ? `${id}-hint` : undefined;
  return fieldBox(
    'div',
    'field',
    opts.field ?? attrs.name,
    `${id}-error`,
    h('label', { for: id }, label),
    hint ? h('p', { class: 'hint', id: hintId }, hint) : null,
    h('select', { id, ...(hintId ? { 'aria-describedby': hintId } : {}), ...attrs }, options.map(([value, text]) => h('option', { value, ...(value === selected ? { selected: true } : {}) }, text))),
  );
}

/** Checkboxes under one legend: each a label in words and the API's name as a chip. */
export function checkGroup(legend: string, name: string, options: [string, string][], opts: { field?: string; checked?: (value: string) => boolean; hint?: Child } = {}): HTMLElement {
  const id = uid(name);
  const hintId = opts.hint ? `${id}-hint` : undefined;
  const box = fieldBox(
    'fieldset',
    'field checks',
    opts.field ?? name,
    `${id}-error`,
    h('legend', {}, legend),
    opts.hint ? h('p', { class: 'hint', id: hintId }, opts.hint) : null,
    h(
      'div',
      { class: 'check-list' },
      options.map(([value, text]) =>
        h('label', { class: 'check' }, h('input', { type: 'checkbox', name, value, ...(opts.checked?.(value) ? { checked: true } : {}) }), h('span', {}, text, ' ', chip(value))),
      ),
    ),
  );
  if (hintId) box.setAttribute('aria-describedby', hintId);
  return box;
}

const describedBy = (el: Element, id: string, on: boolean) => {
  const ids = new Set((el.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean));
  if (on) ids.add(id);
  else ids.delete(id);
  if (ids.size) el.setAttribute('aria-describedby', [...ids].join(' '));
  else el.removeAttribute('aria-describedby');
};

/** The inputs of a field box (every checkbox of a group). */
const controlsOf = (box: Element) => [...box.querySelectorAll<HTMLElement>('input, select, textarea')];

/** Shows `message` under the field (aria-invalid, and described by it) and focuses its input. */
export function setFieldError(box: HTMLElement, message: string): void {
  const error = box.querySelector<HTMLElement>(':scope > .field-error');
  if (!error) return;
  error.textContent = message;
  error.hidden = false;
  const controls = controlsOf(box);
  for (const c of controls) c.setAttribute('aria-invalid', 'true');
  // A group is described by its error; a single input is.
  for (const el of box.tagName === 'FIELDSET' ? [box] : controls) describedBy(el, error.id, true);
  controls[0]?.focus();
}

export function clearFieldError(box: HTMLElement): void {
  const error = box.querySelector<HTMLElement>(':scope > .field-error');
  if (!error || error.hidden) return;
  error.hidden = true;
  error.textContent = '';
  const controls = controlsOf(box);
  for (const c of controls) c.removeAttribute('aria-invalid');
  for (const el of box.tagName === 'FIELDSET' ? [box] : controls) describedBy(el, error.id, false);
}

/** Every field error of a form (after a success). */
export function clearFieldErrors(form: HTMLElement): void {
  for (const box of form.querySelectorAll<HTMLElement>('[data-field]')) clearFieldError(box);
}

/**
 * A name, host, URL or code as a chip: it may wrap after a dot, slash, hyphen, @ or colon (never
 * inside a word), and scrolls inside itself if one piece is still wider than the line.
 */
export function chip(text: string, attrs: Attrs = {}): HTMLElement {
  const el = h('code', attrs);
  for (const piece of text.split(/(?<=[./@:?&=_-])(?![./@:?&=_-])/)) {
    if (el.firstChild) el.append(document.createElement('wbr'));
    el.append(piece);
  }
  return el;
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

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number) => String(n).padStart(2, '0');

/**
 * The one way the console writes a time: "2 Dec 2026, 14:03" in this device's time zone, on every
 * page and whatever the browser's language (the server's names use the same day format).
 */
export function dateTime(iso: string | null | undefined): string {
  if (!iso) return 'never';
  const d = new Date(iso);
  return `${d.getDate()} ${MONTHS[d.getMonth()]} ${d.getFullYear()}, ${two(d.getHours())}:${two(d.getMinutes())}`;
}

export function timeEl(iso: string | null | undefined): Child {
  if (!iso) return 'never';
  return h('time', { datetime: iso }, dateTime(iso));
}
