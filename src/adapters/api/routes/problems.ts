// The problem types' documentation: every problem's `type` is BASE_URL/problems/<slug>, and GET of
// it answers the catalog entry (src/domain/problems.ts), so a type URI dereferences to what it
// means. GET /problems lists the whole catalog.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { notFound, PROBLEMS } from '../../../domain/errors.js';
import { PROBLEM_AREAS, PROBLEM_LIST, PROBLEMS_PATH, problemBySlug, problemTypeUri, type ProblemType } from '../../../domain/problems.js';
import { problem, type RawPaths } from '../../openapi-paths.js';
import { problemTypeFields } from '../../problem.js';

const ProblemTypeDoc = z.strictObject({
  type: z.string().meta({ description: 'The problem type URI: BASE_URL/problems/<slug>.' }),
  slug: z.string(),
  area: z.enum(PROBLEM_AREAS),
  code: z.string().meta({ description: 'The `code` of its answers.' }),
  status: z.number().int().meta({ description: 'The HTTP status of its answers.' }),
  title: z.string(),
  description: z.string(),
  oauth_error: z.string().optional().meta({ description: 'For the OAuth endpoints: the `error` they answer (RFC 6749 section 5.2).' }),
});

const docOf = (baseUrl: string, p: ProblemType): z.infer<typeof ProblemTypeDoc> => ({ type: problemTypeUri(baseUrl, p), ...problemTypeFields(p) });

const CACHE = 'public, max-age=3600';

export function registerProblemRoutes(app: FastifyInstance, baseUrl: string): void {
  const list = JSON.stringify({ problems: PROBLEM_LIST.map((p) => docOf(baseUrl, p)) });
  app.get(PROBLEMS_PATH, async (_req, reply) => reply.headers({ 'content-type': 'application/json; charset=utf-8', 'cache-control': CACHE }).send(list));
  app.get<{ Params: { slug: string } }>(`${PROBLEMS_PATH}/:slug`, async (req, reply) => {
    const p = problemBySlug(req.params.slug);
    if (!p) throw notFound(PROBLEMS.notFound, 'No such problem type.');
    return reply.header('cache-control', CACHE).send(docOf(baseUrl, p));
  });
}

export const problemPaths: RawPaths = {
  [PROBLEMS_PATH]: {
    get: {
      operationId: 'listProblemTypes',
      summary: 'The catalog of problem types every error answer is one of.',
      tags: ['Operations'],
      security: [],
      responses: { '200': { description: 'The catalog.', content: { 'application/json': z.strictObject({ problems: z.array(ProblemTypeDoc) }) } } },
    },
  },
  [`${PROBLEMS_PATH}/{slug}`]: {
    get: {
      operationId: 'getProblemType',
      summary: 'What a problem type means: the target of every problem’s `type` URI.',
      tags: ['Operations'],
      security: [],
      parameters: [{ name: 'slug', in: 'path', required: true, schema: { type: 'string' } }],
      responses: { '200': { description: 'The catalog entry.', content: { 'application/json': ProblemTypeDoc } }, '404': problem('No problem type has this slug.') },
    },
  },
};
