/// <reference lib="dom" />
// The account console: a small client-side router over the public GraphQL API. Each route
// renders into <main>; the header and the unverified banner come from the signed-in account.
import { accountView } from './account.js';
import { explain, gql } from './api.js';
import { graphql } from '../../documents/graphql.js';
import { flash, link, loadBoot, providerLabel, returnAfterSignIn, setNavigate, signedInHome, state, type Boot, type Me } from './app.js';
import { h, statusLine, type Child } from './dom.js';
import { securityView } from './security.js';
import { forgotPasswordView, signInView, signUpView, ssoErrorText } from './signed-out.js';
import { mfaView } from './mfa.js';
import { takeResume, type Resume } from './reauth.js';
import { tunnelsView } from './tunnels.js';
import { tokensView } from './tokens.js';
import { webhooksView } from './webhooks.js';
import { deviceView } from './device.js';
import { consentView } from './consent.js';
import { invitationView } from './invitation.js';
import { resendVerificationButton } from './resend-verification.js';
import { auditView, membersView, newOrgView, orgSettingsView } from './orgs.js';
import { can, orgOwner, orgPath, type Owner } from './owner.js';
import type { OrgAction } from '../../../domain/membership/roles.js';

type Page = { title: string; auth: 'in' | 'out' | 'any'; render: (boot: Boot, me: Me | null) => Node | Promise<Node> };
type Org = Extract<Owner, { kind: 'org' }>;

const serviceName = document.querySelector<HTMLMetaElement>('meta[name="service-name"]')?.content ?? 'Tunnel Service';

const refresh = () => void render(location.pathname, { keepFocus: true });

/** What to take up on the Security page after a re-authentication with a provider. */
let resume: Resume | null = null;

const PAGES: Record<string, Page> = {
  '/sign-in': { title: 'Sign in', auth: 'out', render: (boot) => signInView(boot) },
  '/sign-up': { title: 'Create your account', auth: 'out', render: (boot) => signUpView(boot) },
  '/forgot-password': { title: 'Forgot your password?', auth: 'any', render: () => forgotPasswordView() },
  '/mfa': { title: 'Second step', auth: 'out', render: () => mfaView() },
  '/account': { title: 'Your account', auth: 'in', render: (_b, me) => accountView(me!, refresh) },
  '/security': {
    title: 'Security',
    auth: 'in',
    render: (boot, me) => {
      const taken = resume;
      resume = null;
      return securityView(me!, boot, refresh, taken);
    },
  },
  '/tunnels': { title: 'Tunnels', auth: 'in', render: (_b, me) => tunnelsView({ kind: 'account', me: me! }) },
  '/tokens': { title: 'Access tokens', auth: 'in', render: (_b, me) => tokensView({ kind: 'account', me: me! }) },
  '/webhooks': { title: 'Webhooks', auth: 'in', render: (_b, me) => webhooksView({ kind: 'account', me: me! }) },
  '/device': { title: 'Connect a device', auth: 'in', render: () => deviceView() },
  '/oauth/consent': { title: 'Allow access?', auth: 'in', render: (_b, me) => consentView(me!) },
  '/invitations/accept': { title: 'Invitation', auth: 'in', render: (_b, me) => invitationView(me!) },
  '/orgs/new': { title: 'New organization', auth: 'in', render: () => newOrgView() },
};

/** An organization's pages, at /orgs/<slug>/<page>, each offered when the caller's role allows it. */
const ORG_PAGES: Record<string, { title: string; nav: string; needs: OrgAction; render: (org: Org) => Node | Promise<Node> }> = {
  tunnels: { title: 'Tunnels', nav: 'Tunnels', needs: 'tunnels.read', render: (org) => tunnelsView(org) },
  members: { title: 'Members', nav: 'Members', needs: 'members.read', render: (org) => membersView(org) },
  tokens: { title: 'Access tokens', nav: 'Access tokens', needs: 'tokens.manage', render: (org) => tokensView(org) },
  webhooks: { title: 'Webhooks', nav: 'Webhooks', needs: 'webhooks.manage', render: (org) => webhooksView(org) },
  audit: { title: 'Audit log', nav: 'Audit log', needs: 'audit.read', render: (org) => auditView(org) },
  settings: { title: 'Settings', nav: 'Settings', needs: 'org.rename', render: (org) => orgSettingsView(org) },
};

const ORG_PATH = /^\/orgs\/([a-z0-9-]+)\/([a-z]+)$/;

/** The organization and page of an /orgs/<slug>/<page> path, if it is one. */
function orgRoute(path: string): { slug: string; page: string } | null {
  const m = ORG_PATH.exec(path);
  return m ? { slug: m[1]!, page: m[2]! } : null;
}

/** The page an organization's path shows to `me`: a stranger's organization (or a page the role does not offer) is not found. */
function orgPage(path: string, me: Me | null): Page | null {
  const route = orgRoute(path);
  const page = route ? ORG_PAGES[route.page] : undefined;
  if (!route || !page) return null;
  const known = me ? orgOwner(me, route.slug) : null;
  return {
    // The tab names the organization ("Members · Acme Tools"); a stranger's is not found.
    title: !me ? page.title : known?.kind === 'org' ? `${page.title} · ${known.name}` : 'Not found',
    auth: 'in',
    render: (_b, signedIn) => {
      const org = orgOwner(signedIn!, route.slug) as Org | null;
      if (!org) return notFoundContent(me);
      if (!can(org, page.needs)) return h('div', {}, h('h1', { tabindex: -1 }, page.title), h('p', { class: 'status error', role: 'alert' }, `Your role in ${org.name} (${org.role}) does not include this page.`));
      return page.render(org);
    },
  };
}

function notFoundContent(me: Me | null): HTMLElement {
  return h('div', {}, h('h1', { tabindex: -1 }, 'Page not found'), h('p', {}, 'There is nothing at this address. ', link(me ? '/account' : '/sign-in', 'Go to the console')));
}

/** Paths other helpers' pages used; the console answers them. */
const ALIASES: Record<string, string> = { '/passkeys': '/security', '/settings': '/account' };

const app = document.getElementById('app')!;

const PERSONAL_NAV: [string, string][] = [
  ['/account', 'Account'],
  ['/security', 'Security'],
  ['/tunnels', 'Tunnels'],
  ['/tokens', 'Access tokens'],
  ['/webhooks', 'Webhooks'],
];

/** The navigation of whose pages are on screen: the person's own, or the organization's its role offers. */
function navItems(me: Me, path: string): [string, string][] {
  const route = orgRoute(path);
  const org = route ? (orgOwner(me, route.slug) as Org | null) : null;
  if (!org) return PERSONAL_NAV;
  return Object.entries(ORG_PAGES)
    .filter(([, p]) => can(org, p.needs))
    .map(([name, p]): [string, string] => [orgPath(org.slug, name), p.nav]);
}

/**
 * The account/organization switcher: a disclosure listing the person's own account and each
 * organization (with the role), and "New organization". Switching keeps the kind of page when
 * the other side has it (Tunnels stays Tunnels).
 */
function switcher(me: Me, path: string): HTMLElement {
  const route = orgRoute(path);
  const current = route ? orgOwner(me, route.slug) : null;
  const kind = route?.page ?? path.slice(1);
  const personalPath = PERSONAL_NAV.some(([href]) => href === `/${kind}`) ? `/${kind}` : '/tunnels';
  const item = (href: string, label: Child, here: boolean) => h('li', {}, h('a', { href, 'data-link': true, ...(here ? { 'aria-current': 'true' } : {}) }, label));
  const orgs = me.organizations.map((o) => {
    const org = orgOwner(me, o.slug);
    const page = org && ORG_PAGES[kind] && can(org, ORG_PAGES[kind].needs) ? kind : 'tunnels';
    return item(orgPath(o.slug, page), [h('span', { class: 'name' }, o.name), ' ', h('span', { class: 'muted' }, o.role)], current?.kind === 'org' && current.slug === o.slug);
  });
  return h(
    'details',
    { class: 'switcher' },
    h('summary', {}, h('span', { class: 'visually-hidden' }, 'Switch account. Now: '), h('span', { class: 'current' }, current?.kind === 'org' ? current.name : 'Personal account')),
    h(
      'ul',
      { class: 'switcher-list', 'aria-label': 'Accounts and organizations' },
      item(personalPath, [h('span', { class: 'name' }, 'Personal account'), ' ', h('span', { class: 'muted' }, me.slug)], !path.startsWith('/orgs/')),
      orgs,
      item('/orgs/new', '+ New organization', path === '/orgs/new'),
    ),
  );
}

function header(me: Me | null, path: string): HTMLElement {
  const nav = me
    ? h(
        'nav',
        { 'aria-label': 'Console' },
        h(
          'ul',
          {},
          navItems(me, path).map(([href, text]) => h('li', {}, h('a', { href, 'data-link': true, ...(path === href ? { 'aria-current': 'page' } : {}) }, text))),
        ),
      )
    : null;
  let signOut: HTMLButtonElement | null = null;
  if (me) {
    signOut = h('button', { type: 'button', class: 'link-button', id: 'sign-out' }, 'Sign out');
    signOut.addEventListener('click', () => {
      void (async () => {
        try {
          await gql(graphql('mutation Logout { logout }'));
          flash('ok', 'You are signed out.');
        } catch (err) {
          flash('error', explain(err));
        }
        await loadBoot().catch(() => undefined);
        go('/sign-in', true);
      })();
    });
  }
  return h(
    'header',
    { class: 'top' },
    h(
      'div',
      { class: 'bar' },
      h('span', { class: 'where' }, h('a', { href: me ? '/account' : '/sign-in', 'data-link': true, class: 'brand' }, serviceName), me ? switcher(me, path) : null),
      me ? h('span', { class: 'who' }, h('span', { class: 'email' }, me.email), ' ', signOut) : null,
    ),
    nav,
  );
}

/** SPEC 3.1: while unverified, a banner with a Resend action. */
function banner(me: Me): HTMLElement | null {
  if (me.emailVerified) return null;
  const status = statusLine();
  const resend = resendVerificationButton(me.email, status, 'Resend the email');
  return h(
    'div',
    { class: 'banner', id: 'verify-banner', role: 'region', 'aria-label': 'Email verification' },
    h('p', {}, 'Please verify your email address: open the link we sent to ', h('strong', {}, me.email), '. ', resend),
    status,
  );
}

let rendering = 0;
/** The path of the page on screen. */
let shownPath = '';

async function render(rawPath: string, opts: { keepFocus?: boolean } = {}): Promise<void> {
  const ticket = ++rendering;
  let path = ALIASES[rawPath] ?? rawPath;
  const params = new URLSearchParams(location.search);
  let boot: Boot;
  try {
    boot = await loadBoot();
  } catch (err) {
    app.replaceChildren(h('main', { id: 'main' }, h('h1', {}, serviceName), h('p', { class: 'status error', role: 'alert' }, explain(err))));
    return;
  }
  if (ticket !== rendering) return;
  const me = boot.me;
  // The SSO callback lands on APP_URL/ with its outcome in the query.
  if (path === '/') {
    const linked = params.get('sso_linked');
    const reauthed = params.get('sso_reauth');
    const error = params.get('sso_error');
    if (linked) flash('ok', `${providerLabel(linked)} is now linked to your account.`);
    if (error && me) flash('error', ssoErrorText(error, params.get('provider')));
    if (reauthed && me) {
      // Confirmed with the provider: the action that asked for it goes on.
      const next = takeResume();
      if (next?.kind === 'link') return location.assign(`/auth/oauth/${encodeURIComponent(next.provider)}/start?intent=link`);
      if (next?.kind === 'device') {
        flash('ok', `Confirmed with ${providerLabel(reauthed)}. Approve the device now.`);
        return go(`/device?user_code=${encodeURIComponent(next.userCode)}`, true);
      }
      if (next?.kind === 'consent') {
        flash('ok', `Confirmed with ${providerLabel(reauthed)}. Allow the application now.`);
        return go(`/oauth/consent?request=${encodeURIComponent(next.request)}`, true);
      }
      resume = next;
      flash('ok', `Confirmed with ${providerLabel(reauthed)}. You can go on for the next few minutes.`);
    }
    // A link or confirmation (from Security) comes back there; a sign-in goes to the account page.
    path = me ? (linked || error || reauthed ? '/security' : signedInHome()) : '/sign-in';
    // Back to the page that sent the visitor to sign in, with its query (the device code).
    if (path.includes('?')) return go(path, true);
    const keep = error && !me ? location.search : '';
    history.replaceState(null, '', path + keep);
  }
  let page = PAGES[path] ?? orgPage(path, me);
  if (!page) {
    document.title = `Not found · ${serviceName}`;
    app.replaceChildren(header(me, path), h('main', { id: 'main' }, notFoundContent(me)));
    return;
  }
  if (page.auth === 'in' && !me) {
    // Signing in first, then back here (the device page keeps its code, the consent page its request).
    if (path === '/device' || path === '/oauth/consent' || path === '/invitations/accept') returnAfterSignIn(path + location.search);
    path = '/sign-in';
    history.replaceState(null, '', path);
    page = PAGES[path]!;
  } else if (page.auth === 'out' && me) {
    path = '/account';
    history.replaceState(null, '', path);
    page = PAGES[path]!;
  }
  const flashed = state.flash;
  state.flash = null;
  let content: Node;
  try {
    content = await page.render(boot, me);
  } catch (err) {
    content = h('div', {}, h('h1', { tabindex: -1 }, page.title), h('p', { class: 'status error', role: 'alert' }, explain(err)));
  }
  if (ticket !== rendering) return;
  document.title = `${page.title} · ${serviceName}`;
  shownPath = path;
  const flashEl = flashed ? h('p', { class: `status ${flashed.kind}`, role: flashed.kind === 'error' ? 'alert' : 'status', id: 'flash' }, flashed.text) : null;
  const scroll = window.scrollY;
  const bannerEl = me ? banner(me) : null;
  app.replaceChildren(...[h('a', { href: '#main', class: 'skip' }, 'Skip to content'), header(me, path), bannerEl, h('main', { id: 'main' }, flashEl, content)].filter((n): n is HTMLElement => n !== null));
  if (opts.keepFocus) {
    window.scrollTo(0, scroll);
    flashEl?.setAttribute('tabindex', '-1');
    flashEl?.focus({ preventScroll: true });
  } else {
    app.querySelector<HTMLElement>('main h1')?.focus();
  }
}

function go(path: string, replace = false): void {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  void render(new URL(path, location.href).pathname);
}

setNavigate((path, opts) => go(path, opts?.replace));

document.addEventListener('click', (e) => {
  const a = (e.target as Element | null)?.closest?.('a[data-link]');
  if (!a || !(a instanceof HTMLAnchorElement) || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const url = new URL(a.href);
  if (url.origin !== location.origin) return;
  e.preventDefault();
  go(url.pathname + url.search);
});
// The open switcher closes on a click elsewhere, and on Escape (focus back on it).
document.addEventListener('click', (e) => {
  const open = document.querySelector<HTMLDetailsElement>('details.switcher[open]');
  if (open && !open.contains(e.target as Node)) open.open = false;
});
document.addEventListener('keydown', (e) => {
  const open = document.querySelector<HTMLDetailsElement>('details.switcher[open]');
  if (e.key !== 'Escape' || !open) return;
  open.open = false;
  open.querySelector('summary')?.focus();
});
// Back/forward between pages; a change of the #fragment alone (the skip link) is no navigation.
window.addEventListener('popstate', () => {
  if (location.pathname !== shownPath) void render(location.pathname);
});

// Verifying in another tab (the email link) takes the banner away when this tab is back in view.
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState !== 'visible' || !state.boot?.me || state.boot.me.emailVerified) return;
  void loadBoot().then((boot) => {
    if (boot.me?.emailVerified) document.getElementById('verify-banner')?.remove();
  });
});

void render(location.pathname);
