import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileMatcher, parseLql, type TailEvent } from '../../src/explorer/lql.ts';
import { compileFilter, decodeCursor, encodeCursor, eventsQuery } from '../../src/explorer/sql.ts';
import type { FieldType, RecordFields } from '../../src/warehouse/types.ts';

const record = (fields: Record<string, FieldType>): FieldType => ({ kind: 'record', fields: new Map(Object.entries(fields)) });
const SCHEMA: RecordFields = new Map<string, FieldType>([
  ['level', { kind: 'string' }],
  [
    'metadata',
    record({
      request: record({ path: { kind: 'string' }, method: { kind: 'string' } }),
      response: record({ status_code: { kind: 'int' } }),
      duration: { kind: 'float' },
      cached: { kind: 'bool' },
      tags: { kind: 'list', element: { kind: 'string' } },
      userId: { kind: 'int' },
    }),
  ],
]);

const rejects = (input: string, message: RegExp, schema = SCHEMA) =>
  assert.throws(() => compileFilter(parseLql(input), schema), (error: Error & { status?: number }) => error.status === 400 && message.test(error.message));

describe('parsing', () => {
  test('free text, phrases, fields, operators, regex, ranges, NULL and negation', () => {
    const { clauses } = parseLql('error "connection reset" level:error m.response.status_code:>=500 m.request.path:~"^/rest" m.duration:1.5..3 m.userId:NULL -timeout -m.cached:true');
    assert.deepEqual(clauses, [
      { kind: 'text', text: 'error', negated: false },
      { kind: 'text', text: 'connection reset', negated: false },
      { kind: 'compare', path: ['level'], op: '=', value: 'error', negated: false },
      { kind: 'compare', path: ['metadata', 'response', 'status_code'], op: '>=', value: '500', negated: false },
      { kind: 'regex', path: ['metadata', 'request', 'path'], pattern: '^/rest', negated: false },
      { kind: 'range', path: ['metadata', 'duration'], low: '1.5', high: '3', negated: false },
      { kind: 'null', path: ['metadata', 'userId'], negated: false },
      { kind: 'text', text: 'timeout', negated: true },
      { kind: 'compare', path: ['metadata', 'cached'], op: '=', value: 'true', negated: true },
    ]);
  });

  test('quoted values keep spaces and colons; escaped quotes survive', () => {
    const { clauses } = parseLql('m.request.path:"/a b:c" "say \\"hi\\"" "http://example.com"');
    assert.deepEqual(clauses[0], { kind: 'compare', path: ['metadata', 'request', 'path'], op: '=', value: '/a b:c', negated: false });
    assert.deepEqual(clauses[1], { kind: 'text', text: 'say "hi"', negated: false });
    // Quoted, or after something that is not a field path, a colon is just text.
    assert.deepEqual(parseLql('a-b:c').clauses, [{ kind: 'text', text: 'a-b:c', negated: false }]);
    assert.deepEqual(clauses[2], { kind: 'text', text: 'http://example.com', negated: false });
  });

  test('OR binds looser than AND (written or not); parentheses group; -( and NOT negate', () => {
    const clause = (text: string) => ({ kind: 'clause', clause: { kind: 'text', text, negated: false } });
    assert.deepEqual(parseLql('a b OR c AND d').expr, { kind: 'or', items: [{ kind: 'and', items: [clause('a'), clause('b')] }, { kind: 'and', items: [clause('c'), clause('d')] }] });
    assert.deepEqual(parseLql('(a OR b) -(c OR d) NOT e').expr, {
      kind: 'and',
      items: [
        { kind: 'or', items: [clause('a'), clause('b')] },
        { kind: 'not', item: { kind: 'or', items: [clause('c'), clause('d')] } },
        { kind: 'not', item: clause('e') },
      ],
    });
    // A ) with no group open, and anything quoted, stay text.
    assert.deepEqual(parseLql('f(x) "(y OR z)"').clauses.map((item) => item.kind === 'text' && item.text), ['f(x)', '(y OR z)']);
  });

  test('an empty query has no clauses', () => {
    assert.deepEqual(parseLql('   ').clauses, []);
  });

  test('mistakes are 400 invalid_query with a message that says what to do', () => {
    for (const [input, message] of [
      ['"unclosed', /not closed/],
      ['m.request.path:~"("', /invalid regular expression/],
      ['m:1', /name a field inside metadata/],
      ['m..x:1', /not a field path/],
      ['level:', /needs a value/],
      ['a or b', /write OR in capitals/],
      ['a OR', /ends where a clause should follow/],
      ['AND a', /AND needs a clause on each side/],
      ['(a OR b', /not closed/],
      ['() a', /empty parentheses/],
    ] as const) {
      assert.throws(() => parseLql(input), (error: Error & { status?: number; code?: string }) => error.status === 400 && error.code === 'invalid_query' && message.test(error.message), input);
    }
  });
});

describe('SQL', () => {
  test('every typed value is a bound parameter, cast to the field type; paths become UNNEST joins', () => {
    const filter = compileFilter(parseLql(`oops m.response.status_code:>=500 m.request.path:~"^/rest" m.request.method:POST level:error m.duration:1..2 m.cached:TRUE m.tags:beta`), SCHEMA);
    assert.deepEqual(filter.joins, [
      'cross join unnest(t.`metadata`) as u0',
      'cross join unnest(u0.`response`) as u1',
      'cross join unnest(u0.`request`) as u2',
    ]);
    assert.deepEqual(filter.conditions, [
      'strpos(lower(t.event_message), lower(@p0)) > 0',
      'u1.`status_code` >= cast(@p1 as int64)',
      'regexp_contains(u2.`path`, @p2)',
      'u2.`method` = @p3',
      // Levels compare in any case (OpenTelemetry writes ERROR).
      'lower(t.`level`) = lower(@p4)',
      'u0.`duration` between cast(@p5 as float64) and cast(@p6 as float64)',
      'u0.`cached` = cast(@p7 as bool)',
      '@p8 in unnest(u0.`tags`)',
    ]);
    assert.deepEqual(filter.params, { p0: 'oops', p1: '500', p2: '^/rest', p3: 'POST', p4: 'error', p5: '1', p6: '2', p7: 'true', p8: 'beta' });
  });

  test('text that looks like SQL stays a parameter value', () => {
    const hostile = `x') or 1=1 --`;
    const filter = compileFilter(parseLql(`"${hostile}" level:"' or ''='"`), SCHEMA);
    assert.equal(filter.params.p0, hostile);
    assert.equal(filter.params.p1, `' or ''='`);
    assert.ok(filter.conditions.every((condition) => !condition.includes('1=1') && !condition.includes("''=")));
  });

  test('field names resolve case-insensitively to the stored name', () => {
    const filter = compileFilter(parseLql('M.USERID:7'), SCHEMA);
    assert.deepEqual(filter.conditions, ['u0.`userId` = cast(@p0 as int64)']);
  });

  test('a bare field inside metadata joins it in; found in both places, either matches without dropping rows', () => {
    const nested = compileFilter(parseLql('m.duration:1 userId:7'), SCHEMA);
    assert.deepEqual(nested.conditions, ['u0.`duration` = cast(@p0 as float64)', 'u0.`userId` = cast(@p1 as int64)']);
    const both: RecordFields = new Map([...SCHEMA, ['metadata', record({ level: { kind: 'string' } })]]);
    assert.deepEqual(compileFilter(parseLql('-level:error'), both).conditions, [
      'not coalesce((lower(t.`level`) = lower(@p0)) or (exists(select 1 from unnest(t.`metadata`) as e0 where lower(e0.`level`) = lower(@p1))), false)',
    ]);
  });

  test('unknown fields, records, wrong value types and list operators are refused with the reason', () => {
    rejects('m.nope:1', /unknown field m\.nope; fields here: request, response/);
    rejects('m.request:1', /m\.request is a record; name one of its fields/);
    rejects('level.x:1', /level is not a record/);
    rejects('m.response.status_code:abc', /holds numbers; "abc" is not one/);
    rejects('m.cached:maybe', /true or false/);
    rejects('level:1..5', /does not hold numbers/);
    rejects('m.tags:>a', /only m\.tags:value/);
    rejects('timestamp:>yesterday', /ISO 8601/);
  });

  test('time window and cursor are parameters too', () => {
    const { sql, params } = eventsQuery(parseLql(''), SCHEMA, { fromMicros: 1_000_000, toMicros: 2_000_000 }, { limit: 51, before: decodeCursor(encodeCursor({ timestampMicros: 1_500_000, id: 'abc' })) });
    assert.match(sql, /t\.timestamp >= timestamp_micros\(cast\(@p0 as int64\)\)/);
    assert.match(sql, /t\.timestamp < timestamp_micros\(cast\(@p1 as int64\)\)/);
    assert.match(sql, /t\.id < @before_id/);
    assert.match(sql, /order by t\.timestamp desc, t\.id desc\nlimit cast\(@page_limit as int64\)$/);
    assert.deepEqual(params, { p0: '1000000', p1: '2000000', page_limit: '51', before_ts: '1500000', before_id: 'abc' });
  });

  test('a cursor that was not issued by the service is refused', () => {
    assert.throws(() => decodeCursor('1 or 1=1'), /cursor/);
  });
});

describe('evaluation for live tail', () => {
  const event = (message: string, fields: Record<string, unknown>, timestamp = 1_700_000_000_000_000): TailEvent => ({ id: 'e', timestamp, event_message: message, fields });
  const request = (path: string, status: number, extra: Record<string, unknown> = {}) =>
    event(`GET ${path} ${status}`, { level: status >= 500 ? 'error' : 'info', metadata: { request: { path }, response: { status_code: status }, ...extra } });
  const matches = (query: string, subject: TailEvent) => compileMatcher(parseLql(query))(subject);

  test('the documented example selects server errors on /rest', () => {
    const query = 'm.response.status_code:>=500 m.request.path:~"/rest"';
    assert.equal(matches(query, request('/rest/v1/users', 503)), true);
    assert.equal(matches(query, request('/rest/v1/users', 200)), false);
    assert.equal(matches(query, request('/auth/v1/token', 500)), false);
  });

  test('free text is a case-insensitive substring of event_message, negation excludes', () => {
    assert.equal(matches('get /REST', request('/rest/x', 200)), true);
    assert.equal(matches('-rest', request('/rest/x', 200)), false);
    assert.equal(matches('-auth', request('/rest/x', 200)), true);
  });

  test('numbers compare as numbers, strings as strings, booleans by name', () => {
    assert.equal(matches('m.response.status_code:404..499', request('/a', 404)), true);
    assert.equal(matches('m.response.status_code:<100', request('/a', 404)), false);
    assert.equal(matches('m.response.status_code:404', request('/a', 404)), true);
    assert.equal(matches('level:error', request('/a', 500)), true);
    assert.equal(matches('m.cached:true', request('/a', 200, { cached: true })), true);
    assert.equal(matches('m.cached:false', request('/a', 200, { cached: true })), false);
  });

  test('repeated records and lists match when any element does; names ignore case', () => {
    const subject = event('x', { metadata: [{ hops: [{ host: 'a' }, { host: 'b' }], tags: ['red', 'blue'], UserId: 9 }] });
    assert.equal(matches('m.hops.host:b', subject), true);
    assert.equal(matches('m.tags:blue', subject), true);
    assert.equal(matches('m.userid:9', subject), true);
    assert.equal(matches('m.hops.host:c', subject), false);
  });

  test('NULL means the record is there without the field; a missing record matches nothing', () => {
    assert.equal(matches('m.user:NULL', request('/a', 200)), true);
    assert.equal(matches('-m.user:NULL', request('/a', 200, { user: 3 })), true);
    assert.equal(matches('m.user:NULL', event('no metadata', {})), false);
    assert.equal(matches('-m.response.status_code:200', event('no metadata', {})), false);
  });

  test('level is found inside metadata and as OpenTelemetry severity_text, in any case; OR and groups combine', () => {
    const otel = event('payment timeout', { metadata: { severity_text: 'ERROR' } });
    const pino = event('disk nearly full', { metadata: { level: 'warning' } });
    assert.equal(matches('level:error', otel), true);
    assert.equal(matches('level:error', pino), false);
    assert.equal(matches('level:error OR level:warning', pino), true);
    assert.equal(matches('(level:error OR level:warning) -disk', pino), false);
    assert.equal(matches('-(level:info OR level:debug)', otel), true);
    assert.equal(matches('-level:error', event('no level', {})), true);
  });

  test('timestamp compares with ISO times', () => {
    const subject = event('x', {}, Date.parse('2024-05-01T12:00:00Z') * 1000);
    assert.equal(matches('timestamp:>=2024-05-01T11:00:00Z', subject), true);
    assert.equal(matches('timestamp:<2024-05-01T11:00:00Z', subject), false);
  });
});
