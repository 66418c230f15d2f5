import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };

/** `^M.m.p` ranges joined by `||`: each supported major named, none open-ended. */
const ranges = engines.node.split('||').map((range) => {
  const match = /^\s*\^(\d+)\.(\d+)\.(\d+)\s*$/.exec(range);
  assert.ok(match, `engines.node "${engines.node}": "${range.trim()}" is not a ^major.minor.patch range (an open range claims versions nobody ran)`);
  return match.slice(1).map(Number) as [number, number, number];
});

test('engines names Node 22 and 24, the maintained LTS lines, and no open-ended range', () => {
  const majors = ranges.map(([major]) => major);
  assert.ok(majors.includes(22) && majors.includes(24), `engines.node "${engines.node}" must include 22 and 24`);
});

test('engines leaves out Node 20, past its end of life (April 2026) and below what dependencies ask for', () => {
  assert.ok(!ranges.some(([major]) => major <= 20), `engines.node "${engines.node}" still names Node 20 or older`);
});
