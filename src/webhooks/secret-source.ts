import type { Clock } from "../clock.js";
import type { Logger, WebhookFamily } from "../core/index.js";
import { storedWebhookSecrets } from "../core/index.js";
import { storeWithin } from "../store/bounded.js";
import type { Store } from "../store/store.js";

/**
 * The secrets a receiver accepts: the configured ones (ORDER_/REPORT_WEBHOOK_SECRETS) and every
 * one the bot registered (kept in the store). Reading the store on every request would cost a
 * round trip per webhook, so the stored ones are cached briefly; a signature that matches none
 * reloads them at once (a rotation on another instance), at most once per `minReloadMs`, so a
 * flood of forged requests cannot turn into a flood of store reads.
 */
export interface SecretSourceOptions {
  store: Store;
  configured: Readonly<Record<WebhookFamily, readonly string[]>>;
  logger: Logger;
  now?: Clock;
  /** How long stored secrets are trusted without reloading (default 10 s). */
  ttlMs?: number;
  /** Least time between two reloads forced by a mismatch (default 250 ms). */
  minReloadMs?: number;
}

export interface SecretSource {
  /** Every accepted secret of the family. */
  current(family: WebhookFamily): Promise<readonly string[]>;
  /** Reloads after a mismatch; undefined when nothing new can be learnt (too soon, or unchanged). */
  reload(family: WebhookFamily): Promise<readonly string[] | undefined>;
}

interface Entry {
  secrets: readonly string[];
  loadedAt: number;
}

export function createSecretSource(options: SecretSourceOptions): SecretSource {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? 10_000;
  const minReloadMs = options.minReloadMs ?? 250;
  const cache = new Map<WebhookFamily, Entry>();
  const loading = new Map<WebhookFamily, Promise<Entry>>();

  async function read(family: WebhookFamily): Promise<Entry> {
    let secrets: readonly string[];
    try {
      // Bounded: a Redis that does not answer must not hold the sender past its own timeout.
      const stored = (await storeWithin(storedWebhookSecrets(options.store, family))).map((s) => s.secret);
      secrets = [...new Set([...options.configured[family], ...stored])];
    } catch (error) {
      // The store is down: keep verifying with what is known rather than refusing everything.
      options.logger.warn({ family, err: error }, "could not read the registered webhook secrets");
      secrets = cache.get(family)?.secrets ?? options.configured[family];
    }
    const entry = { secrets, loadedAt: now() };
    cache.set(family, entry);
    return entry;
  }

  /** One read in flight per family, however many requests wait for it. */
  function load(family: WebhookFamily): Promise<Entry> {
    const pending = loading.get(family);
    if (pending) return pending;
    const started = read(family).finally(() => loading.delete(family));
    loading.set(family, started);
    return started;
  }

  return {
    async current(family) {
      const entry = cache.get(family);
      if (entry && now() - entry.loadedAt < ttlMs) return entry.secrets;
      return (await load(family)).secrets;
    },
    async reload(family) {
      const before = cache.get(family);
      if (before && now() - before.loadedAt < minReloadMs) return undefined;
      const after = await load(family);
      const changed = !before || after.secrets.some((s) => !before.secrets.includes(s));
      return changed ? after.secrets : undefined;
    },
  };
}
