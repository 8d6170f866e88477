// Request bodies on the API host: JSON only (application/json or a +json type), at most 64 KiB;
// an empty body is "no body". Any other content type is refused with 415 before a handler runs:
// a cross-site HTML form can send only form or text/plain bodies, so this also closes login CSRF
// by form (API.md section 3).
import type { FastifyInstance } from 'fastify';
import { badRequest, PROBLEMS } from '../../domain/errors.js';
import { BODY_LIMIT } from '../errors.js';

export function registerJsonBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  const parse = (_req: unknown, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(badRequest(PROBLEMS.invalidJson, 'The request body is not valid JSON.'), undefined);
    }
  };
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, parse);
  app.addContentTypeParser(/^application\/[\w.-]+\+json$/i, { parseAs: 'string', bodyLimit: BODY_LIMIT }, parse);
}
