import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { AppError } from '../../src/errors.ts';
import { decodeBody, firstInvalidUtf8Offset, type DecodedBody } from '../../src/ingest/decode.ts';
import { findJsonSyntaxError, toJsonText } from '../../src/ingest/json-text.ts';
import { sample } from '../support/samples.ts';

const LIMIT = 1024 * 1024;
const json = { contentType: 'application/json' };
const ndjson = { contentType: 'application/x-ndjson' };

async function rejects(promise: Promise<unknown>, status: number, code: string, message?: RegExp): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof AppError, `expected AppError, got ${String(error)}`);
    assert.equal(error.status, status, error.message);
    assert.equal(error.code, code);
    if (message) assert.match(error.message, message);
    return error;
  }
  assert.fail('expected a rejection');
}

function jsonValue(decoded: DecodedBody): unknown {
  assert.equal(decoded.kind, 'json');
  return decoded.kind === 'json' ? decoded.value : undefined;
}

describe('decodeBody: content types', () => {
  it('parses an application/json object (a Supabase sample) and keeps it intact', async () => {
    const event = sample('cloudflare.logs.prod');
    const decoded = await decodeBody(Buffer.from(JSON.stringify(event)), { contentType: 'application/json; charset=utf-8' }, LIMIT);
    assert.deepEqual(jsonValue(decoded), event);
  });

  it('parses a JSON array', async () => {
    const decoded = await decodeBody(Buffer.from('[{"a":1},{"b":2}]'), json, LIMIT);
    assert.deepEqual(jsonValue(decoded), [{ a: 1 }, { b: 2 }]);
  });

  it('treats a missing Content-Type and +json types as JSON', async () => {
    assert.deepEqual(jsonValue(await decodeBody(Buffer.from('{"a":1}'), {}, LIMIT)), { a: 1 });
    assert.deepEqual(jsonValue(await decodeBody(Buffer.from('{"a":1}'), { contentType: 'application/vnd.x+json' }, LIMIT)), { a: 1 });
  });

  it('parses NDJSON line by line, skipping blank lines and CRLF endings', async () => {
    const body = '{"a":1}\r\n\n   \n{"b":2}\n';
    const decoded = await decodeBody(Buffer.from(body), ndjson, LIMIT);
    assert.deepEqual(decoded, {
      kind: 'ndjson',
      lines: [
        { ok: true, line: 1, value: { a: 1 } },
        { ok: true, line: 4, value: { b: 2 } },
      ],
    });
  });

  it('reports a bad NDJSON line on its own, with line and column, and keeps the others', async () => {
    const decoded = await decodeBody(Buffer.from('{"a":1}\n{"b":}\n{"c":3}'), ndjson, LIMIT);
    assert.equal(decoded.kind, 'ndjson');
    if (decoded.kind !== 'ndjson') return;
    assert.equal(decoded.lines.length, 3);
    assert.deepEqual(decoded.lines[0], { ok: true, line: 1, value: { a: 1 } });
    const bad = decoded.lines[1]!;
    assert.equal(bad.ok, false);
    assert.equal(bad.line, 2);
    assert.match(!bad.ok ? bad.error : '', /^line 2 is not valid JSON: .*at line 1 column 6/);
    assert.deepEqual(decoded.lines[2], { ok: true, line: 3, value: { c: 3 } });
  });

  it('reads text/plain as one JSON document when it is one, else as NDJSON', async () => {
    const pretty = JSON.stringify([{ a: 1 }, { b: 2 }], null, 2);
    assert.deepEqual(jsonValue(await decodeBody(Buffer.from(pretty), { contentType: 'text/plain' }, LIMIT)), [{ a: 1 }, { b: 2 }]);
    const lines = await decodeBody(Buffer.from('{"a":1}\n{"b":2}'), { contentType: 'text/plain; charset=utf-8' }, LIMIT);
    assert.equal(lines.kind, 'ndjson');
    assert.deepEqual(await decodeBody(Buffer.from(''), { contentType: 'text/plain' }, LIMIT), { kind: 'ndjson', lines: [] });
  });

  it('passes application/logplex-1 through as bytes', async () => {
    const body = Buffer.from('12 <40>1 - - - -');
    const decoded = await decodeBody(body, { contentType: 'application/logplex-1' }, LIMIT);
    assert.equal(decoded.kind, 'text');
    assert.ok(decoded.kind === 'text' && decoded.bytes.equals(body));
  });

  it('rejects other content types with 415', async () => {
    await rejects(decodeBody(Buffer.from('a=1'), { contentType: 'application/x-www-form-urlencoded' }, LIMIT), 415, 'unsupported_media_type', /x-www-form-urlencoded/);
    const form = `payload=${encodeURIComponent(JSON.stringify({ action: 'opened', n: [1] }))}`;
    const decoded = await decodeBody(Buffer.from(form), { contentType: 'application/x-www-form-urlencoded' }, LIMIT);
    assert.deepEqual(decoded, { kind: 'json', value: { action: 'opened', n: [1] } }, 'GitHub form deliveries carry JSON in payload');
    await rejects(decodeBody(Buffer.from('x'), { contentType: 'image/png' }, LIMIT), 415, 'unsupported_media_type');
  });
});

describe('decodeBody: JSON errors say where', () => {
  it('gives line and column of the offending character', async () => {
    const body = '{\n  "a": 1,\n  "b": }\n';
    await rejects(decodeBody(Buffer.from(body), json, LIMIT), 400, 'invalid_json', /at line 3 column 8/);
  });

  it('reports truncated input, trailing garbage and an empty body', async () => {
    await rejects(decodeBody(Buffer.from('[1, 2'), json, LIMIT), 400, 'invalid_json', /unexpected end of input at line 1 column 6/);
    await rejects(decodeBody(Buffer.from('{"a":1} x'), json, LIMIT), 400, 'invalid_json', /after the end of the JSON value at line 1 column 9/);
    await rejects(decodeBody(Buffer.from('  '), json, LIMIT), 400, 'invalid_json', /empty/);
  });

  it('agrees with JSON.parse on what is valid', () => {
    const valid = ['{}', '[]', '"\\u00e9\\n"', '-0.5e+10', '{"a":[true,false,null,{"b":"c"}]}', ' 1 '];
    for (const text of valid) assert.equal(findJsonSyntaxError(text), undefined, text);
    const invalid = ['{a:1}', '[1,]', '{"a" 1}', '01', '"\\x"', '"a\tb"', 'tru', '[1 2]', '{"a":1,}'];
    for (const text of invalid) {
      assert.throws(() => JSON.parse(text));
      assert.ok(findJsonSyntaxError(text), text);
    }
  });
});

describe('decodeBody: encodings and limits', () => {
  const body = Buffer.from(JSON.stringify({ message: 'hello', n: 1 }));

  it('undoes gzip, zlib deflate, raw deflate and brotli', async () => {
    for (const [contentEncoding, bytes] of [
      ['gzip', gzipSync(body)],
      ['x-gzip', gzipSync(body)],
      ['deflate', deflateSync(body)],
      ['deflate', deflateRawSync(body)],
      ['br', brotliCompressSync(body)],
      ['identity', body],
    ] as const) {
      const decoded = await decodeBody(bytes, { contentType: 'application/json', contentEncoding }, LIMIT);
      assert.deepEqual(jsonValue(decoded), { message: 'hello', n: 1 }, contentEncoding);
    }
  });

  it('detects gzip by its magic bytes without Content-Encoding (Cloudflare Logpush)', async () => {
    const lines = Buffer.from('{"a":1}\n{"a":2}\n');
    const decoded = await decodeBody(gzipSync(lines), { contentType: 'text/plain' }, LIMIT);
    assert.equal(decoded.kind, 'ndjson');
    assert.equal(decoded.kind === 'ndjson' && decoded.lines.length, 2);
  });

  it('rejects a broken gzip body with 400', async () => {
    const truncated = gzipSync(body).subarray(0, 15);
    await rejects(decodeBody(truncated, { contentType: 'application/json', contentEncoding: 'gzip' }, LIMIT), 400, 'invalid_encoding', /gzip/);
    await rejects(decodeBody(body, { contentType: 'application/json', contentEncoding: 'gzip' }, LIMIT), 400, 'invalid_encoding');
  });

  it('rejects an unknown Content-Encoding with 415', async () => {
    await rejects(decodeBody(body, { contentType: 'application/json', contentEncoding: 'zstd' }, LIMIT), 415, 'unsupported_encoding', /zstd/);
  });

  it('stops a gzip bomb at the limit with 413, quickly and without allocating its output', async () => {
    const bomb = gzipSync(Buffer.alloc(512 * 1024 * 1024)); // 512 MiB of zeros, ~500 KiB compressed
    const heapBefore = process.memoryUsage().arrayBuffers;
    const started = performance.now();
    await rejects(decodeBody(bomb, { contentType: 'application/json', contentEncoding: 'gzip' }, LIMIT), 413, 'payload_too_large', /decompressed/);
    assert.ok(performance.now() - started < 2000, 'took too long');
    assert.ok(process.memoryUsage().arrayBuffers - heapBefore < 64 * 1024 * 1024, 'allocated far past the limit');
  });

  it('accepts decompressed output exactly at the limit and rejects one byte more', async () => {
    const exact = Buffer.from(`"${'a'.repeat(98)}"`); // 100 bytes
    assert.equal(jsonValue(await decodeBody(gzipSync(exact), { contentType: 'application/json' }, 100)), 'a'.repeat(98));
    await rejects(decodeBody(gzipSync(exact), { contentType: 'application/json' }, 99), 413, 'payload_too_large');
  });

  it('rejects a raw body over the limit with 413', async () => {
    await rejects(decodeBody(Buffer.alloc(101, 0x20), json, 100), 413, 'payload_too_large', /100 bytes/);
  });
});

describe('decodeBody: UTF-8', () => {
  it('rejects invalid UTF-8 with 400 and the byte offset', async () => {
    const bytes = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff]), Buffer.from('"}')]);
    await rejects(decodeBody(bytes, json, LIMIT), 400, 'invalid_utf8', /0xff at byte offset 6/);
  });

  it('rejects invalid UTF-8 inside NDJSON for the whole request (the text cannot be split safely)', async () => {
    await rejects(decodeBody(Buffer.from([0x7b, 0x7d, 0x0a, 0xc3, 0x28]), ndjson, LIMIT), 400, 'invalid_utf8', /offset 4/);
  });

  it('finds the first invalid byte of overlongs, surrogates and truncated sequences', () => {
    assert.equal(firstInvalidUtf8Offset(Buffer.from([0x61, 0xc0, 0x80])), 1); // C0 is never valid
    assert.equal(firstInvalidUtf8Offset(Buffer.from([0xe0, 0x80, 0x80])), 1); // overlong 3-byte
    assert.equal(firstInvalidUtf8Offset(Buffer.from([0xed, 0xa0, 0x80])), 1); // UTF-16 surrogate
    assert.equal(firstInvalidUtf8Offset(Buffer.from([0x61, 0x62, 0xe2, 0x82])), 2); // cut short
    assert.equal(firstInvalidUtf8Offset(Buffer.from('héllo ✓ 🎉')), Buffer.byteLength('héllo ✓ 🎉'));
  });

  it('decodes multi-byte text and ignores a byte order mark', async () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"m":"héllo ✓ 🎉"}')]);
    assert.deepEqual(jsonValue(await decodeBody(bytes, json, LIMIT)), { m: 'héllo ✓ 🎉' });
  });
});

describe('deep nesting', () => {
  it('parses 10,000 levels and serialises them back without overflowing the stack', async () => {
    const text = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
    const value = jsonValue(await decodeBody(Buffer.from(text), json, LIMIT));
    assert.equal(toJsonText(value), text);
  });

  it('serialises 200,000 nested arrays (well past V8 JSON.stringify) to the same text', () => {
    const text = '['.repeat(200_000) + '"x",1,true' + ']'.repeat(200_000);
    assert.equal(toJsonText(JSON.parse(text)), text);
  });

  it('locates an error at the bottom of deep nesting', async () => {
    const text = '['.repeat(50_000) + ']'.repeat(49_999) + '}';
    await rejects(decodeBody(Buffer.from(text), json, LIMIT), 400, 'invalid_json', /expected ',' or '\]', found '}' at line 1 column 100000/);
  });
});
