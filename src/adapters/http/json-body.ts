// Request bodies on the API host: JSON for every content type (legacy clients send odd ones),
// at most 64 KiB; an empty body is "no body".
import type { FastifyInstance } from 'fastify';
import { badRequest } from '../../domain/errors.js';
import { BODY_LIMIT } from '../errors.js';

export function registerJsonBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(badRequest('The request body is not valid JSON.'), undefined);
    }
  });
}
