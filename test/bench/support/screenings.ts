import { DEFAULT_API_KEY, DEFAULT_REAL_IP } from "../../../src/sandbox/accounts.js";
import { tronAddressFrom } from "../../../src/sandbox/families/screening.js";
import type { Sandbox } from "../../../src/sandbox/server.js";
import { createServiceClient } from "../../../src/service/client.js";
import { unlimited } from "../../../src/service/rate-limits.js";

const CREATE_CONCURRENCY = 16;

/**
 * Creates `n` pending screenings over HTTP with the sandbox's limits off (setting up is not what
 * is measured), each on its own address; `durationMs(i)` sets how long order i stays pending
 * (default: the sandbox's). Afterwards the limits are on again and the call log is empty.
 */
export async function createPendingScreenings(
  sandbox: Sandbox,
  n: number,
  durationMs?: (i: number) => number,
): Promise<string[]> {
  const client = createServiceClient({
    baseUrl: sandbox.url,
    apiKey: DEFAULT_API_KEY,
    realIp: DEFAULT_REAL_IP,
    limiter: unlimited,
  });
  sandbox.setRateLimits(false);
  const ids: string[] = new Array(n);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < n; i = next++) {
      const address = tronAddressFrom(`opsbot-bench:screening:${i}`);
      if (durationMs) sandbox.screening.setDuration(durationMs(i), address);
      const created = await client.screening.create({
        address,
        network: "trx",
        provider: "provider_a",
        waitForResult: false,
      });
      const status = created.order.order.status;
      if (status !== "pending") throw new Error(`screening ${i} is ${status}, not pending`);
      ids[i] = created.order.order.client_order_id;
    }
  };
  try {
    await Promise.all(Array.from({ length: CREATE_CONCURRENCY }, worker));
  } finally {
    sandbox.setRateLimits(true);
    sandbox.clearCalls();
  }
  return ids;
}
