// A REST request's variables, checked against the GraphQL operation its route runs: each variable
// is read from the JSON body, the path or the query string (the route names which), and its type
// is the one its definition in the document declares, coerced by graphql-js (coerceInputValue) as
// the execution would, so a REST client hears about its own field (`current_password`), not about
// GraphQL's variable (`$currentPassword`). The OpenAPI document prints the same types as the
// parameters' and body fields' JSON Schema (openapi.ts).
import type { FastifyRequest } from 'fastify';
import {
  coerceInputValue,
  getNamedType,
  getNullableType,
  GraphQLInt,
  isListType,
  isNonNullType,
  isScalarType,
  Kind,
  typeFromAST,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { badRequest, invalidInput, notFound, PROBLEMS } from '../../domain/errors.js';
import type { RestRoute } from './route.js';

/** A variable of the route's operation, with its GraphQL type (non-null when required). */
export interface RouteVariable {
  type: GraphQLInputType;
  required: boolean;
  /** How the refusal names what the value must be: "a string", "a list of strings". */
  mustBe: string;
  /** Its JSON Schema (without null), for the OpenAPI document. */
  jsonSchema: Record<string, unknown>;
}

/** The scalars a REST value may take: how a refusal names each, and its JSON Schema type. */
const SCALARS: Record<string, { one: string; many: string; json: string }> = {
  String: { one: 'a string', many: 'strings', json: 'string' },
  ID: { one: 'a string', many: 'strings', json: 'string' },
  Boolean: { one: 'a boolean', many: 'booleans', json: 'boolean' },
  Int: { one: 'an integer', many: 'integers', json: 'integer' },
  JSONObject: { one: 'a JSON object', many: 'JSON objects', json: 'object' },
};

/** The route's operation (the first of its document). */
export function operationOf(route: RestRoute): OperationDefinitionNode {
  const operation = (route.document as DocumentNode).definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (!operation) throw new Error(`REST ${route.method} ${route.url}: the document has no operation`);
  return operation;
}

function describe(route: RestRoute, type: GraphQLInputType): Pick<RouteVariable, 'mustBe' | 'jsonSchema'> {
  const nullable = getNullableType(type);
  const named = getNamedType(type);
  const scalar = isScalarType(named) ? SCALARS[named.name] : undefined;
  const list = isListType(nullable);
  if (!scalar || (list && isListType(getNullableType(nullable.ofType)))) {
    throw new Error(`REST ${route.method} ${route.url}: no REST form for a variable of type ${String(type)}`);
  }
  return list
    ? { mustBe: `a list of ${scalar.many}`, jsonSchema: { type: 'array', items: { type: scalar.json } } }
    : { mustBe: scalar.one, jsonSchema: { type: scalar.json } };
}

/** Each variable of the route's operation, by name, in the order the document defines them. */
export function routeVariables(schema: GraphQLSchema, route: RestRoute): Map<string, RouteVariable> {
  const variables = new Map<string, RouteVariable>();
  for (const definition of operationOf(route).variableDefinitions ?? []) {
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    if (!type) throw new Error(`REST ${route.method} ${route.url}: $${definition.variable.name.value} has an unknown type`);
    variables.set(definition.variable.name.value, { type, required: isNonNullType(type), ...describe(route, type) });
  }
  return variables;
}

/** True when graphql-js takes `value` for the variable (a list must be a list: graphql-js would
 *  take a lone value as a list of one). */
function accepts(variable: RouteVariable, value: unknown): boolean {
  if (isListType(getNullableType(variable.type)) && !Array.isArray(value)) return false;
  let ok = true;
  coerceInputValue(value, variable.type, () => {
    ok = false;
  });
  return ok;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The operation's variables from the request, or the 400 (404 for a NUL in a path parameter). */
export function variablesOf(route: RestRoute, definitions: Map<string, RouteVariable>, req: FastifyRequest): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  const fieldOf = new Map<string, string>();
  if (route.body) {
    let body: unknown = req.body ?? {};
    if (!isPlainObject(body)) {
      if (!route.bodyFallback) throw badRequest(PROBLEMS.bodyNotObject, 'The request body must be a JSON object.');
      body = {};
    }
    const fields = body as Record<string, unknown>;
    // An absent field stays absent (GraphQL would coerce `undefined` to null: "clear it").
    for (const [field, variable] of Object.entries(route.body)) {
      fieldOf.set(variable, field);
      const fallback = route.bodyFallback?.[field];
      const value = fallback !== undefined && typeof fields[field] !== 'string' ? fallback : fields[field];
      if (value !== undefined) variables[variable] = value;
    }
  }
  const params = (req.params ?? {}) as Record<string, string>;
  for (const [param, variable] of Object.entries(route.params ?? {})) {
    // No stored id holds a NUL byte (PostgreSQL text cannot), and a query with one fails.
    if (params[param]?.includes('\u0000')) throw notFound(PROBLEMS.notFound);
    fieldOf.set(variable, param);
    variables[variable] = params[param];
  }
  const query = (req.query ?? {}) as Record<string, string | string[] | undefined>;
  for (const [name, variable] of Object.entries(route.query ?? {})) {
    const raw = query[name];
    if (raw === undefined || raw === '') continue;
    fieldOf.set(variable, name);
    if (Array.isArray(raw)) throw badRequest(PROBLEMS.invalidParameter, `"${name}" must be given once.`);
    // Query strings are text: an Int variable takes plain decimal digits, anything else is refused.
    const int = definitions.get(variable) !== undefined && getNamedType(definitions.get(variable)!.type) === GraphQLInt;
    variables[variable] = int ? (/^[0-9]{1,9}$/.test(raw) ? Number(raw) : raw) : raw;
  }
  for (const [name, variable] of definitions) {
    const value = variables[name];
    const field = fieldOf.get(name) ?? name;
    // `field` of these errors is the variable: its REST input is looked up by the caller.
    if (value === undefined || value === null) {
      if (variable.required) throw invalidInput(PROBLEMS.invalidParameter, name, `"${field}" is required.`);
    } else if (!accepts(variable, value)) {
      throw invalidInput(PROBLEMS.invalidParameter, name, `"${field}" must be ${variable.mustBe}.`);
    }
  }
  return variables;
}
