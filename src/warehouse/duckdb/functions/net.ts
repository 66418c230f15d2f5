/** DuckDB renderings of BigQuery's net functions; what SQL cannot do runs in JavaScript (udfs.ts, net-values.ts). */

import { arg, type CallParts, type Renderings } from '../../../sql/emitters.ts';
import type { NET_FUNCTIONS } from '../../../sql/functions/families/net.ts';
import { URL_HOST_PATTERN } from '../../../sql/functions/net-host.ts';

const host = (call: CallParts) => `nullif(regexp_extract(trim(${arg(call, 0)}), '${URL_HOST_PATTERN}', 1), '')`;
const udf = (name: string) => (call: CallParts) => `${name}(${call.args.join(', ')})`;

export const NET: Renderings<typeof NET_FUNCTIONS> = {
  'net.host': host,
  'net.ip_from_string': (call) => (call.safe ? `sawmill_safe_ip_from_string(${arg(call, 0)})` : `sawmill_ip_from_string(${arg(call, 0)})`),
  'net.ip_net_mask': udf('sawmill_ip_net_mask'),
  'net.ip_to_string': udf('sawmill_ip_to_string'),
  'net.ip_trunc': udf('sawmill_ip_trunc'),
  'net.ipv4_from_int64': udf('sawmill_ipv4_from_int64'),
  'net.ipv4_to_int64': udf('sawmill_ipv4_to_int64'),
  'net.public_suffix': (call) => `sawmill_public_suffix(${host(call)})`,
  'net.reg_domain': (call) => `sawmill_reg_domain(${host(call)})`,
  'net.safe_ip_from_string': udf('sawmill_safe_ip_from_string'),
};
