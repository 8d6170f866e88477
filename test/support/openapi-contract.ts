// The contract check of API.md section 16: every answer an API test gets from a REST path of the
// API host is checked against the server's own OpenAPI document (GET /openapi.json): the status
// must be one the operation declares, the media type the one declared for it, and the body must
// validate against its schema (objects are strict: an extra field fails too). So a route whose
// answer changes without the document following, or the document without the route, fails the
// test that saw it. Requests the document does not describe (GraphQL, pages, other hosts, other
// methods) are not checked.
import { AssertionError } from 'node:assert';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Reply, RequestOptions } from './http.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the document is read as plain JSON

interface Operation {
  method: string;
  path: string;
  pattern: RegExp;
  responses: Json;
}

export interface Contract {
  operations: Operation[];
  validator(ref: string): ValidateFunction;
}

const DOC_ID = 'openapi.json';

export function compileContract(doc: Json): Contract {
  const ajv = new Ajv2020.default({ strict: false, allErrors: true, validateFormats: true, validateSchema: false });
  addFormats.default(ajv);
  ajv.addSchema(doc, DOC_ID);
  const operations: Operation[] = [];
  for (const [path, ops] of Object.entries(doc.paths as Json)) {
    // Paths with servers of their own (cards on tunnel hosts, /status on ZONE) are not the API host's.
    if ((ops as Json).servers) continue;
    const pattern = new RegExp(`^${path.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    for (const [method, op] of Object.entries(ops as Json)) if (method !== 'servers') operations.push({ method: method.toUpperCase(), path, pattern, responses: (op as Json).responses });
  }
  const compiled = new Map<string, ValidateFunction>();
  return {
    operations,
    validator(ref) {
      let v = compiled.get(ref);
      if (!v) {
        v = ajv.compile({ $ref: `${DOC_ID}${ref}` });
        compiled.set(ref, v);
      }
      return v;
    },
  };
}

const pointer = (...parts: string[]) => `#/${parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

/** Throws when the answer breaks the document; returns quietly for requests it does not describe. */
export function checkAgainstContract(contract: Contract, path: string, opts: RequestOptions, reply: Reply): void {
  if (opts.host && !/^localhost(:\d+)?$/.test(opts.host)) return;
  const method = (opts.method ?? 'GET').toUpperCase();
  const pathname = new URL(path, 'http://localhost').pathname;
  const op = contract.operations.find((o) => o.method === method && o.pattern.test(pathname));
  if (!op) return;
  const where = `${method} ${pathname} (${op.path}) answered ${reply.status}`;
  const key = String(reply.status) in op.responses ? String(reply.status) : `${String(reply.status)[0]}XX` in op.responses ? `${String(reply.status)[0]}XX` : null;
  if (!key) throw new AssertionError({ message: `OpenAPI contract: ${where}, a status the document does not declare (${Object.keys(op.responses).join(', ')}):\n${reply.text.slice(0, 500)}` });
  const content = op.responses[key].content as Json | undefined;
  if (!content) {
    if (reply.text !== '') throw new AssertionError({ message: `OpenAPI contract: ${where} with a body, where the document declares none:\n${reply.text.slice(0, 500)}` });
    return;
  }
  const type = String(reply.headers['content-type'] ?? '').split(';')[0]!.trim();
  if (!(type in content)) throw new AssertionError({ message: `OpenAPI contract: ${where} as ${type || 'no content type'}, where the document declares ${Object.keys(content).join(', ')}` });
  if (!type.endsWith('json')) return;
  const validate = contract.validator(`${pointer('paths', op.path, method.toLowerCase(), 'responses', key, 'content', type)}/schema`);
  if (!validate(reply.json)) {
    throw new AssertionError({ message: `OpenAPI contract: ${where}, a body that does not match the document: ${JSON.stringify(validate.errors?.slice(0, 5))}\n${reply.text.slice(0, 500)}` });
  }
}
