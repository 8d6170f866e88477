// The HTML answer to a callback with a bad, expired or replayed state (status 400, no script),
// for people whose browser lands there: what happened and a way back to the app.
import type { FastifyReply } from 'fastify';
import { PAGE_HEADERS } from './layout.js';
import { escapeHtml } from '../../infra/html/escape.js';

export function badStatePage(reply: FastifyReply, appUrl: string): FastifyReply {
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign-in could not be completed</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;line-height:1.5}</style>
</head>
<body>
<h1>Sign-in could not be completed</h1>
<p>This sign-in attempt is invalid, has expired or was already used. Nothing was changed.</p>
<p><a href="${escapeHtml(appUrl)}/">Go back and start the sign-in again</a></p>
</body>
</html>
`;
  return reply.status(400).headers(PAGE_HEADERS).send(html);
}
