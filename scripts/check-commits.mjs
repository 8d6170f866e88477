// Commit messages people can scan (STYLE.md habit 10): a subject of at most 72 characters in the
// imperative ("Add", not "Added" or "Adds"), and a blank line before any body. `npm run lint`
// checks every commit since the rule began (RULE_SINCE; older history is left as it is); the
// commit-msg hook (.githooks/commit-msg, enabled by `npm install` in a git checkout) checks a
// message before it is recorded:
//   node scripts/check-commits.mjs                      every commit after RULE_SINCE up to HEAD
//   node scripts/check-commits.mjs --message-file F     one message (the hook)
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The last commit made before the rule: everything after it is checked. */
export const RULE_SINCE = 'db46b6c';
export const MAX_SUBJECT = 72;

// Past tense or third person where the imperative belongs, as a first word (after an optional
// "Area: " prefix).
const NOT_IMPERATIVE =
  /^(added|adds|fixed|fixes|updated|updates|removed|removes|changed|changes|made|makes|moved|moves|renamed|renames|improved|improves|refactored|refactors|implemented|implements|created|creates|deleted|deletes|replaced|replaces|bumped|bumps)\b/i;

/** What is wrong with a message; empty when nothing is. */
export function problemsOf(message) {
  const lines = message.replace(/\r/g, '').split('\n').filter((l) => !l.startsWith('#'));
  while (lines.length > 0 && lines.at(-1).trim() === '') lines.pop();
  const subject = lines[0] ?? '';
  const problems = [];
  if (subject.trim() === '') return ['the subject is empty'];
  if (subject.length > MAX_SUBJECT) problems.push(`the subject has ${subject.length} characters (at most ${MAX_SUBJECT})`);
  if (/\.$/.test(subject)) problems.push('the subject ends with a period');
  const firstWord = subject.replace(/^[\w./ -]{1,30}: /, '');
  if (NOT_IMPERATIVE.test(firstWord)) problems.push(`the subject is not in the imperative ("${firstWord.split(' ')[0]}")`);
  if (lines.length > 1 && lines[1].trim() !== '') problems.push('no blank line between the subject and the body');
  return problems;
}

function git(...args) {
  return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function main() {
  const at = process.argv.indexOf('--message-file');
  if (at !== -1) {
    const problems = problemsOf(readFileSync(process.argv[at + 1], 'utf8'));
    for (const p of problems) process.stderr.write(`commit message: ${p}\n`);
    process.exit(problems.length ? 1 : 0);
  }
  try {
    git('rev-parse', '--git-dir');
  } catch {
    process.stdout.write('check-commits: not a git checkout, nothing to check\n');
    return;
  }
  let range = `${RULE_SINCE}..HEAD`;
  try {
    git('cat-file', '-e', `${RULE_SINCE}^{commit}`);
  } catch {
    // A shallow clone without the start of the rule: the commits it has.
    range = 'HEAD';
  }
  const records = git('log', '--no-merges', '--format=%h%x00%B%x1e', range).split('\x1e').map((r) => r.replace(/^\n/, '')).filter(Boolean);
  let bad = 0;
  for (const record of records) {
    const [hash, message] = record.split('\0');
    for (const p of problemsOf(message ?? '')) {
      bad++;
      process.stderr.write(`${hash}: ${p}: ${(message ?? '').split('\n')[0]}\n`);
    }
  }
  if (bad > 0) {
    process.stderr.write(`check-commits: ${bad} problem(s); reword with git rebase -i (only commits not yet shared)\n`);
    process.exit(1);
  }
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) main();
