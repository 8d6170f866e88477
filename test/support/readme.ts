// The README's shell blocks, as the tests run them: the one `sh` block that contains a marker.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

export function readmeBlock(containing: string): string {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const block = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes(containing));
  assert.ok(block, `the README has a sh block with ${containing}`);
  return block;
}
