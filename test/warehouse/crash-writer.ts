// Child process for the crash test: writes, widens nested fields, then dies without a checkpoint.
import { DuckDbWarehouse } from '../../src/warehouse/duckdb/adapter.ts';
import { schemaForRows } from '../../src/warehouse/schema.ts';
import type { JsonValue, LogRow } from '../../src/warehouse/types.ts';

const [dir, sourceId] = process.argv.slice(2) as [string, string];
const warehouse = await DuckDbWarehouse.open({ path: `${dir}/w.duckdb`, stagingDir: `${dir}/staging`, memoryLimit: '512MB' });
await warehouse.createSource(sourceId);
const shapes: Array<{ [key: string]: JsonValue }> = [{ a: 1 }, { a: 2, b: { c: 'x' } }, { a: 'three', b: [{ c: 'y', d: true }] }];
for (const [i, metadata] of shapes.entries()) {
  const rows: LogRow[] = [{ id: `row-${i}`, timestamp: 1_700_000_000_000_000 + i, event_message: `m${i}`, fields: { metadata } }];
  await warehouse.append([{ sourceId, schema: schemaForRows(warehouse.schema(sourceId), rows), rows }]);
  process.stdout.write(`acked ${i}\n`);
}
process.kill(process.pid, 'SIGKILL');
