import { readFileSync } from 'node:fs';

/** package.json's `engines.node`: the Node versions Sawmill supports (the LTS lines it is tested on). */
export const SUPPORTED_NODE = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { engines: { node: string } }).engines.node;

type Version = [number, number, number];

const parse = (text: string): Version | undefined => {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(text.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
};
const atLeast = (a: Version, b: Version) => a[0] !== b[0] ? a[0] > b[0] : a[1] !== b[1] ? a[1] > b[1] : a[2] >= b[2];

/**
 * Whether `version` satisfies `range`, a `||` list of caret ranges (`^22.12.0 || ^24.0.0`: the
 * only form engines uses here). A range it cannot read counts as satisfied: no false alarm.
 */
export function satisfies(version: string, range: string): boolean {
  const wanted = parse(version);
  const carets = range.split('||').map((part) => /^\s*\^(\d+\.\d+\.\d+)\s*$/.exec(part)?.[1]);
  if (!wanted || carets.some((caret) => caret === undefined)) return true;
  return carets.some((caret) => {
    const floor = parse(caret!)!;
    return wanted[0] === floor[0] && atLeast(wanted, floor);
  });
}

/** One line for the log when this Node is outside `engines`, else undefined. */
export function unsupportedNodeMessage(version: string = process.versions.node, range: string = SUPPORTED_NODE): string | undefined {
  if (satisfies(version, range)) return undefined;
  return `Node ${version} is not a supported version (package.json engines: ${range}): Sawmill may run, but it is tested on those; upgrade Node`;
}
