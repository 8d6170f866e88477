/// <reference lib="dom" />
// Organizations (API.md section 18): a new one, and per organization its Members (change a role,
// remove, leave), Audit log (newest first, more on request) and Settings (rename; the slug and
// deletion for owners). Each page offers only what the caller's role allows (owner.ts); the
// server decides anyway, and its refusal shows in the page's status line.
import { ApiError, explain, gql } from './api.js';
import { graphql, type ResultOf } from '../../documents/graphql.js';
import { flash, loadBoot, navigate, section } from './app.js';
import { auditText, auditDetail } from './audit-text.js';
import { append, busy, chip, field, formValues, h, selectField, statusLine, timeEl, type Child } from './dom.js';
import { formDone, showFieldError, showFormError } from './forms.js';
import { can, orgPath, pageHeading, type Owner } from './owner.js';
import { withRecentAuth } from './reauth.js';
import { ORG_ROLES, type OrgRole } from '../../../domain/membership/roles.js';

type Org = Extract<Owner, { kind: 'org' }>;

const SLUG_HINT = '3 to 28 characters: lowercase letters, digits and hyphens, no hyphen at the start or the end, and no "--". Organizations and accounts share slugs.';

/** /orgs/new: a name and a slug; the creator is its owner. */
export function newOrgView(): Node {
  const status = statusLine();
  const form = h(
    'form',
    { novalidate: true, class: 'create-org' },
    field('Name', { name: 'name', type: 'text', required: true, autocomplete: 'organization', maxlength: 100 }, 'How members see it, 1 to 100 characters.'),
    field('Slug', { name: 'slug', type: 'text', required: true, autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false' }, h('span', {}, SLUG_HINT, ' Its tunnels’ hosts end with ', chip('--<slug>'), '.')),
    h('button', { type: 'submit' }, 'Create organization'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const v = formValues(form);
    void busy(form, async () => {
      try {
        const { createOrganization } = await gql(graphql('mutation CreateOrg($slug: String!, $name: String!) { createOrganization(slug: $slug, name: $name) { slug name } }'), {
          slug: (v.slug ?? '').trim(),
          name: v.name ?? '',
        });
        formDone(form, status);
        flash('ok', `${createOrganization.name} is created, and you are its owner. Create its first tunnel below.`);
        await loadBoot();
        navigate(orgPath(createOrganization.slug, 'tunnels'));
      } catch (err) {
        showFormError(form, status, err, err instanceof ApiError && err.code === 'CONFLICT' && err.field === 'slug' ? `The slug "${(v.slug ?? '').trim()}" is taken. Choose another one.` : undefined);
      }
    });
  });
  return h(
    'div',
    {},
    h('h1', { tabindex: -1 }, 'New organization'),
    h('p', { class: 'muted' }, 'An organization owns tunnels, access tokens and webhooks; its members work on them by role. You need a verified email address to create one.'),
    section('Organization', 'new-org', form, status),
  );
}

const MemberFields = graphql('fragment MemberFields on OrganizationMember { accountId email slug role joinedAt }');
type Member = ResultOf<typeof MemberFields>;

const ROLE_TEXT: Record<OrgRole, string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };

/** The roles the caller may give: owners make owners; admins make admins and members. */
const grantable = (org: Org): OrgRole[] => ORG_ROLES.filter((r) => (r === 'owner' ? can(org, 'owners.manage') : can(org, 'members.manage')));

/** Whether the caller may change or remove `m` (another member): owners are an owner's business. */
const manages = (org: Org, m: Member): boolean => (m.role === 'owner' ? can(org, 'owners.manage') : can(org, 'members.manage'));

/** A button that asks to be pressed a second time, saying what it will do then. */
function twoStep(label: string, aria: string, confirmLabel: string, run: () => void): HTMLButtonElement {
  const b = h('button', { type: 'button', class: 'secondary small', 'aria-label': aria }, label);
  let armed = false;
  b.addEventListener('click', () => {
    if (!armed) {
      armed = true;
      b.textContent = confirmLabel;
      b.classList.add('danger');
      b.setAttribute('aria-label', confirmLabel);
      return;
    }
    run();
  });
  return b;
}

export async function membersView(org: Org): Promise<Node> {
  const status = statusLine();
  const list = h('ul', { class: 'list members' });
  const load = async () => {
    const { organization } = await gql(graphql('query OrgMembers($slug: String!) { organization(slug: $slug) { members { edges { node { ...MemberFields } } } } }', [MemberFields]), {
      slug: org.slug,
    });
    list.replaceChildren(...organization.members.edges.map((e) => row(e.node)));
  };

  const row = (m: Member): HTMLElement => {
    const self = m.accountId === org.me.id;
    const li = h('li', { class: 'row member', 'data-account-id': m.accountId });
    const controls: Child[] = [];
    if (!self && manages(org, m)) {
      const roles = grantable(org);
      const form = h(
        'form',
        { novalidate: true, class: 'inline role-form', 'aria-label': `Role of ${m.email}` },
        selectField('Role', { name: 'role' }, roles.map((r) => [r, ROLE_TEXT[r]]), m.role),
        h('button', { type: 'submit', class: 'secondary small' }, 'Change role'),
      );
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        const role = (form.querySelector('select') as HTMLSelectElement).value;
        if (role === m.role) return status.show('info', `${m.email} is already ${ROLE_TEXT[m.role as OrgRole] ?? m.role}.`);
        void busy(li, async () => {
          try {
            await gql(graphql('mutation ChangeRole($slug: String!, $accountId: ID!, $role: String!) { changeMemberRole(slug: $slug, accountId: $accountId, role: $role) { role } }'), {
              slug: org.slug,
              accountId: m.accountId,
              role,
            });
            await load();
            status.show('ok', `${m.email} is now ${ROLE_TEXT[role as OrgRole] ?? role}.`);
          } catch (err) {
            status.show('error', explain(err));
          }
        });
      });
      controls.push(form);
      controls.push(
        twoStep('Remove', `Remove ${m.email}`, `Confirm: remove ${m.email}`, () => {
          void busy(li, async () => {
            try {
              await gql(graphql('mutation RemoveMember($slug: String!, $accountId: ID!) { removeMember(slug: $slug, accountId: $accountId) }'), { slug: org.slug, accountId: m.accountId });
              await load();
              status.show('ok', `${m.email} is no longer a member of ${org.name}.`);
            } catch (err) {
              status.show('error', explain(err));
            }
          });
        }),
      );
    }
    if (self) {
      controls.push(
        twoStep('Leave', `Leave ${org.name}`, `Confirm: leave ${org.name}`, () => {
          void busy(li, async () => {
            try {
              await gql(graphql('mutation LeaveOrg($slug: String!, $accountId: ID!) { removeMember(slug: $slug, accountId: $accountId) }'), { slug: org.slug, accountId: m.accountId });
              flash('ok', `You left ${org.name}.`);
              await loadBoot();
              navigate('/tunnels');
            } catch (err) {
              status.show('error', explain(err));
            }
          });
        }),
      );
    }
    append(li, [
      h(
        'div',
        {},
        h('strong', { class: 'email' }, m.email),
        self ? h('span', { class: 'muted' }, ' (you)') : null,
        h('br'),
        h('span', { class: 'muted' }, h('span', { class: 'badge ok role' }, ROLE_TEXT[m.role as OrgRole] ?? m.role), ' ', chip(m.slug), ' · joined ', timeEl(m.joinedAt)),
      ),
      controls.length ? h('div', { class: 'buttons member-actions' }, controls) : null,
    ]);
    return li;
  };

  await load();
  return h(
    'div',
    {},
    ...pageHeading(org, 'Members'),
    h('p', { class: 'muted' }, 'Owners may do everything; admins manage members (other than owners), tokens, webhooks and who may reach tunnels; members create, change and delete tunnels. An organization keeps at least one owner.'),
    can(org, 'invitations.manage') ? await invitations(org, load) : null,
    status,
    section(`Members of ${org.name}`, 'member-list', list),
  );
}

const InvitationFields = graphql('fragment InvitationFields on OrgInvitation { id email role createdAt expiresAt }');
type Invitation = ResultOf<typeof InvitationFields>;

/** Invite by address with a role (the link is emailed, 7 days, once); the pending ones, each revocable. */
async function invitations(org: Org, reloadMembers: () => Promise<void>): Promise<HTMLElement> {
  const status = statusLine();
  const list = h('ul', { class: 'list invitations' });
  const load = async () => {
    const { organization } = await gql(graphql('query OrgInvitations($slug: String!) { organization(slug: $slug) { invitations { edges { node { ...InvitationFields } } } } }', [InvitationFields]), {
      slug: org.slug,
    });
    const pending = organization.invitations.edges.map((e) => e.node);
    list.replaceChildren(...(pending.length ? pending.map(row) : [h('li', { class: 'muted' }, 'No pending invitation.')]));
  };
  const row = (i: Invitation): HTMLElement => {
    const revoke = h('button', { type: 'button', class: 'secondary small', 'aria-label': `Revoke the invitation of ${i.email}` }, 'Revoke');
    const li = h(
      'li',
      { class: 'row invitation', 'data-invitation-id': i.id },
      h('div', {}, chip(i.email), h('br'), h('span', { class: 'muted' }, `as ${i.role} · sent `, timeEl(i.createdAt), ' · expires ', timeEl(i.expiresAt))),
      revoke,
    );
    revoke.addEventListener('click', () => {
      void busy(li, async () => {
        try {
          await gql(graphql('mutation RevokeInvitation($slug: String!, $id: ID!) { revokeInvitation(slug: $slug, id: $id) }'), { slug: org.slug, id: i.id });
          await load();
          status.show('ok', `The invitation of ${i.email} is revoked: its link no longer works.`);
        } catch (err) {
          status.show('error', explain(err));
        }
      });
    });
    return li;
  };
  const roles = grantable(org);
  const form = h(
    'form',
    { novalidate: true, class: 'invite' },
    field('Email address', { name: 'email', type: 'email', required: true, autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false' }, 'They get a link valid 7 days; only an account with this verified address can accept it.'),
    selectField('Role', { name: 'role' }, roles.map((r) => [r, ROLE_TEXT[r]]), 'member'),
    h('button', { type: 'submit' }, 'Send invitation'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const v = formValues(form);
    void busy(form, async () => {
      try {
        const { createInvitation } = await gql(graphql('mutation Invite($slug: String!, $email: String!, $role: String!) { createInvitation(slug: $slug, email: $email, role: $role) { email role } }'), {
          slug: org.slug,
          email: (v.email ?? '').trim(),
          role: v.role ?? 'member',
        });
        formDone(form, status);
        form.reset();
        await Promise.all([load(), reloadMembers()]);
        status.show('ok', `Invitation sent to ${createInvitation.email} (as ${createInvitation.role}).`);
      } catch (err) {
        showFormError(form, status, err);
      }
    });
  });
  await load();
  return section('Invite someone', 'invite', form, status, h('h3', { class: 'subsection' }, 'Pending invitations'), list);
}

const AuditFields = graphql('fragment AuditFields on AuditEvent { id type actor { accountId email tokenId } target at ip }');
type AuditEntry = ResultOf<typeof AuditFields>;

const AUDIT_PAGE = 50;

export async function auditView(org: Org): Promise<Node> {
  const status = statusLine();
  const COLUMNS = ['Event', 'By', 'Details', 'When', 'Network'];
  const cell = (i: number, ...content: Child[]) => h('td', { 'data-label': COLUMNS[i] }, ...content);
  const body = h('tbody', {});
  const table = h(
    'table',
    { class: 'table audit' },
    h('caption', { class: 'visually-hidden' }, `Audit log of ${org.name}, newest first`),
    h('thead', {}, h('tr', {}, COLUMNS.map((c) => h('th', { scope: 'col' }, c)))),
    body,
  );
  const empty = h('p', { class: 'muted', hidden: true }, 'Nothing recorded yet.');
  const more = h('button', { type: 'button', class: 'secondary', hidden: true }, 'Show older events');
  let after: string | null = null;
  const load = async () => {
    const { organization } = await gql(
      graphql('query OrgAudit($slug: String!, $first: Int!, $after: String) { organization(slug: $slug) { audit(first: $first, after: $after) { edges { node { ...AuditFields } } pageInfo { hasNextPage endCursor } } } }', [AuditFields]),
      { slug: org.slug, first: AUDIT_PAGE, after },
    );
    const page = organization.audit;
    body.append(...page.edges.map((e) => entry(e.node)));
    after = page.pageInfo.endCursor ?? after;
    more.hidden = !page.pageInfo.hasNextPage;
    empty.hidden = body.childElementCount > 0;
    table.hidden = body.childElementCount === 0;
  };
  const entry = (e: AuditEntry): HTMLElement =>
    h(
      'tr',
      { 'data-event-id': e.id },
      cell(0, h('strong', {}, auditText(e.type))),
      cell(1, e.actor?.email ? h('span', { class: 'email' }, e.actor.email) : e.actor?.tokenId ? 'the organization’s token' : h('span', { class: 'muted' }, 'unknown')),
      cell(2, auditDetail(e.target)),
      cell(3, timeEl(e.at)),
      cell(4, e.ip),
    );
  more.addEventListener('click', () => {
    void busy(more, async () => {
      try {
        await load();
      } catch (err) {
        status.show('error', explain(err));
      }
    });
  });
  await load();
  return h(
    'div',
    {},
    ...pageHeading(org, 'Audit log'),
    h('p', { class: 'muted' }, 'Who changed what in the organization, newest first. Events are kept a year; networks are shortened.'),
    section('Events', 'audit-log', table, empty, h('div', { class: 'actions' }, more), status),
  );
}

export function orgSettingsView(org: Org): Node {
  const parts: Child[] = [];
  const renameStatus = statusLine();
  const ownerSlug = can(org, 'org.slug');
  const rename = h(
    'form',
    { novalidate: true, class: 'rename-org' },
    field('Name', { name: 'name', type: 'text', value: org.name, required: true, autocomplete: 'organization', maxlength: 100 }),
    ownerSlug
      ? field('Slug', { name: 'slug', type: 'text', value: org.slug, required: true, autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false' }, h('span', {}, SLUG_HINT, ' Renaming moves every tunnel of the organization to a new host.'))
      : null,
    h('button', { type: 'submit' }, 'Save'),
  );
  rename.addEventListener('submit', (e) => {
    e.preventDefault();
    const v = formValues(rename);
    const newSlug = ownerSlug ? (v.slug ?? '').trim() : org.slug;
    void busy(rename, async () => {
      try {
        const { updateOrganization } = await gql(graphql('mutation UpdateOrg($slug: String!, $name: String, $newSlug: String) { updateOrganization(slug: $slug, name: $name, newSlug: $newSlug) { slug name } }'), {
          slug: org.slug,
          name: v.name ?? '',
          newSlug: newSlug !== org.slug ? newSlug : null,
        });
        formDone(rename, renameStatus);
        flash('ok', `Saved: ${updateOrganization.name} (${updateOrganization.slug}).`);
        await loadBoot();
        navigate(orgPath(updateOrganization.slug, 'settings'), { replace: true });
      } catch (err) {
        showFormError(rename, renameStatus, err);
      }
    });
  });
  if (can(org, 'org.rename')) parts.push(section('Name and slug', 'org-name', rename, renameStatus));

  if (can(org, 'org.delete')) {
    const status = statusLine();
    const form = h(
      'form',
      { novalidate: true },
      h('p', {}, 'This deletes the organization with its tunnels, access tokens, webhooks and invitations at once; its hosts stop answering. There is no undo.'),
      field('Type the slug to confirm', { name: 'confirmSlug', type: 'text', autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false', required: true }, h('span', {}, 'Type ', h('strong', {}, org.slug), '.')),
      h('button', { type: 'submit', class: 'danger' }, 'Delete organization'),
    );
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const typed = (formValues(form).confirmSlug ?? '').trim();
      if (typed !== org.slug) return showFieldError(form, status, 'confirmSlug', `Type ${org.slug} exactly to confirm.`);
      void busy(form, async () => {
        try {
          await withRecentAuth(
            () => gql(graphql('mutation DeleteOrg($slug: String!, $confirmSlug: String!) { deleteOrganization(slug: $slug, confirmSlug: $confirmSlug) }'), { slug: org.slug, confirmSlug: typed }),
            'Deleting an organization needs a recent sign-in.',
          );
          flash('ok', `${org.name} is deleted.`);
          await loadBoot();
          navigate('/tunnels', { replace: true });
        } catch (err) {
          showFormError(form, status, err);
        }
      });
    });
    parts.push(h('section', { class: 'card danger-zone', id: 'delete-org', 'aria-labelledby': 'delete-org-title' }, h('h2', { id: 'delete-org-title' }, 'Delete organization'), form, status));
  }
  return h('div', {}, ...pageHeading(org, 'Settings'), parts);
}
