import { createSandbox, type Sandbox, type SandboxOptions } from "../../../src/sandbox/server.js";
import { onCleanup } from "./cleanup.js";

/** Plenty for 10 000 screenings at any list price: the bench measures pacing, not the balance check. */
const BENCH_BALANCE_SUN = 10 ** 15;

/** The service simulator on a free loopback port, rate limits enforced, stopped by the cleanup. */
export async function startSandbox(
  name: string,
  options: SandboxOptions = {},
): Promise<{ sandbox: Sandbox; stop(): Promise<void> }> {
  const sandbox = await createSandbox({ host: "127.0.0.1", ...options });
  sandbox.account.balanceSun = BENCH_BALANCE_SUN;
  const cleanup = onCleanup(`sandbox ${name}`, () => sandbox.close());
  return { sandbox, stop: cleanup.stop };
}

/** Every call the sandbox answered 429, with how long before it the previous calls of its endpoint came. */
export function limitedCalls(sandbox: Sandbox): { endpoint: string; previousMsAgo: number[] }[] {
  const calls = sandbox.calls();
  return calls
    .map((call, index) => ({ call, index }))
    .filter(({ call }) => call.status === 429)
    .map(({ call, index }) => ({
      endpoint: call.endpoint,
      previousMsAgo: calls
        .slice(0, index)
        .filter((c) => c.endpoint === call.endpoint)
        .slice(-5)
        .map((c) => call.at - c.at),
    }));
}

/** `limitedCalls` as counts per endpoint, e.g. "order5m.create: 3, compliance.read: 1"; "" for none. */
export function limitedByEndpoint(limited: readonly { endpoint: string }[]): string {
  const counts = new Map<string, number>();
  for (const { endpoint } of limited) counts.set(endpoint, (counts.get(endpoint) ?? 0) + 1);
  return [...counts].map(([endpoint, n]) => `${endpoint}: ${n}`).join(", ");
}
