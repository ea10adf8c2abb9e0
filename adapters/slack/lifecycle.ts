import type { App } from "@slack/bolt";
import type { Logger } from "../../src/core/index.js";
import type { Inflight } from "./inflight.js";

/**
 * Start and stop of the Slack connection. Start checks the token (auth.test) and, in Socket Mode,
 * opens the socket; a failure is logged with what to check and retried in the background, so a
 * Slack outage at boot leaves the bot running and `/healthz` at 503 instead of crash-looping.
 * Stop refuses new requests, waits (bounded) for answers in flight, then closes the socket.
 */
const SLACK_START_RETRY_MS = 5_000;

export interface Lifecycle {
  start(): Promise<void>;
  ready(): boolean;
  closed(): boolean;
  close(timeoutMs: number): Promise<void>;
}

export function createLifecycle(options: {
  app: App;
  socketMode: boolean;
  inflight: Inflight;
  logger: Logger;
  retryMs?: number;
}): Lifecycle {
  const { app, socketMode, logger } = options;
  let ready = false;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let closing: Promise<void> | undefined;

  async function attempt(): Promise<void> {
    try {
      await app.init();
      if (socketMode) await app.start();
      ready = true;
      logger.info({ mode: socketMode ? "socket" : "http" }, "Slack adapter ready");
    } catch (error) {
      if (closed) return;
      logger.error(
        { err: error },
        "could not reach Slack; verify SLACK_BOT_TOKEN (and SLACK_APP_TOKEN in Socket Mode) and SLACK_API_URL; retrying",
      );
      retry = setTimeout(() => void attempt(), options.retryMs ?? SLACK_START_RETRY_MS);
      retry.unref();
    }
  }

  return {
    start: attempt,
    ready: () => ready && !closed,
    closed: () => closed,
    close(timeoutMs) {
      closing ??= (async () => {
        closed = true;
        clearTimeout(retry);
        await options.inflight.idle(timeoutMs);
        if (socketMode && ready) await app.stop().catch(() => {});
      })();
      return closing;
    },
  };
}
