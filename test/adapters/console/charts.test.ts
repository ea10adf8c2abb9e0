import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { decode } from "fast-png";
import { describe, expect, it } from "vitest";
import { createConsoleAdapter } from "../../../adapters/console/index.js";
import { image, publicReply } from "../../../src/core/index.js";
import { useSpendHarness } from "../../support/spend-harness.js";

/**
 * `chart …` on the console: the real core over the sandbox (noon UTC), the PNG saved in the
 * demo's file folder, its summary and path printed.
 */
const spend = useSpendHarness();
const SUMMARY = "energy_1h: Peak 08-20 65 SUN now; cheapest Off-peak 20-08 55 SUN from 20:00 UTC";

async function consoleOver(core: Parameters<typeof createConsoleAdapter>[0]["core"]) {
  const dir = mkdtempSync(join(tmpdir(), "opsbot-console-chart-"));
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = "";
  output.on("data", (chunk: Buffer) => {
    printed += chunk.toString("utf8");
  });
  const conversation = { platform: "console", id: "local" } as const;
  const adapter = createConsoleAdapter({
    input,
    output,
    core,
    actor: { platform: "console", userId: "alice" },
    conversation,
    fileDir: dir,
  });
  return { dir, input, adapter, conversation, printed: () => printed };
}

describe("console: charts", () => {
  it("chart prices saves the PNG and prints its summary and path", async () => {
    const h = await spend.setup();
    const c = await consoleOver(h.core);
    c.input.end("chart prices energy_1h\n");
    await c.adapter.finished;
    const [name] = readdirSync(c.dir);
    expect(name).toMatch(/^1-prices-energy_1h-\d{4}-\d\d-\d\d\.png$/);
    const saved = join(c.dir, name ?? "");
    expect(c.printed()).toBe(`[image] ${SUMMARY}\nsaved to ${saved}\n\n`);
    const png = decode(new Uint8Array(readFileSync(saved)));
    expect([png.width, png.height]).toEqual([1200, 600]);
  });

  it("a picture sent later is printed as a notification", async () => {
    const h = await spend.setup();
    const c = await consoleOver(h.core);
    const png = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]);
    const picture = { filename: "x/../b.png", png, width: 1, height: 1, summary: "B 2" };
    await c.adapter.send(c.conversation, publicReply(picture.summary, [image(picture)]));
    expect(c.printed()).toBe(`» [image] B 2\n» saved to ${join(c.dir, "1-b.png")}\n\n`);
    expect(new Uint8Array(readFileSync(join(c.dir, "1-b.png")))).toEqual(png);
    c.input.end();
    await c.adapter.finished;
  });
});
