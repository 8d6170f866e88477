// Which unique constraint a write broke is read from the error's structured metadata, never from
// its message (which quotes the call's arguments, `customDomain: null` included).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { violates } from '../../../src/infra/db/errors.js';

/** The shape Prisma 7 gives a unique violation through the pg driver adapter. */
const adapterError = (index: string, message = '') =>
  Object.assign(new Error(message), {
    code: 'P2002',
    meta: { modelName: 'Tunnel', driverAdapterError: { name: 'DriverAdapterError', cause: { originalCode: '23505', kind: 'UniqueConstraintViolation', constraint: { index }, table: 'tunnels' } } },
  });

test('a duplicate subdomain is the subdomain’s violation even when the message quotes customDomain', () => {
  const err = adapterError('tunnels_account_id_subdomain_key', 'Invalid `prisma.tunnel.create()` invocation: { data: { subdomain: "x", customDomain: null } }');
  assert.equal(violates(err, 'custom_domain', 'customDomain'), false);
  assert.equal(violates(err, 'subdomain'), true);
});

test('a taken custom domain is the custom domain’s violation', () => {
  const err = adapterError('tunnels_custom_domain_key', 'Invalid invocation: { subdomain: "x" }');
  assert.equal(violates(err, 'custom_domain', 'customDomain'), true);
  assert.equal(violates(err, 'subdomain'), false);
});

test('the columns of a classic `target`, and PostgreSQL’s sentence when no constraint is given', () => {
  const classic = Object.assign(new Error('customDomain'), { code: 'P2002', meta: { target: ['account_id', 'subdomain'] } });
  assert.equal(violates(classic, 'subdomain'), true);
  assert.equal(violates(classic, 'custom_domain', 'customDomain'), false);
  const sentence = Object.assign(new Error(''), {
    code: 'P2002',
    meta: { driverAdapterError: { cause: { originalMessage: 'duplicate key value violates unique constraint "accounts_slug_key"' } } },
  });
  assert.equal(violates(sentence, 'slug'), true);
  assert.equal(violates(sentence, 'email_normalized'), false);
});

test('anything but a unique violation is none', () => {
  assert.equal(violates(new Error('subdomain'), 'subdomain'), false);
  assert.equal(violates(Object.assign(new Error('subdomain'), { code: 'P2025' }), 'subdomain'), false);
});
