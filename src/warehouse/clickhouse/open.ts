import type { Config } from '../../config.ts';
import type { SqlDialect } from '../../sql/dialect.ts';
import { ClickHouseWarehouse } from './adapter.ts';
import { clickhouseDialect } from './sql-generator.ts';

/** The ClickHouse warehouse and its SQL printer, from SAWMILL_CLICKHOUSE_* (config.ts). */
export async function openClickHouse(config: Config): Promise<{ warehouse: ClickHouseWarehouse; dialect: SqlDialect }> {
  const { url, username, password, database, cluster } = config.clickhouse;
  const warehouse = await ClickHouseWarehouse.open({ url, database, cluster, ...(username ? { username } : {}), ...(password ? { password } : {}) });
  return { warehouse, dialect: clickhouseDialect };
}
