// The delivery log's words: node's errors (live, or as attempts recorded them before) become
// sentences an endpoint's owner can act on; text that is already words is left as it is.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectionFailureText, readableDeliveryError, statusAnswerText, timeoutText } from '../../../src/domain/webhooks/delivery-errors.js';

const nodeError = (code: string, message: string) => Object.assign(new Error(message), { code });

test('connection failures in words, from the error or from its cause', () => {
  const refused = nodeError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:1');
  assert.equal(connectionFailureText(refused), 'Could not connect to the endpoint (connection refused).');
  assert.equal(connectionFailureText(new Error('connect ECONNREFUSED 127.0.0.1:1', { cause: refused })), 'Could not connect to the endpoint (connection refused).');
  assert.equal(connectionFailureText(nodeError('ECONNRESET', 'read ECONNRESET')), 'The endpoint closed the connection before answering (connection reset).');
  assert.equal(connectionFailureText(nodeError('EHOSTUNREACH', 'connect EHOSTUNREACH 203.0.113.9:443')), 'Could not reach the endpoint’s host (no route to it).');
  assert.equal(connectionFailureText(new Error('socket hang up')), 'The endpoint closed the connection without answering.');
  assert.equal(connectionFailureText(new Error('something else')), 'The delivery failed: something else');
});

test('TLS failures name what was wrong with the certificate or the handshake', () => {
  assert.equal(connectionFailureText(nodeError('CERT_HAS_EXPIRED', 'certificate has expired')), 'Could not make a secure connection to the endpoint (its certificate has expired).');
  assert.equal(connectionFailureText(nodeError('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate')), 'Could not make a secure connection to the endpoint (its certificate is self-signed).');
  assert.equal(connectionFailureText(nodeError('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames")), 'Could not make a secure connection to the endpoint (its certificate does not name this host).');
  assert.equal(connectionFailureText(nodeError('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate')), 'Could not make a secure connection to the endpoint (its certificate is not signed by a trusted authority).');
  assert.equal(connectionFailureText(nodeError('ERR_SSL_WRONG_VERSION_NUMBER', 'SSL routines::wrong version number')), 'Could not make a secure connection to the endpoint (the TLS handshake failed).');
});

test('answers and timeouts', () => {
  assert.equal(statusAnswerText(503), 'The endpoint answered with status 503 (Service Unavailable); only a 2xx counts as delivered.');
  assert.equal(statusAnswerText(399), 'The endpoint answered with status 399; only a 2xx counts as delivered.');
  assert.equal(timeoutText(15_000), 'The endpoint did not answer within 15 seconds (timed out).');
});

test('attempts recorded with node’s messages read as words; words stay as they are', () => {
  assert.equal(readableDeliveryError('connect ECONNREFUSED 127.0.0.1:1'), 'Could not connect to the endpoint (connection refused).');
  assert.equal(readableDeliveryError('Delivery failed: getaddrinfo ENOTFOUND hooks.example.com'), 'Could not find the endpoint’s host (DNS lookup failed).');
  assert.equal(readableDeliveryError('No answer within 15000 ms.'), 'The endpoint did not answer within 15 seconds (timed out).');
  assert.equal(readableDeliveryError('The endpoint answered 500.'), 'The endpoint answered with status 500 (Internal Server Error); only a 2xx counts as delivered.');
  assert.equal(readableDeliveryError('certificate has expired'), 'Could not make a secure connection to the endpoint (its certificate has expired).');
  assert.equal(readableDeliveryError(null), null);
  for (const words of [
    'The host tls.example.com resolves to a non-public address (private); only public addresses are allowed.',
    'The host hooks.example.com could not be resolved.',
    'The service could not sign this delivery (it cannot read the endpoint’s secret); it will try again.',
    connectionFailureText(nodeError('ECONNREFUSED', 'x')),
    connectionFailureText(nodeError('ERR_SSL_WRONG_VERSION_NUMBER', 'x')),
    connectionFailureText(nodeError('CERT_HAS_EXPIRED', 'x')),
    statusAnswerText(503),
    timeoutText(15_000),
  ]) {
    assert.equal(readableDeliveryError(words), words);
  }
});
