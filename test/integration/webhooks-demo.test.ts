import { randomBytes } from "node:crypto";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { type App, startApp } from "../../src/app.js";
import { loadConfig } from "../../src/config/load-config.js";
import { rememberOrigin } from "../../src/core/origins.js";
import { createLogger } from "../../src/log.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import type { DeliveryRecord } from "../../src/sandbox/outbound.js";
import { waitFor } from "../webhooks/bot.js";

/**
 * The demo as `npm start` runs it (sandbox, in-process store, console): it registers its webhook
 * receivers with the built-in sandbox at start, so a delivery shows up on the console.
 */
let app: App | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

describe("demo webhooks", () => {
  it("registers the receivers at start and shows a delivery notification on the console", async () => {
    const stdout = new PassThrough();
    let printed = "";
    stdout.on("data", (chunk: Buffer) => {
      printed += chunk.toString("utf8");
    });
    const logLines: string[] = [];
    const logger = createLogger({
      level: "debug",
      destination: { write: (line: string) => void logLines.push(line) },
    });
    app = await startApp({
      config: { ...loadConfig({}), port: 0 },
      logger,
      stdin: new PassThrough(),
      stdout,
    });
    const sandbox = app.sandbox!;
    expect(sandbox.calls("order_webhooks.create")).toHaveLength(1);
    expect(sandbox.calls("report_webhooks.create")).toHaveLength(1);
    expect(sandbox.calls("order_webhooks.create")[0]?.body).toEqual({
      url: "https://opsbot.sandbox/webhooks/orders",
    });

    const placed = await app.deps.service.order5m.create({
      amount: 65_000,
      receiveAddress: tronAddress("demo"),
      idempotencyKey: randomBytes(32).toString("hex"),
    });
    await rememberOrigin(app.deps.store, "order", placed.result.orderId, {
      platform: "console",
      id: "console",
    });
    await waitFor(() => printed.includes(placed.result.orderId), "the delivery on the console", 10_000);
    expect(printed).toContain("Energy delivered");
    await sandbox.outbound.idle();
    const record = (sandbox.outbound.history() as DeliveryRecord[]).find((r) => r.kind === "order");
    expect(record).toMatchObject({ state: "delivered", lastStatus: 200, attempts: 1 });
    expect(logLines.join("")).not.toContain(app.deps.settings.hostCallbackToken);
    expect(logLines.join("")).not.toMatch(/whsec_[A-Za-z0-9]/);
  });
});
