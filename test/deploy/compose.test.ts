/**
 * The compose files and the Dockerfile, read as Docker would read them (no daemon here): the
 * Supabase overlay replaces the `analytics` service under its name, with Supabase's health check,
 * the port Studio and Vector call, the two token variables and a volume; the standalone file
 * builds this repository; the image listens on all interfaces as a non-root user with /data.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { ignoredLogflareSettings } from '../../src/logflare-env.ts';
import { interpolate, LOGFLARE_ENVIRONMENT, OLDEST_LOGFLARE_ENVIRONMENT, readYaml, STACK_HEALTH_CHECK, STACK_PRIVATE_TOKEN, STACK_PUBLIC_TOKEN } from '../support/supabase-stack.ts';

const root = new URL('../../', import.meta.url);
const file = (path: string) => new URL(path, root).pathname;

/** A service's `environment` as Compose hands it to the container: a map, `${...}` filled in. */
function containerEnvironment(service: { environment?: Record<string, unknown> | string[] }, env: Record<string, string>): Record<string, string> {
  const entries = Array.isArray(service.environment)
    ? service.environment.map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string])
    : Object.entries(service.environment ?? {}).map(([name, value]) => [name, String(value)] as [string, string]);
  return Object.fromEntries(entries.map(([name, value]) => [name, interpolate(value, env)]));
}

describe('deploy/supabase/docker-compose.sawmill.yml', () => {
  const overlay = readYaml(file('deploy/supabase/docker-compose.sawmill.yml'));
  const analytics = overlay.services.analytics;

  test('replaces only the analytics service, under the stack container name', () => {
    assert.deepEqual(Object.keys(overlay.services), ['analytics']);
    assert.equal(analytics.container_name, 'supabase-analytics');
    assert.match(analytics.image, /sawmill/);
  });

  test("Supabase's health check, which the image's curl answers", () => {
    assert.deepEqual(analytics.healthcheck.test, STACK_HEALTH_CHECK);
    assert.deepEqual([analytics.healthcheck.interval, analytics.healthcheck.timeout, analytics.healthcheck.retries], ['5s', '5s', 10]);
  });

  test('the merged environment (Logflare\'s kept, ours added) configures Sawmill on analytics:4000 with the stack tokens', () => {
    const merged = { ...LOGFLARE_ENVIRONMENT, ...containerEnvironment(analytics, LOGFLARE_ENVIRONMENT) };
    const config = loadConfig(merged);
    assert.deepEqual([config.host, config.port, config.dataDir], ['0.0.0.0', 4000, '/data']);
    assert.equal(config.ingestKey, STACK_PUBLIC_TOKEN, "Vector's key ingests");
    assert.equal(config.privateKey, STACK_PRIVATE_TOKEN, "Studio's key queries");
  });

  test("the oldest stacks' one key, LOGFLARE_API_KEY (Studio's and Vector's), is the private key", () => {
    const env = OLDEST_LOGFLARE_ENVIRONMENT;
    const merged = { ...env, ...containerEnvironment(analytics, env) };
    const config = loadConfig(merged);
    assert.equal(config.privateKey, env.LOGFLARE_API_KEY);
    assert.equal(config.ingestKey, undefined, 'no ingest-only key: Vector sends the one key');
    assert.ok(!ignoredLogflareSettings(merged).includes('LOGFLARE_API_KEY'), 'not named as ignored at start: it is the key in use');
    assert.ok(ignoredLogflareSettings({ LOGFLARE_API_KEY: 'elsewhere' }).includes('LOGFLARE_API_KEY'), 'named when nothing passed it on');
    // Where both are set, the private token wins, as on the current stack.
    assert.equal(loadConfig({ ...LOGFLARE_ENVIRONMENT, ...containerEnvironment(analytics, { ...LOGFLARE_ENVIRONMENT, LOGFLARE_API_KEY: 'old' }) }).privateKey, STACK_PRIVATE_TOKEN);
  });

  test('docker compose pull leaves the locally built image alone (pull_policy), unless told otherwise', () => {
    assert.equal(interpolate(analytics.pull_policy, {}), 'never');
    assert.equal(interpolate(analytics.pull_policy, { SAWMILL_PULL_POLICY: 'always' }), 'always', 'an image pushed to a registry (SAWMILL_IMAGE) may be pulled');
  });

  test('/data is a named volume the overlay declares', () => {
    const mount = (analytics.volumes as string[]).find((volume) => volume.endsWith(':/data'));
    assert.ok(mount, JSON.stringify(analytics.volumes));
    const name = mount.split(':')[0]!;
    assert.ok(!name.startsWith('.') && !name.startsWith('/'), 'a named volume, owned by the image user from the start');
    assert.ok(name in overlay.volumes, `volume ${name} declared`);
  });
});

describe('docker-compose.yml (standalone)', () => {
  const compose = readYaml(file('docker-compose.yml'));
  const sawmill = compose.services.sawmill;

  test('builds this repository and serves port 4000 with the same health check and a volume', () => {
    assert.deepEqual(Object.keys(compose.services), ['sawmill']);
    assert.equal(sawmill.build, '.');
    assert.deepEqual(sawmill.ports, ['4000:4000']);
    assert.deepEqual(sawmill.healthcheck.test, STACK_HEALTH_CHECK);
    assert.ok((sawmill.volumes as string[]).some((volume) => volume.endsWith(':/data')));
    assert.equal(sawmill.pull_policy, 'build', 'docker compose pull skips it, and up builds it rather than look for sawmill:latest on a registry');
  });

  test('without keys set, the empty values leave the generated key in place', () => {
    const config = loadConfig(containerEnvironment(sawmill, {}));
    assert.deepEqual([config.host, config.port, config.dataDir, config.privateKey, config.ingestKey], ['0.0.0.0', 4000, '/data', undefined, undefined]);
    const keyed = loadConfig(containerEnvironment(sawmill, { SAWMILL_API_KEY: 'k'.repeat(32) }));
    assert.equal(keyed.privateKey, 'k'.repeat(32));
  });
});

describe('Dockerfile', () => {
  const text = readFileSync(file('Dockerfile'), 'utf8');
  const finalStage = text.slice(text.lastIndexOf('\nFROM '));
  const env = Object.fromEntries([...finalStage.matchAll(/\b([A-Z_]+)=(\S+)/g)].map((match) => [match[1]!, match[2]!]));

  test('the final image: all interfaces on 4000, data in /data, curl, a non-root user, the compiled service', () => {
    assert.deepEqual([env.HOST, env.PORT, env.SAWMILL_DATA_DIR], ['0.0.0.0', '4000', '/data']);
    assert.match(finalStage, /^VOLUME \/data$/m);
    assert.match(finalStage, /apt-get install -y --no-install-recommends curl/);
    assert.match(finalStage, /^USER node$/m);
    assert.match(finalStage, /^CMD \["node", "bin\/service.cjs"\]$/m);
    assert.match(finalStage, /^HEALTHCHECK .*curl -sSfL -o \/dev\/null http:\/\/localhost:4000\/health/m);
  });

  test('.dockerignore keeps node_modules, data and the tests out, and the committed console in', () => {
    const ignored = readFileSync(file('.dockerignore'), 'utf8').split('\n').filter((line) => line && !line.startsWith('#'));
    for (const path of ['node_modules', 'data', 'test', '.git', 'build']) assert.ok(ignored.includes(path), path);
    assert.ok(!ignored.some((pattern) => pattern.startsWith('console') && !pattern.includes('node_modules')), 'console/dist is copied into the image');
  });
});
