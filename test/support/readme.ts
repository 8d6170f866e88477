// The documented walks, as the tests run them: the one code block of a language (`sh` by default)
// that contains a marker, in the README or in docs/walkthroughs.md (where the README's walks continue).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const DOCUMENTS = ['../../README.md', '../../docs/walkthroughs.md'];

export function readmeBlock(containing: string, language = 'sh'): string {
  const text = DOCUMENTS.map((d) => readFileSync(new URL(d, import.meta.url), 'utf8')).join('\n');
  const block = [...text.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]!).find((b) => b.includes(containing));
  assert.ok(block, `the README or docs/walkthroughs.md has a ${language} block with ${containing}`);
  return block;
}
