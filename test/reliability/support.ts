/** Shared by the reliability tests: a seeded PRNG, raw HTTP, direct reads of a stopped server's DuckDB file. */
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { viewName } from '../../src/warehouse/duckdb/layout.ts';

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
export function seededRandom(seed: number) {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    chance: (p: number) => next() < p,
  };
}
export type Random = ReturnType<typeof seededRandom>;

export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

/** One request with exactly these bytes and headers (fetch would add or refuse some). */
export function send(url: string, method: string, path: string, headers: Record<string, string>, body?: Buffer | string): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url + path, { method, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json });
      });
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** A raw TCP connection to the server, for clients that misbehave below HTTP. */
export function openSocket(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Resident set size of a process in bytes, from /proc (Linux). */
export async function rssOf(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kilobytes = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  if (!kilobytes) throw new Error(`no VmRSS for ${pid}`);
  return Number(kilobytes) * 1024;
}

/** Every stored id of a source (with repeats), read straight from the DuckDB file of a stopped server. */
export async function storedIds(dataDir: string, sourceToken: string): Promise<string[]> {
  const instance = await DuckDBInstance.create(join(dataDir, 'sawmill.duckdb'));
  try {
    const connection = await instance.connect();
    const reader = await connection.runAndReadAll(`select id from "${viewName(sourceToken)}"`);
    const ids = reader.getRows().map(([id]) => String(id));
    connection.closeSync();
    return ids;
  } finally {
    instance.closeSync();
  }
}

/** Count of each value. */
export function tally(values: Iterable<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
