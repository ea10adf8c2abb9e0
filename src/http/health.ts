/** Readiness of every configured part; `/healthz` answers 200 only when all are ready. */
export interface ReadinessCheck {
  name: string;
  ready(): Promise<boolean> | boolean;
}

export function createHealth() {
  const checks: ReadinessCheck[] = [];
  return {
    add(check: ReadinessCheck): void {
      checks.push(check);
    },
    async report(): Promise<{ ok: boolean; parts: Record<string, boolean> }> {
      const parts: Record<string, boolean> = {};
      await Promise.all(
        checks.map(async (check) => {
          try {
            parts[check.name] = await check.ready();
          } catch {
            parts[check.name] = false;
          }
        }),
      );
      return { ok: checks.length > 0 && Object.values(parts).every(Boolean), parts };
    },
  };
}

export type Health = ReturnType<typeof createHealth>;
