/**
 * SAWMILL_CLICKHOUSE_CLUSTER DDL (layout.ts). chdb cannot run distributed DDL (no Keeper:
 * "Replicated DDL queries are disabled", ReplicatedMergeTree needs ZooKeeper), so the cluster
 * statements are checked as text, and the Distributed part is executed on chdb with a one-shard
 * localhost cluster, ON CLUSTER removed and the replicated engine replaced by MergeTree.
 */

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Session } from 'chdb';
import type { FieldType } from '../../src/warehouse/types.ts';
import { addColumnSql, createDatabaseSql, createTableSql, createViewSql, dropSourceSql, retentionSql, tableName, wideningSql, type SourceLayout } from '../../src/warehouse/clickhouse/layout.ts';

const view = 'src_0123456789abcdef0123456789abcdef';
const layout: SourceLayout = { view, table: tableName(view), fields: new Map() };
const cluster = { database: 'sawmill', cluster: 'logs' };
const single = { database: 'sawmill', cluster: undefined };
const metadata: FieldType = { kind: 'record', fields: new Map<string, FieldType>([['status', { kind: 'int' }]]) };

function clusterStatements(): string[] {
  return [
    createDatabaseSql('sawmill', 'logs'),
    ...createTableSql(layout, { ...cluster, retentionDays: 30 }),
    createViewSql(layout, cluster),
    retentionSql(layout, cluster, 7),
    retentionSql(layout, cluster, null),
    ...wideningSql(layout, cluster, new Map([['metadata', metadata]])),
    ...dropSourceSql(view, cluster),
  ];
}

test('on a cluster every statement runs ON CLUSTER', () => {
  for (const statement of clusterStatements()) assert.match(statement, /ON CLUSTER `logs`/, statement);
});

test('on a cluster: a replicated local table per shard, a Distributed table under the name Sawmill uses', () => {
  const [local, distributed] = createTableSql(layout, { ...cluster, retentionDays: 30 });
  assert.match(local!, new RegExp(`^CREATE TABLE IF NOT EXISTS \`sawmill\`\\.\`${view}_local\` ON CLUSTER`));
  assert.match(local!, new RegExp(`ENGINE = ReplicatedMergeTree\\('/clickhouse/tables/\\{shard\\}/sawmill/${view}_local', '\\{replica\\}'\\)`));
  assert.match(local!, /PARTITION BY toDate\(timestamp\) ORDER BY timestamp TTL toDateTime\(timestamp\) \+ toIntervalDay\(30\)/);
  assert.doesNotMatch(local!, /non_replicated_deduplication_window/);
  assert.equal(
    distributed,
    `CREATE TABLE IF NOT EXISTS \`sawmill\`.\`${view}_data\` ON CLUSTER \`logs\` AS \`sawmill\`.\`${view}_local\` ENGINE = Distributed(\`logs\`, \`sawmill\`, \`${view}_local\`, cityHash64(id))`,
  );
  assert.match(createViewSql(layout, cluster), new RegExp(`FROM \`sawmill\`\\.\`${view}_data\`$`));
});

test('on a cluster: TTL on the local tables, new columns on the local tables then the Distributed one', () => {
  assert.match(retentionSql(layout, cluster, 7), new RegExp(`^ALTER TABLE \`sawmill\`\\.\`${view}_local\` ON CLUSTER \`logs\` MODIFY TTL`));
  const [local, distributed] = addColumnSql(layout, cluster, 'metadata', metadata);
  assert.match(local!, new RegExp(`^ALTER TABLE \`sawmill\`\\.\`${view}_local\` ON CLUSTER \`logs\` ADD COLUMN IF NOT EXISTS \`metadata\` Array\\(Tuple\\(\`status\` Nullable\\(Int64\\)\\)\\) CODEC\\(ZSTD\\(1\\)\\)$`));
  assert.match(distributed!, new RegExp(`^ALTER TABLE \`sawmill\`\\.\`${view}_data\` ON CLUSTER \`logs\` ADD COLUMN IF NOT EXISTS \`metadata\` Array\\(Tuple\\(\`status\` Nullable\\(Int64\\)\\)\\)$`));
  assert.deepEqual(dropSourceSql(view, cluster).map((statement) => statement.split(' ON CLUSTER')[0]), [
    `DROP VIEW IF EXISTS \`sawmill\`.\`${view}\``,
    `DROP TABLE IF EXISTS \`sawmill\`.\`${view}_data\``,
    `DROP TABLE IF EXISTS \`sawmill\`.\`${view}_local\``,
  ]);
  assert.match(dropSourceSql(view, cluster)[2]!, / SYNC$/);
});

test('without a cluster: one MergeTree table, no ON CLUSTER anywhere', () => {
  const statements = [
    createDatabaseSql('sawmill', undefined),
    ...createTableSql(layout, { ...single, retentionDays: 30 }),
    createViewSql(layout, single),
    retentionSql(layout, single, 7),
    ...wideningSql(layout, single, new Map([['metadata', metadata]])),
    ...dropSourceSql(view, single),
  ];
  for (const statement of statements) assert.doesNotMatch(statement, /ON CLUSTER|Replicated|Distributed|_local/, statement);
  assert.equal(createTableSql(layout, { ...single, retentionDays: null }).length, 1);
  assert.match(createTableSql(layout, { ...single, retentionDays: null })[0]!, /ENGINE = MergeTree PARTITION BY/);
});

test('the Distributed statements execute on chdb over a one-shard localhost cluster', () => {
  const directory = mkdtempSync(join(tmpdir(), 'sawmill-ch-cluster-'));
  const config = join(directory, 'config.xml');
  writeFileSync(config, '<clickhouse><tcp_port>9000</tcp_port><remote_servers><logs><shard><replica><host>localhost</host><port>9000</port></replica></shard></logs></remote_servers></clickhouse>');
  const session = new Session(join(directory, 'data'), { connectionArgs: [`--config-file=${config}`] } as never);
  try {
    // What chdb cannot run: distributed DDL and replication (no Keeper).
    const runnable = (statement: string) =>
      statement.replace(/ ON CLUSTER `logs`/, '').replace(/ReplicatedMergeTree\([^)]*\)/, 'MergeTree').replace(/ SYNC$/, '');
    session.query(runnable(createDatabaseSql('sawmill', 'logs')));
    for (const statement of createTableSql(layout, { ...cluster, retentionDays: 30 })) session.query(runnable(statement));
    for (const statement of addColumnSql(layout, cluster, 'metadata', metadata)) session.query(runnable(statement));
    const withMetadata: SourceLayout = { ...layout, fields: new Map([['metadata', { generations: [{ column: 'metadata', type: metadata }], type: metadata }]]) };
    session.query(runnable(createViewSql(withMetadata, cluster)));
    session.query(runnable(retentionSql(layout, cluster, 7)));
    session.query(`INSERT INTO sawmill.${view}_data SETTINGS distributed_foreground_insert = 1 SELECT 'a', now64(6), 'm', [tuple(200), tuple(500)]`);
    assert.equal(session.query(`SELECT count() FROM sawmill.${view}_local`, 'TSV').trim(), '1');
    assert.equal(session.query(`SELECT sum(s) FROM sawmill.${view}_data ARRAY JOIN metadata.status AS s`, 'TSV').trim(), '700');
    assert.equal(session.query(`SELECT id FROM sawmill.${view}`, 'TSV').trim(), 'a');
    for (const statement of dropSourceSql(view, cluster)) session.query(runnable(statement));
  } finally {
    session.close();
    rmSync(directory, { recursive: true, force: true });
  }
});
