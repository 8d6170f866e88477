/// <reference lib="dom" />
// Where a form's error goes: the server names the argument an error is about (ApiError.field,
// from extensions.field), and the form shows the message under the field of that name; anything
// else goes to the form's status line. A field's error goes as soon as the field changes
// (dom.ts), and every error of the form goes when an action succeeds (formDone).
import { ApiError, explain } from './api.js';
import { clearFieldErrors, setFieldError, type StatusLine } from './dom.js';
import { ReauthCancelled } from './reauth.js';

/** The field box of `form` for the API argument `field`, if the form has one. */
function boxOf(form: HTMLElement, field: string): HTMLElement | null {
  return form.querySelector<HTMLElement>(`[data-field="${CSS.escape(field)}"]`);
}

/**
 * Shows what went wrong: beside its field when the error names one of this form's, else in the
 * status line (`text`, when given, says it in place of the server's words). Closing the
 * confirmation dialog is no error: it says that nothing changed.
 */
export function showFormError(form: HTMLElement, status: StatusLine, err: unknown, text?: string): void {
  if (err instanceof ReauthCancelled) {
    clearFieldErrors(form);
    return status.show('info', err.message);
  }
  const box = err instanceof ApiError && err.field ? boxOf(form, err.field) : null;
  clearFieldErrors(form);
  if (box) {
    status.clear();
    setFieldError(box, text ?? explain(err));
    return;
  }
  status.show('error', text ?? explain(err));
}

/** A rule the page checks itself (before asking the server), shown beside its field. */
export function showFieldError(form: HTMLElement, status: StatusLine, field: string, message: string): void {
  clearFieldErrors(form);
  const box = boxOf(form, field);
  if (box) {
    status.clear();
    setFieldError(box, message);
  } else {
    status.show('error', message);
  }
}

/** The action succeeded: no error of the form stays on screen. */
export function formDone(form: HTMLElement, status: StatusLine): void {
  clearFieldErrors(form);
  status.clear();
}
