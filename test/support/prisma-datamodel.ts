// The models of schema.prisma, read from the file itself: what the migration test compares the
// migrated database against. Only what this schema uses is understood (models, scalar and
// relation fields, `?` and `[]`, @id, @unique, @map, @@id, @@unique, @@map); anything else in a
// field line is ignored, and the test checks the reading against the generated client's own
// data model (names, kinds, types and database names of every model and field).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DatamodelField {
  name: string;
  /** `scalar`, or `object` for a relation to another model. */
  kind: 'scalar' | 'object';
  type: string;
  isList: boolean;
  isRequired: boolean;
  isId: boolean;
  isUnique: boolean;
  /** The column (@map), or null when it is the field's name. */
  dbName: string | null;
}

export interface DatamodelModel {
  name: string;
  /** The table (@@map), or null when it is the model's name. */
  dbName: string | null;
  fields: DatamodelField[];
  primaryKey: string[] | null;
  uniqueIndexes: string[][];
}

export const SCHEMA_PRISMA = join(import.meta.dirname, '../../schema.prisma');

const fieldList = (args: string): string[] => (args.match(/^\s*\[([^\]]*)\]/)?.[1] ?? '').split(',').map((f) => f.trim().replace(/\(.*$/, '')).filter(Boolean);

/** Every model of the schema, by name. */
export function readDatamodel(text = readFileSync(SCHEMA_PRISMA, 'utf8')): Record<string, DatamodelModel> {
  const source = text.replace(/\/\/.*$/gm, '');
  const models: Record<string, DatamodelModel> = {};
  for (const [, name, body] of source.matchAll(/^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm)) {
    const model: DatamodelModel = { name: name!, dbName: null, fields: [], primaryKey: null, uniqueIndexes: [] };
    for (const raw of body!.split('\n')) {
      const line = raw.trim();
      if (line === '') continue;
      const block = line.match(/^@@(\w+)\((.*)\)$/);
      if (block) {
        const [, attribute, args] = block;
        if (attribute === 'map') model.dbName = args!.match(/"([^"]+)"/)![1]!;
        else if (attribute === 'id') model.primaryKey = fieldList(args!);
        else if (attribute === 'unique') model.uniqueIndexes.push(fieldList(args!));
        continue;
      }
      const field = line.match(/^(\w+)\s+(\w+)(\[\])?(\?)?(.*)$/);
      if (!field) throw new Error(`schema.prisma, model ${name}: cannot read "${line}"`);
      const [, fieldName, type, list, optional, attributes] = field;
      model.fields.push({
        name: fieldName!,
        kind: 'scalar',
        type: type!,
        isList: list !== undefined,
        isRequired: optional === undefined,
        isId: /(^|\s)@id\b/.test(attributes!),
        isUnique: /(^|\s)@unique\b/.test(attributes!),
        dbName: attributes!.match(/(?:^|\s)@map\("([^"]+)"\)/)?.[1] ?? null,
      });
    }
    models[name!] = model;
  }
  // A field whose type is a model is a relation.
  for (const model of Object.values(models)) for (const f of model.fields) if (models[f.type]) f.kind = 'object';
  return models;
}
