import { afterEach, describe, expect, it } from "vitest";
import { readDay } from "../../src/core/ledger/ledger.js";
import { checkExportChain } from "../../src/core/verification/export-chain.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { messageText } from "../adapters/slack/harness.js";
import { ADMIN, createWorld, eventually, OPERATOR, TG_OPERATOR } from "../support/app-world.js";
import { testRedis } from "../support/redis.js";

/**
 * `audit export` as an admin uses it: the spend ledger as the contract's CSV, posted as a Slack
 * file (files v2) and a Telegram document, with a code `verify` answers for, naming the range,
 * the rows and the last hash; the file's chain checks out.
 */
const redis = testRedis();
afterEach(() => redis.cleanup());
const CODE = /OPS-AUDIT-[A-Z2-7]{10}-[A-Z2-7]{26}/;
const HEADER =
  "seq,at,kind,actor,requester,address,amount_trx,result,order_ids,confirmation_id,detail,prev_hash,hash";

describe("audit export", () => {
  it("posts the ledger as a CSV file with a code on Slack and Telegram; verify names what it certifies", async () => {
    const world = await createWorld({
      telegram: true,
      sandbox: { energy: { order5mLatencyMs: 5 } },
      redis: { url: redis.url, prefix: redis.prefix },
      env: { OPS_ADMINS: `slack:${ADMIN.id},telegram:${TG_OPERATOR.id}` },
    });
    const bot = await world.start();
    await bot.command(`energy ${tronAddress("export-1")} 65k`);
    const quote = await eventually(
      () => world.slack.channelMessages("C0OPS").find((m) => /Confirm/.test(JSON.stringify(m.blocks))),
      "the quote",
    );
    await bot.click(quote, /^Confirm/, { user: OPERATOR });
    const today = new Date().toISOString().slice(0, 10);
    await eventually(
      async () => ((await readDay(bot.app.deps.store, today)).length === 1 ? true : undefined),
      "the order in the ledger",
    );

    await bot.command("audit export", { user: ADMIN, channel: "C0ADMIN" });
    const shared = await eventually(
      () => world.slack.channelMessages("C0ADMIN").find((m) => (m.files?.length ?? 0) > 0),
      "the export file in Slack",
    );
    const csv = shared.files?.[0]?.bytes?.toString("utf8") ?? "";
    const lines = csv.trim().split("\n");
    expect(lines[0]).toBe(HEADER);
    expect(lines.slice(1).map((l) => l.split(",")[2])).toEqual(["energy"]);
    const check = await checkExportChain([csv]);
    expect(check).toMatchObject({ unaltered: true, rows: 1 });
    const told = world.slack
      .channelMessages("C0ADMIN")
      .map((m) => messageText(m))
      .join("\n");
    const code = CODE.exec(told)?.[0];
    expect(code, told).toBeDefined();
    expect(told).toContain(`/verify?code=${code}`);

    const verdict = await bot.app.core.handle({
      kind: "command",
      actor: { platform: "slack", userId: OPERATOR.id },
      conversation: { platform: "slack", id: "C0OPS" },
      text: `verify ${code}`,
    });
    const said = JSON.stringify(verdict.blocks);
    expect(said).toContain("Genuine");
    expect(said).toContain(`${today}..${today}`);
    expect(said).toContain(check.unaltered ? check.lastHash : "missing");

    await bot.say("/audit export");
    const document = await eventually(
      () => world.telegram?.messages(TG_OPERATOR.id).find((m) => m.document !== undefined)?.document,
      "the export document in Telegram",
    );
    expect(document.filename).toBe(`audit-${today}.csv`);
    expect(document.bytes.toString("utf8").split("\n")[0]).toBe(HEADER);
    expect(await checkExportChain([document.bytes])).toMatchObject({ unaltered: true, rows: 1 });
  });
});
