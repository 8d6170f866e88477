/// <reference lib="dom" />
// Shared state of the console: the signed-in account, the enabled providers, the flash message
// carried to the next page, and navigation (history API; links marked data-link stay in-app).
import { gql } from './api.js';
import { graphql, type ResultOf } from '../../documents/graphql.js';
import { h, type Child } from './dom.js';

/** What every page knows of the signed-in account (`tunnelHostSuffix`: `--<slug>.ZONE`), and its organizations (the switcher). */
const MeFields = graphql(`
  fragment MeFields on Account {
    id email emailVerified hasPassword slug tunnelHostSuffix plan lastLogin { at ip } linkedProviders { provider email linkedAt }
    organizations { slug name role }
  }
`);

export type Me = ResultOf<typeof MeFields>;

export interface Boot {
  me: Me | null;
  providers: string[];
}

export const PROVIDER_LABEL: Record<string, string> = { google: 'Google', github: 'GitHub' };
export const providerLabel = (p: string): string => PROVIDER_LABEL[p] ?? p;

export const state: { boot: Boot | null; flash: { kind: 'ok' | 'error' | 'info'; text: string } | null; mfaToken: string | null } = {
  boot: null,
  flash: null,
  mfaToken: null,
};

export async function loadBoot(): Promise<Boot> {
  const data = await gql(graphql('query Console { me { ...MeFields } providers }', [MeFields]));
  state.boot = { me: data.me, providers: data.providers };
  return state.boot;
}

export function flash(kind: 'ok' | 'error' | 'info', text: string): void {
  state.flash = { kind, text };
}

type Navigate = (path: string, opts?: { replace?: boolean }) => void;
let navigateImpl: Navigate = (path) => location.assign(path);
export const navigate: Navigate = (path, opts) => navigateImpl(path, opts);
export function setNavigate(fn: Navigate): void {
  navigateImpl = fn;
}

/** An in-app link (the router handles the click; it still works as a plain link). */
export function link(href: string, ...children: Child[]): HTMLAnchorElement {
  return h('a', { href, 'data-link': true }, ...children);
}

/** A card section with a heading: every settings block is one. */
export function section(title: string, id: string, ...children: Child[]): HTMLElement {
  const headingId = `${id}-title`;
  return h('section', { class: 'card', id, 'aria-labelledby': headingId }, h('h2', { id: headingId }, title), ...children);
}

const RETURN_KEY = 'console:return';

/** A signed-out visitor of `path` (e.g. /device?user_code=…) comes back to it after signing in. */
export function returnAfterSignIn(path: string): void {
  sessionStorage.setItem(RETURN_KEY, path);
}

/** Where a fresh sign-in goes: the page that sent the visitor to sign in, else the account. */
export function signedInHome(): string {
  const path = sessionStorage.getItem(RETURN_KEY);
  sessionStorage.removeItem(RETURN_KEY);
  // Only this console's own paths: never an address taken from elsewhere.
  return path !== null && /^(\/[a-z-]+)+(\?[\w=&%-]*)?$/.test(path) ? path : '/account';
}

/** After a first step on an account with two-step sign-in on: the /mfa page asks for a code. */
export function toSecondStep(mfaToken: string): void {
  state.mfaToken = mfaToken;
  navigate('/mfa');
}
