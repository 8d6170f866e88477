/// <reference lib="dom" />
// The account page: profile, slug, email, password and deletion. Every action is one GraphQL
// mutation; the answer (or the server's error detail) shows next to the form that asked.
import { ApiError, gql } from './api.js';
import { graphql } from '../../documents/graphql.js';
import { flash, loadBoot, navigate, section, type Me } from './app.js';
import { busy, chip, field, formValues, h, statusLine, timeEl } from './dom.js';
import { formDone, showFieldError, showFormError } from './forms.js';

function profile(me: Me): HTMLElement {
  const row = (term: string, ...value: (Node | string)[]) => [h('dt', {}, term), h('dd', {}, ...value)];
  return section(
    'Profile',
    'profile',
    h(
      'dl',
      { class: 'facts' },
      row('Email', me.email),
      row('Verified', me.emailVerified ? h('span', { class: 'badge ok' }, 'Yes') : h('span', { class: 'badge warn' }, 'Not yet')),
      row('Plan', me.plan),
      row('Slug', chip(me.slug)),
      row('Last sign-in', me.lastLogin ? h('span', {}, timeEl(me.lastLogin.at), ` from ${me.lastLogin.ip}`) : 'none yet'),
    ),
  );
}

function slugForm(me: Me, refresh: () => void): HTMLElement {
  const status = statusLine();
  const form = h(
    'form',
    { novalidate: true },
    field(
      'New slug',
      { name: 'slug', type: 'text', value: me.slug, autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false', required: true, minlength: 3 },
      h(
        'span',
        {},
        '3 to 28 characters: lowercase letters, digits and hyphens, no hyphen at the start or the end, and no "--". Some words are reserved (for example api, www, admin, login, dashboard). Every tunnel host ends with ',
        chip(`--${me.slug}`),
        ', so renaming moves your tunnels to new addresses.',
      ),
    ),
    h('button', { type: 'submit' }, 'Rename'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const slug = (formValues(form).slug ?? '').trim();
    void busy(form, async () => {
      try {
        const { renameSlug } = await gql(graphql('mutation Rename($slug: String!) { renameSlug(slug: $slug) { slug } }'), { slug });
        flash('ok', `Your slug is now ${renameSlug.slug}.`);
        refresh();
      } catch (err) {
        showFormError(form, status, err, err instanceof ApiError && err.code === 'CONFLICT' ? `The slug "${slug}" is taken. Choose another one.` : undefined);
      }
    });
  });
  return section('Slug', 'slug', form, status);
}

function emailForm(me: Me): HTMLElement {
  const status = statusLine();
  if (!me.hasPassword) {
    return section('Email', 'email', h('p', {}, 'Changing your email needs your password. Your account signs in only with a provider: set a password first with "Forgot your password?" on the sign-in page.'));
  }
  const form = h(
    'form',
    { novalidate: true },
    field('New email', { name: 'newEmail', type: 'email', autocomplete: 'email', required: true }),
    field('Current password', { name: 'currentPassword', type: 'password', autocomplete: 'current-password', required: true }),
    h('button', { type: 'submit' }, 'Change email'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const v = formValues(form);
    void busy(form, async () => {
      try {
        await gql(graphql('mutation ChangeEmail($currentPassword: String!, $newEmail: String!) { changeEmail(currentPassword: $currentPassword, newEmail: $newEmail) }'), {
          currentPassword: v.currentPassword ?? '',
          newEmail: v.newEmail ?? '',
        });
        formDone(form, status);
        status.show('ok', `We sent a confirmation link to ${v.newEmail}. Your email stays ${me.email} until you open it.`);
        form.reset();
      } catch (err) {
        if (err instanceof ApiError && err.code === 'UNAUTHENTICATED') showFieldError(form, status, 'currentPassword', 'That is not your current password.');
        else showFormError(form, status, err, err instanceof ApiError && err.code === 'CONFLICT' ? 'That address is already used by another account.' : undefined);
      }
    });
  });
  return section('Email', 'email', h('p', {}, 'The new address becomes yours once you open the link we send to it.'), form, status);
}

function passwordForm(me: Me): HTMLElement {
  const status = statusLine();
  if (!me.hasPassword) {
    return section('Password', 'password', h('p', {}, 'Your account has no password yet. To set one, use "Forgot your password?" on the sign-in page: the link we email lets you choose it.'));
  }
  const form = h(
    'form',
    { novalidate: true },
    field('Current password', { name: 'currentPassword', type: 'password', autocomplete: 'current-password', required: true }),
    field('New password', { name: 'newPassword', type: 'password', autocomplete: 'new-password', required: true, minlength: 8 }, '8 to 128 characters.'),
    h('button', { type: 'submit' }, 'Change password'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const v = formValues(form);
    void busy(form, async () => {
      try {
        await gql(graphql('mutation ChangePassword($currentPassword: String!, $newPassword: String!) { changePassword(currentPassword: $currentPassword, newPassword: $newPassword) }'), {
          currentPassword: v.currentPassword ?? '',
          newPassword: v.newPassword ?? '',
        });
        formDone(form, status);
        status.show('ok', 'Your password is changed. Every other session was signed out; this one stays.');
        form.reset();
      } catch (err) {
        if (err instanceof ApiError && err.code === 'UNAUTHENTICATED') showFieldError(form, status, 'currentPassword', 'That is not your current password.');
        else showFormError(form, status, err);
      }
    });
  });
  return section('Password', 'password', form, status);
}

function deleteForm(me: Me): HTMLElement {
  const status = statusLine();
  const form = h(
    'form',
    { novalidate: true },
    h('p', {}, 'This deletes your account, its tunnels and sessions at once. There is no undo.'),
    field('Type your email to confirm', { name: 'email', type: 'email', autocomplete: 'off', required: true }, h('span', {}, 'Type ', h('strong', {}, me.email), '.')),
    field('Password', { name: 'password', type: 'password', autocomplete: 'current-password', required: true }),
    h('button', { type: 'submit', class: 'danger' }, 'Delete my account'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const v = formValues(form);
    if ((v.email ?? '').trim().toLowerCase() !== me.email.toLowerCase()) return showFieldError(form, status, 'email', `Type ${me.email} exactly to confirm.`);
    void busy(form, async () => {
      try {
        await gql(graphql('mutation DeleteAccount($email: String!, $password: String!) { deleteAccount(email: $email, password: $password) }'), { email: v.email ?? '', password: v.password ?? '' });
        flash('ok', 'Your account is deleted. Thank you for trying the service.');
        await loadBoot();
        navigate('/sign-in', { replace: true });
      } catch (err) {
        if (err instanceof ApiError && err.code === 'UNAUTHENTICATED') showFieldError(form, status, 'password', 'That is not your password.');
        else showFormError(form, status, err);
      }
    });
  });
  return h('section', { class: 'card danger-zone', id: 'delete', 'aria-labelledby': 'delete-title' }, h('h2', { id: 'delete-title' }, 'Delete account'), form, status);
}

export function accountView(me: Me, refresh: () => void): Node {
  return h('div', {}, h('h1', { tabindex: -1 }, 'Your account'), profile(me), slugForm(me, refresh), emailForm(me), passwordForm(me), deleteForm(me));
}
