// Rewrites the problem-types table of docs/api.md from the catalog (src/domain/problems.ts):
// `npx tsx scripts/print-problems.ts` after adding an entry. test/domain/problems.test.ts checks it.
import { readFileSync, writeFileSync } from 'node:fs';
import { PROBLEM_AREAS, PROBLEM_LIST } from '../src/domain/problems.js';

const rows = PROBLEM_AREAS.flatMap((area) =>
  PROBLEM_LIST.filter((p) => p.area === area).map(
    (p) => `| ${area} | \`${p.slug}\` | ${p.oauthError ? `\`${p.oauthError}\`` : `\`${p.code}\``} | ${p.status} | ${p.title}: ${p.description} |`,
  ),
);
const table = ['| area | type (`/problems/…`) | `code` (OAuth: `error`) | status | meaning |', '|---|---|---|---|---|', ...rows].join('\n');
const path = new URL('../docs/api.md', import.meta.url);
const doc = readFileSync(path, 'utf8');
const next = doc.replace(/(<!-- problem-types:[^>]*-->\n)[\s\S]*?(\n<!-- \/problem-types -->)/, (_m, open: string, close: string) => `${open}${table}${close}`);
writeFileSync(path, next);
