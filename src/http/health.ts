import { within } from "../clock.js";
/** Readiness of every configured part; `/healthz` answers 200 only when all are ready. */
export interface ReadinessCheck {
  name: string;
  ready(): Promise<boolean> | boolean;
}

/** A check that has not answered by then counts as not ready: `/healthz` itself must never hang. */
const CHECK_TIMEOUT_MS = 1_500;

export interface HealthReport {
  ok: boolean;
  parts: Record<string, boolean>;
}

export function createHealth(options: { timeoutMs?: number } = {}) {
  const checks: ReadinessCheck[] = [];
  const timeoutMs = options.timeoutMs ?? CHECK_TIMEOUT_MS;
  return {
    add(check: ReadinessCheck): void {
      checks.push(check);
    },
    async report(): Promise<HealthReport> {
      const parts: Record<string, boolean> = {};
      await Promise.all(
        checks.map(async (check) => {
          parts[check.name] = await readyWithin(check, timeoutMs);
        }),
      );
      return { ok: checks.length > 0 && Object.values(parts).every(Boolean), parts };
    },
  };
}

export type Health = ReturnType<typeof createHealth>;

async function readyWithin(check: ReadinessCheck, timeoutMs: number): Promise<boolean> {
  try {
    return await within(
      Promise.resolve().then(() => check.ready()),
      timeoutMs,
      () => false,
    );
  } catch {
    return false;
  }
}
