// The HTML answer to a callback with a bad, expired or replayed state (status 400, no script),
// for people whose browser lands there: what happened and a way back to the app.
import type { FastifyReply } from 'fastify';
import { PAGE_HEADERS, frame } from './layout.js';
import { escapeHtml } from '../../infra/html/escape.js';

export function badStatePage(reply: FastifyReply, appUrl: string, serviceName: string): FastifyReply {
  const html = frame({
    serviceName,
    title: 'Sign-in could not be completed',
    body:
      '<p>This sign-in attempt is invalid, has expired or was already used. Nothing was changed.</p>\n' +
      `<p><a href="${escapeHtml(appUrl)}/">Go back and start the sign-in again</a></p>`,
  });
  return reply.status(400).headers(PAGE_HEADERS).send(html);
}
