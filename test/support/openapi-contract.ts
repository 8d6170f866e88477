// The contract check of API.md section 16: every answer an API test gets from a REST path of the
// API host, or from a path of the status page on ZONE, is checked against the server's own
// OpenAPI document (GET /openapi.json): the status
// must be one the operation declares, the media type the one declared for it, and the body must
// validate against its schema (objects are strict: an extra field fails too). So a route whose
// answer changes without the document following, or the document without the route, fails the
// test that saw it. A JSON request body the server took (a 2xx) must validate against the
// operation's request schema too (when it requires a member), so the document does not refuse
// what the server accepts.
// Requests the document does not describe (GraphQL, pages, tunnel hosts, other
// methods) are not checked.
import { AssertionError } from 'node:assert';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Reply, RequestOptions } from './http.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the document is read as plain JSON

interface Operation {
  /** The host the path is on: null for the API host. */
  host: string | null;
  method: string;
  path: string;
  pattern: RegExp;
  responses: Json;
  requestBody: Json | undefined;
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
    // Paths with servers of their own are on ZONE (the status page) or on any tunnel host (not checked).
    const servers = (ops as Json).servers as { url: string }[] | undefined;
    if (servers?.[0]?.url.includes('{')) continue;
    const host = servers ? new URL(servers[0]!.url).hostname : null;
    const pattern = new RegExp(`^${path.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    for (const [method, op] of Object.entries(ops as Json)) if (method !== 'servers') operations.push({ host, method: method.toUpperCase(), path, pattern, responses: (op as Json).responses, requestBody: (op as Json).requestBody });
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
  const hostname = opts.host ? opts.host.replace(/:\d+$/, '') : 'localhost';
  const host = hostname === 'localhost' ? null : hostname;
  const method = (opts.method ?? 'GET').toUpperCase();
  const pathname = new URL(path, 'http://localhost').pathname;
  const op = contract.operations.find((o) => o.host === host && o.method === method && o.pattern.test(pathname));
  if (!op) return;
  const where = `${method} ${pathname} (${op.path}) answered ${reply.status}`;
  checkRequestBody(contract, op, opts, reply);
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

/** A JSON object body the server accepted, against the operation's request schema. */
function checkRequestBody(contract: Contract, op: Operation, opts: RequestOptions, reply: Reply): void {
  const body = opts.body;
  if (reply.status < 200 || reply.status > 299 || typeof body !== 'object' || body === null || Buffer.isBuffer(body)) return;
  const type = (opts.headers?.['content-type'] ?? 'application/json').split(';')[0]!.trim();
  // A body sent where none is read (or in another media type) is the server's to ignore; so is
  // one where nothing is required (forgot-password answers the same to any JSON object).
  const declared = op.requestBody?.content?.[type]?.schema as Json | undefined;
  if (!declared || !declared.required) return;
  const where = `${op.method} ${op.path} answered ${reply.status}`;
  const validate = contract.validator(`${pointer('paths', op.path, op.method.toLowerCase(), 'requestBody', 'content', type)}/schema`);
  if (!validate(body)) {
    throw new AssertionError({ message: `OpenAPI contract: ${where} to a body the document refuses: ${JSON.stringify(validate.errors?.slice(0, 5))}\n${JSON.stringify(body).slice(0, 500)}` });
  }
}
