// Tunnel hosts and custom domains: the Server Card paths. Until cards land, every host is unknown.
import { writeProblem } from '../http/problem.js';
import type { RawHandler } from '../http/raw.js';
import type { Deps } from '../deps.js';

export interface CardHandlers {
  /** A `<label>.ZONE` host: card paths, anything else 404. */
  tunnelHost: RawHandler;
  /** A card path on any other host: served when the host is a tunnel's custom domain. */
  customDomain: RawHandler;
}

export function createCardHandlers(_deps: Deps): CardHandlers {
  const notFound: RawHandler = (_req, res) => writeProblem(res, { code: 'NOT_FOUND', status: 404, message: 'Not found.' });
  return { tunnelHost: notFound, customDomain: notFound };
}
