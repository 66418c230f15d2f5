/**
 * The code a ratio is taken against when an issue asks for "N× today": a given commit, checked
 * out in a temporary git worktree and built the same way as this checkout, so that both run the
 * same load side by side in one bench run instead of against a figure remembered from another day.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './lib.ts';

export interface Baseline {
  /** As given (`--baseline=<rev>`). */
  rev: string;
  /** Its abbreviated commit hash. */
  commit: string;
  /** The worktree, built: start it with `node <dir>/build/main.js`. */
  dir: string;
  remove(): void;
}

function git(args: string[]): string {
  const run = spawnSync('git', args, { cwd: REPO, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr.trim()}`);
  return run.stdout.trim();
}

type Lock = { packages?: Record<string, { version?: string }> };
const lockOf = (dir: string): Lock => JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as Lock;

/** Whether every package the baseline's lockfile installs is in this checkout's node_modules, at the same version. */
function depsCovered(dir: string): boolean {
  const ours = lockOf(REPO).packages ?? {};
  return Object.entries(lockOf(dir).packages ?? {}).every(([path, pkg]) => path === '' || ours[path]?.version === pkg.version);
}

export function prepareBaseline(rev: string, workDir: string, log: (message: string) => void): Baseline {
  const commit = git(['rev-parse', '--short', `${rev}^{commit}`]);
  const dir = join(workDir, `baseline-${commit}`);
  git(['worktree', 'add', '--detach', dir, commit]);
  const remove = () => {
    spawnSync('git', ['worktree', 'remove', '--force', dir], { cwd: REPO });
  };
  try {
    if (depsCovered(dir)) {
      symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
    } else {
      log(`baseline ${commit}: its lockfile differs from this checkout's; npm ci in its worktree`);
      const install = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
      if (install.status !== 0) throw new Error(`npm ci for baseline ${commit} failed`);
    }
    const build = spawnSync('npm', ['run', 'build'], { cwd: dir, stdio: 'inherit' });
    if (build.status !== 0 || !existsSync(join(dir, 'build/main.js'))) throw new Error(`building baseline ${commit} failed`);
  } catch (error) {
    remove();
    throw error;
  }
  log(`baseline: ${rev} = ${commit}, built in ${dir}`);
  return { rev, commit, dir, remove };
}
