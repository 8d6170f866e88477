// The "send the verification link again" button, as the banner and the consent page offer it:
// disabled while the request runs, its outcome in the given status line.
import { explain, gql } from './api.js';
import { graphql } from '../../documents/graphql.js';
import { h, type StatusLine } from './dom.js';

export function resendVerificationButton(email: string, status: StatusLine, label: string, attrs: Record<string, string> = {}): HTMLButtonElement {
  const resend = h('button', { type: 'button', class: 'small', ...attrs }, label);
  resend.addEventListener('click', () => {
    resend.disabled = true;
    void (async () => {
      try {
        await gql(graphql('mutation Resend { resendVerification }'));
        status.show('ok', `A new verification link is on its way to ${email}.`);
      } catch (err) {
        status.show('error', explain(err));
      } finally {
        resend.disabled = false;
      }
    })();
  });
  return resend;
}
