/**
 * `P/logplex`: Heroku HTTPS log drains (`Content-Type: application/logplex-1`). The body is a run of
 * octet-counted frames, `<byte length> <RFC 5424 syslog message>`, for example
 * `83 <40>1 2012-11-30T06:45:29+00:00 host app web.3 - State changed from starting to up\n`.
 *
 * Each frame becomes one event: event_message = the syslog MSG (trailing newline removed),
 * timestamp = the syslog TIMESTAMP, metadata = the header fields (`facility`, `severity`,
 * `priority`, `version`, `hostname`, `appname`, `procid`, `msgid`, `structured_data`), with `-`
 * (syslog's nil value) left out. Heroku omits the STRUCTURED-DATA field entirely, so after MSGID a
 * `[` starts structured data, a lone `-` is nil structured data, and anything else is the message.
 * A frame that does not parse is a per-event error; a broken octet count ends the body, because
 * the next frame's start cannot be known.
 */
import { isUtf8 } from 'node:buffer';
import { AppError } from '../errors.ts';
import type { Adapter, RawEventResult } from './adapter.ts';

const FACILITIES = [
  'kern', 'user', 'mail', 'daemon', 'auth', 'syslog', 'lpr', 'news', 'uucp', 'cron', 'authpriv', 'ftp',
  'ntp', 'security', 'console', 'solaris-cron', 'local0', 'local1', 'local2', 'local3', 'local4', 'local5',
  'local6', 'local7',
];
const SEVERITIES = ['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug'];

export const logplexAdapter: Adapter = ({ body }) => {
  if (body.kind !== 'text') {
    throw new AppError(415, 'unsupported_media_type', 'the logplex route expects Content-Type application/logplex-1');
  }
  return { events: splitFrames(body.bytes).map(frameEvent), routing: {} };
};

type Frame = { ok: true; offset: number; bytes: Buffer } | { ok: false; error: string };

const isSpace = (byte: number | undefined): boolean => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
const isDigit = (byte: number | undefined): boolean => byte !== undefined && byte >= 0x30 && byte <= 0x39;

export function splitFrames(bytes: Buffer): Frame[] {
  const frames: Frame[] = [];
  let i = 0;
  for (;;) {
    while (isSpace(bytes[i])) i++;
    if (i >= bytes.length) return frames;
    const start = i;
    while (isDigit(bytes[i])) i++;
    if (i === start || bytes[i] !== 0x20) {
      frames.push({ ok: false, error: `frame at byte ${start}: expected "<octet count> <syslog message>"` });
      return frames;
    }
    const length = Number(bytes.toString('latin1', start, i));
    const from = i + 1;
    if (from + length > bytes.length) {
      frames.push({ ok: false, error: `frame at byte ${start}: octet count ${length} runs past the end of the body` });
      return frames;
    }
    frames.push({ ok: true, offset: start, bytes: bytes.subarray(from, from + length) });
    i = from + length;
  }
}

// <PRI>VERSION SP TIMESTAMP SP HOSTNAME SP APP-NAME SP PROCID SP MSGID [SP rest]
const HEADER = /^<(\d{1,3})>(\d{1,2}) (\S+) (\S+) (\S+) (\S+) (\S+)(?: ([\s\S]*))?$/;

function frameEvent(frame: Frame): RawEventResult {
  if (!frame.ok) return frame;
  const where = `frame at byte ${frame.offset}`;
  if (!isUtf8(frame.bytes)) return { ok: false, error: `${where}: message is not valid UTF-8` };
  const match = HEADER.exec(frame.bytes.toString('utf8').replace(/\r?\n$/, ''));
  const priority = Number(match?.[1]);
  if (!match || priority > 191) return { ok: false, error: `${where}: not an RFC 5424 syslog message` };
  const [, , version, timestamp, hostname, appname, procid, msgid, rest = ''] = match;
  const { structuredData, message } = splitStructuredData(rest);
  const metadata: Record<string, unknown> = {
    facility: FACILITIES[priority >> 3],
    severity: SEVERITIES[priority & 7],
    priority,
    version: Number(version),
  };
  const header = { hostname, appname, procid, msgid, structured_data: structuredData };
  for (const [key, value] of Object.entries(header)) if (value !== undefined && value !== '-') metadata[key] = value;
  const event: Record<string, unknown> = { event_message: message, metadata };
  if (timestamp !== '-') event.timestamp = timestamp;
  return { ok: true, event };
}

function splitStructuredData(rest: string): { structuredData?: string; message: string } {
  if (rest === '-' || rest.startsWith('- ')) return { message: rest.slice(2) };
  if (!rest.startsWith('[')) return { message: rest };
  // SD-ELEMENTs follow each other with no space between; `]` inside a value is escaped as `\]`.
  let i = 0;
  while (rest[i] === '[') {
    i++;
    while (i < rest.length && rest[i] !== ']') i += rest[i] === '\\' ? 2 : 1;
    i++;
  }
  return { structuredData: rest.slice(0, i), message: rest.slice(i).replace(/^ /, '') };
}
