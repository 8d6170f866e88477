// A small Pothos plugin: what a field allows is declared on the field itself, so adding a field
// needs no list elsewhere (issue 55, item 1).
// - `tokenScopes`: the service-token scopes, any one of which reaches the field (API.md section
//   12). On an object type it is the default of each of its fields (a field's own wins). A field
//   with none, on a type with none, is out of every token's reach (sessions, tokens, security,
//   webhooks, and whatever is added later without a thought for tokens).
// - `hashesPassword`: a root mutation that verifies or hashes a password; an operation selects
//   at most one (password-budget.ts).
// Both land in the built field's `extensions` (`tokenScopes`, `hashesPassword`), fixed when the
// schema is built; the checks read them from there (token-scopes.ts, password-budget.ts).
// Why not @pothos/plugin-scope-auth for the scopes: it authorizes each field as it resolves, so a
// refused token would get a partial answer; a token's request is refused whole, before anything
// runs, with the first field out of its reach named.
import SchemaBuilder, { BasePlugin, PothosSchemaError, type FieldNullability, type InputFieldMap, type PothosOutputFieldConfig, type SchemaTypes, type TypeParam } from '@pothos/core';
import type { GraphQLField } from 'graphql';
import { TOKEN_SCOPES, type TokenScope } from '../../domain/tokens/scopes.js';

/** The reaches a field may declare: any one of the listed scopes suffices. */
export const TOKEN_REACH = {
  /** The account's profile: account:read. */
  account: ['account:read'],
  /** Reading tunnels: either tunnel scope. */
  tunnelsRead: ['tunnels:read', 'tunnels:write'],
  /** Changing tunnels: tunnels:write. */
  tunnelsWrite: ['tunnels:write'],
  /** Any token (the way in, `me`; what is public anyway). */
  any: TOKEN_SCOPES,
  /** No token, even on a type that has a default (who holds access names other people). */
  none: [],
} as const satisfies Record<string, readonly TokenScope[]>;

// Pothos's options are global interfaces: merging needs the same names and type parameters.
/* eslint-disable @typescript-eslint/no-namespace, @typescript-eslint/no-unused-vars */
declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      fieldPolicy: PothosFieldPolicyPlugin<Types>;
    }

    export interface ObjectTypeOptions<Types extends SchemaTypes = SchemaTypes, Shape = unknown> {
      /** The service-token scopes that reach every field of this type that declares none. */
      tokenScopes?: readonly TokenScope[];
    }

    export interface FieldOptions<
      Types extends SchemaTypes = SchemaTypes,
      ParentShape = unknown,
      Type extends TypeParam<Types> = TypeParam<Types>,
      Nullable extends FieldNullability<Type> = FieldNullability<Type>,
      Args extends InputFieldMap = InputFieldMap,
      ResolveShape = unknown,
      ResolveReturnShape = unknown,
    > {
      /** The service-token scopes, any one of which reaches this field; none: no token does. */
      tokenScopes?: readonly TokenScope[];
      /** A root mutation that verifies or hashes a password (at most one per operation). */
      hashesPassword?: true;
    }
  }
}
/* eslint-enable @typescript-eslint/no-namespace, @typescript-eslint/no-unused-vars */

/** What the plugin puts in a built field's extensions. */
interface FieldPolicyExtensions {
  tokenScopes?: readonly TokenScope[];
  hashesPassword?: true;
}

/** The scopes that reach a built field (undefined: no token reaches it). */
export const tokenScopesOf = (field: GraphQLField<unknown, unknown> | null | undefined): readonly TokenScope[] | undefined =>
  (field?.extensions as FieldPolicyExtensions | undefined)?.tokenScopes;

/** True for a root mutation declared `hashesPassword`. */
export const hashesPassword = (field: GraphQLField<unknown, unknown> | null | undefined): boolean =>
  (field?.extensions as FieldPolicyExtensions | undefined)?.hashesPassword === true;

export class PothosFieldPolicyPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override onOutputFieldConfig(fieldConfig: PothosOutputFieldConfig<Types>): PothosOutputFieldConfig<Types> {
    const options = fieldConfig.pothosOptions as { tokenScopes?: readonly TokenScope[]; hashesPassword?: true };
    const typeConfig = this.buildCache.getTypeConfig(fieldConfig.parentType);
    const typeScopes = typeConfig.kind === 'Object' ? (typeConfig.pothosOptions as { tokenScopes?: readonly TokenScope[] }).tokenScopes : undefined;
    const tokenScopes = options.tokenScopes ?? typeScopes;
    if (options.hashesPassword && typeConfig.kind !== 'Mutation') {
      throw new PothosSchemaError(`${fieldConfig.parentType}.${fieldConfig.name}: hashesPassword is for root mutations`);
    }
    if (tokenScopes === undefined && !options.hashesPassword) return fieldConfig;
    const policy: FieldPolicyExtensions = {
      ...(tokenScopes !== undefined ? { tokenScopes: Object.freeze([...tokenScopes]) } : {}),
      ...(options.hashesPassword ? { hashesPassword: true } : {}),
    };
    return { ...fieldConfig, extensions: { ...fieldConfig.extensions, ...policy } };
  }
}

SchemaBuilder.registerPlugin('fieldPolicy', PothosFieldPolicyPlugin);

export default 'fieldPolicy' as const;
