import assert from 'node:assert/strict';
import { appendFile, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Journal, recordEvents, type JournalRecord } from '../../src/pipeline/journal.ts';
import { planRows } from '../../src/warehouse/schema.ts';
import { rowsOfStaged, stageFittingRows } from '../../src/warehouse/staged-rows.ts';
import type { LogRow } from '../../src/warehouse/types.ts';

const dirs: string[] = [];
after(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function freshDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sawmill-journal-'));
  dirs.push(dir);
  return dir;
}

const row = (id: string): LogRow => ({ id, timestamp: 1_700_000_000_000_000, event_message: `event ${id} ✓`, fields: { metadata: { n: 1 } } });
const segments = async (dir: string) => (await readdir(dir)).filter((name) => name.endsWith('.journal')).sort();

test('records come back in order after a reopen, from the folded position on', async () => {
  const dir = await freshDir();
  const { journal } = await Journal.open(dir, 0);
  const seqs = await Promise.all(['a', 'b', 'c', 'd'].map((id) => journal.append('source-1', { rows: [row(id)] })));
  assert.deepEqual(seqs, [1, 2, 3, 4]);
  await journal.close();

  const reopened = await Journal.open(dir, 2);
  assert.deepEqual(
    reopened.unfolded.map((record) => [record.seq, record.sourceId, record.rows[0]!.id]),
    [
      [3, 'source-1', 'c'],
      [4, 'source-1', 'd'],
    ],
  );
  assert.deepEqual(reopened.unfolded[0]!.rows[0], row('c'));
  assert.equal(await reopened.journal.append('source-1', { rows: [row('e')] }), 5, 'numbering goes on after the last record');
  await reopened.journal.close();
});

test('numbering goes on after the folded position even when the files are gone', async () => {
  const dir = await freshDir();
  const { journal } = await Journal.open(dir, 41);
  assert.equal(await journal.append('s', { rows: [row('x')] }), 42);
  await journal.close();
});

test('a torn last write (half a frame, or garbage) is cut off; everything before it is kept', async () => {
  for (const tail of [Buffer.from([0x20, 0x00, 0x00]), Buffer.from('{"garbage": true}'), Buffer.alloc(64)]) {
    const dir = await freshDir();
    const { journal } = await Journal.open(dir, 0);
    await journal.append('s', { rows: [row('kept-1')] });
    await journal.append('s', { rows: [row('kept-2')] });
    await journal.close();
    const [file] = await segments(dir);
    const validSize = (await stat(join(dir, file!))).size;
    await appendFile(join(dir, file!), tail);

    const reopened = await Journal.open(dir, 0);
    assert.deepEqual(reopened.unfolded.map((record) => record.rows[0]!.id), ['kept-1', 'kept-2']);
    assert.equal((await stat(join(dir, file!))).size, validSize, 'the torn bytes are gone');
    await reopened.journal.append('s', { rows: [row('after')] });
    await reopened.journal.close();
    assert.deepEqual((await Journal.open(dir, 0)).unfolded.map((record) => record.rows[0]!.id), ['kept-1', 'kept-2', 'after']);
  }
});

test('a damaged record in an older file is reported and a copy kept; the records after it in newer files survive', async () => {
  const dir = await freshDir();
  const { journal } = await Journal.open(dir, 0, { segmentBytes: 1 });
  for (const id of ['one', 'two', 'three']) await journal.append('s', { rows: [row(id)] });
  await journal.close();
  const files = await segments(dir);
  assert.equal(files.length, 3, 'one file per write at this size');
  const first = join(dir, files[0]!);
  const bytes = await readFile(first);
  bytes[bytes.length - 2]! ^= 0xff; // flip a byte inside the payload: the checksum no longer matches
  await writeFile(first, bytes);

  const damages: Array<{ file: string; offset: number; savedAs: string }> = [];
  const reopened = await Journal.open(dir, 0, { onDamage: (damage) => damages.push(damage) });
  assert.deepEqual(reopened.unfolded.map((record) => record.rows[0]!.id), ['two', 'three']);
  assert.equal(damages.length, 1);
  assert.equal(damages[0]!.file, first);
  assert.equal(damages[0]!.offset, 0);
  assert.deepEqual(await readFile(damages[0]!.savedAs), bytes, 'the damaged original is kept');
});

test('release deletes the files that are entirely folded, never the one being written', async () => {
  const dir = await freshDir();
  const { journal } = await Journal.open(dir, 0, { segmentBytes: 1 });
  for (const id of ['a', 'b', 'c']) await journal.append('s', { rows: [row(id)] });
  assert.equal((await segments(dir)).length, 3);
  await journal.release(2);
  assert.deepEqual(await segments(dir), ['0000000000000003.journal']);
  await journal.release(3);
  assert.deepEqual(await segments(dir), ['0000000000000003.journal'], 'the active file stays until the next one starts');
  await journal.append('s', { rows: [row('d')] });
  await journal.release(3);
  assert.deepEqual(await segments(dir), ['0000000000000004.journal']);
  await journal.close();
});

test('a record set aside is kept whole, with the reason, beside the journal', async () => {
  const dir = await freshDir();
  const { journal } = await Journal.open(dir, 0);
  const seq = await journal.append('s', { rows: [row('refused')] });
  const path = await journal.quarantine({ seq, sourceId: 's', rows: [row('refused')] }, 'Conversion Error: bad');
  assert.deepEqual(JSON.parse(await readFile(path, 'utf8')), { reason: 'Conversion Error: bad', seq, sourceId: 's', rows: [row('refused')] });
  await journal.close();
});

const schema = planRows(new Map(), [row('x')], { maxFields: 1000 }).schema;
const staged = (...ids: string[]) => stageFittingRows(ids.map(row), schema)!;
const stagedIds = (record: JournalRecord) => rowsOfStaged(record.staged!).map((one) => one.id);

test('staged records keep their lines byte for byte across a reopen, beside records of rows', async () => {
  const dir = await freshDir();
  const { journal } = await Journal.open(dir, 0);
  const first = staged('s1', 's2');
  await journal.append('src', { rows: [], staged: first });
  await journal.append('src', { rows: [row('plain')] });
  await journal.append('src', { rows: [], staged: staged('s3') });
  await journal.close();
  const { unfolded, journal: reopened } = await Journal.open(dir, 0);
  assert.deepEqual(unfolded.map((record) => [record.seq, record.sourceId, recordEvents(record)]), [[1, 'src', 2], [2, 'src', 1], [3, 'src', 1]]);
  assert.deepEqual(unfolded[0]!.staged!.lines, first.lines);
  assert.equal(unfolded[0]!.staged!.maxLineBytes, first.maxLineBytes);
  assert.equal(unfolded[0]!.staged!.fields, undefined, 'the schema they were shaped for is not known after a restart');
  assert.deepEqual(unfolded[0]!.rows, []);
  assert.deepEqual(stagedIds(unfolded[0]!), ['s1', 's2']);
  assert.deepEqual(unfolded[1]!.rows.map((one) => one.id), ['plain']);
  assert.deepEqual(stagedIds(unfolded[2]!), ['s3']);
  await reopened.close();
});

test('a torn staged record at the tail is cut off; a damaged one fails its checksum', async () => {
  const dir = await freshDir();
  const { journal } = await Journal.open(dir, 0);
  await journal.append('s', { rows: [], staged: staged('kept') });
  await journal.append('s', { rows: [], staged: staged('torn-1', 'torn-2') });
  await journal.close();
  const [file] = await segments(dir);
  const bytes = await readFile(join(dir, file!));
  await writeFile(join(dir, file!), bytes.subarray(0, bytes.length - 5));
  assert.deepEqual((await Journal.open(dir, 0)).unfolded.map(stagedIds), [['kept']]);

  const flipped = await readFile(join(dir, file!));
  flipped[flipped.length - 3]! ^= 0x01;
  await writeFile(join(dir, file!), flipped);
  assert.deepEqual((await Journal.open(dir, 0)).unfolded.map(stagedIds), []);
});

test('a record of staged lines and rows keeps both across a reopen, and is set aside whole', async () => {
  const dir = await freshDir();
  const { journal } = await Journal.open(dir, 0);
  const lines = staged('s1', 's2');
  const seq = await journal.append('src', { rows: [row('r1')], staged: lines });
  await journal.close();
  const { unfolded, journal: reopened } = await Journal.open(dir, 0);
  assert.deepEqual(unfolded.map((record) => [record.seq, recordEvents(record)]), [[seq, 3]]);
  assert.deepEqual(unfolded[0]!.staged!.lines, lines.lines);
  assert.deepEqual(stagedIds(unfolded[0]!), ['s1', 's2']);
  assert.deepEqual(unfolded[0]!.rows, [row('r1')]);
  const kept = JSON.parse(await readFile(await reopened.quarantine(unfolded[0]!, 'bad'), 'utf8')) as { rows: LogRow[] };
  assert.deepEqual(kept.rows.map((one) => one.id), ['s1', 's2', 'r1']);
  await reopened.close();
});

test('a staged record set aside is written as rows', async () => {
  const dir = await freshDir();
  const { journal } = await Journal.open(dir, 0);
  const record = { seq: await journal.append('s', { rows: [], staged: staged('refused') }), sourceId: 's', rows: [], staged: staged('refused') };
  const kept = JSON.parse(await readFile(await journal.quarantine(record, 'bad'), 'utf8')) as { rows: LogRow[] };
  assert.deepEqual(kept.rows.map((one) => one.id), ['refused']);
  assert.deepEqual(kept.rows[0]!.fields, { metadata: [{ n: 1 }] }, 'in the shape it was staged in');
  await journal.close();
});

test('a busy journal moves on into a file of zeros prepared ahead; its records and the zero tail read back right', async () => {
  const dir = await freshDir();
  const { journal } = await Journal.open(dir, 0, { segmentBytes: 4096 });
  const ids: string[] = [];
  for (let i = 0; ids.length < 60; i++) {
    ids.push(`r${i}`);
    await journal.append('s', { rows: [row(`r${i}`)] });
    await new Promise((resolve) => setTimeout(resolve, 2)); // time for the spare's zeros
  }
  const files = await segments(dir);
  assert.ok(files.length >= 3, `${files.length} files`);
  const sizes = await Promise.all(files.map(async (name) => (await stat(join(dir, name))).size));
  const newest = await readFile(join(dir, files.at(-1)!));
  assert.equal(newest.length, 4096, 'the file in use was prepared at full size');
  assert.equal(newest.at(-1), 0);
  assert.ok(sizes.slice(0, -1).every((size) => size >= 4096 && size < 4096 + 400), `sealed files are cut to what they hold: ${sizes}`);
  await journal.close();
  assert.ok(!(await readdir(dir)).includes('next.spare'), 'no spare is left behind');

  const damages: unknown[] = [];
  const reopened = await Journal.open(dir, 0, { onDamage: (damage) => damages.push(damage) });
  assert.deepEqual(reopened.unfolded.map((record) => record.rows[0]!.id), ids);
  assert.deepEqual(damages, []);
  await reopened.journal.close();
});

test('an older file that still ends in its prepared zeros (its cut never reached the disk) is not damage', async () => {
  const dir = await freshDir();
  const { journal } = await Journal.open(dir, 0, { segmentBytes: 1 });
  for (const id of ['one', 'two', 'three']) await journal.append('s', { rows: [row(id)] });
  await journal.close();
  const files = await segments(dir);
  await appendFile(join(dir, files[0]!), Buffer.alloc(5000));
  const damages: unknown[] = [];
  const reopened = await Journal.open(dir, 0, { onDamage: (damage) => damages.push(damage) });
  assert.deepEqual(reopened.unfolded.map((record) => record.rows[0]!.id), ['one', 'two', 'three']);
  assert.deepEqual(damages, []);
  await reopened.journal.close();
});
