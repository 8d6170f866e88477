// `npm install` in a git checkout enables the project's hooks (.githooks: the commit-message rule
// of scripts/check-commits.mjs). Anywhere else (an image build, a tarball) it does nothing.
import { execFileSync } from 'node:child_process';

try {
  execFileSync('git', ['rev-parse', '--git-dir'], { stdio: 'ignore' });
  execFileSync('git', ['config', 'core.hooksPath', '.githooks'], { stdio: 'ignore' });
} catch {
  // Not a git checkout, or no git: nothing to enable.
}
