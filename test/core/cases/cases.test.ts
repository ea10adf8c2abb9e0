import { Readable } from "node:stream";
import { getDocument, OPS } from "pdfjs-dist/legacy/build/pdf.mjs";
import { expect, it } from "vitest";
import { caseCommand } from "../../../src/core/cases/case-commands.js";
import { applyCaseOp } from "../../../src/core/cases/case-ops.js";
import { readCase } from "../../../src/core/cases/case-record.js";
import { caseSlaHandler } from "../../../src/core/cases/case-sla.js";
import { certificateCommand } from "../../../src/core/cases/certificate-command.js";
import { screeningFound } from "../../../src/core/cases/evidence.js";
import { noteFinding } from "../../../src/core/cases/open.js";
import type { CommandContext } from "../../../src/core/command.js";
import type { Actor } from "../../../src/core/invocation.js";
import { roleOf } from "../../../src/core/roles.js";
import { verifyAnyCode } from "../../../src/core/verification/verify-code.js";
import { verifyCommand } from "../../../src/core/verification/verify-command.js";
import { checkFileOfCode } from "../../../src/core/verification/verify-file.js";
import type { ScreeningOrder } from "../../../src/service/screening.js";
import { replyButtons, replyText } from "../../support/core-harness.js";
import { channel, forEachStore, operator, stubDeps, viewer } from "../support.js";

/**
 * AML cases over both stores: opened once per address (also from two connections at once), a
 * second finding added, Take / clear with and without a reason, reopened by a new finding, the
 * SLA job escalating once, and a certificate whose PDF is read back and whose code verifies.
 */
const ALERTS = { platform: "slack" as const, id: "C0ALERT" };
const SETTINGS = {
  cases: {
    levels: ["high", "severe"],
    slaMs: 60 * 60_000,
    certKeyHex: "ab".repeat(32),
    destinations: [ALERTS],
  },
  alerts: { oncall: ["slack:U0ONCALL"] },
  operators: ["slack:U0OPER"],
};
const ADDRESS = "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf";

function order(id: string, level: string): ScreeningOrder {
  return {
    schema_version: 2,
    order: {
      client_order_id: id,
      status: "completed",
      api_version: "2",
      cache_hit: false,
      created_at: "2026-01-01T00:00:00Z",
      started_at: null,
      completed_at: "2026-01-01T00:00:05Z",
    },
    request: { address: ADDRESS, network: "trx", provider: "provider_a" },
    check: {
      provider: "provider_a",
      provider_check_id: null,
      checked_at: "2026-01-01T00:00:05Z",
      status: "completed",
      provider_status: null,
    },
    risk: {
      score: "8.4",
      scale: { min: 0, max: 10 },
      level,
      level_source: "computed",
      provider_level: null,
      policy: "service-risk-v1",
      by_direction: { source: null, destination: null },
    },
    sanctions: { self: false, self_entities: [], exposure: {}, items: [], related: [] },
    exposure: [
      {
        category: "mixer",
        share_fraction: "0.4",
        direction: "source",
        hops: 1,
        is_screened_address: false,
        entities: [],
      },
    ],
    rawSha256: "f".repeat(64),
  } as unknown as ScreeningOrder;
}

const command = (d: ReturnType<typeof stubDeps>, actor: Actor, line: string): CommandContext => {
  const [, ...args] = line.split(" ");
  return {
    invocation: { kind: "command", actor, conversation: channel, text: line },
    args,
    role: roleOf(actor, d.settings),
    deps: d,
    commands: [],
  };
};

forEachStore("cases", (get) => {
  const deps = () => stubDeps({ store: get().store, clock: get().clock, settings: SETTINGS });

  it("a high-risk screening opens one case: one message with Take, Clear…, Report…, the SLA job, the line", async () => {
    const d = deps();
    const line = await screeningFound(d, order("A00000000000001", "high"), {
      askedBy: "olga",
      conversation: channel,
    });
    expect(line.map((b) => JSON.stringify(b)).join("")).toMatch(/opened AML case.*C\d+/);
    expect(d.posted).toHaveLength(1);
    expect(d.posted[0]?.conversation).toEqual(ALERTS);
    expect(replyButtons(d.posted[0]!.reply).map((b) => b.label)).toEqual(["Take", "Clear…", "Report…"]);
    expect(d.scheduled).toEqual([expect.objectContaining({ kind: "case-sla", opening: 1 })]);
    // The same screening seen again (a re-run): nothing more.
    await screeningFound(d, order("A00000000000001", "high"), { askedBy: "olga" });
    expect(d.posted).toHaveLength(1);
    // A low one opens nothing.
    expect(await screeningFound(d, order("A00000000000009", "low"), { askedBy: "olga" })).toEqual([]);
  });

  it("two findings at once from two connections: one case, both in its timeline", async () => {
    const d = deps();
    const peer = stubDeps({ store: get().peer, clock: get().clock, settings: SETTINGS });
    const [a, b] = await Promise.all([
      noteFinding(d, { address: ADDRESS, key: "k1", what: "one" }),
      noteFinding(peer, { address: ADDRESS, key: "k2", what: "two" }),
    ]);
    expect(a?.id).toBe(b?.id);
    const record = await readCase(d.store, a!.id);
    expect(record?.timeline.map((e) => e.note)).toEqual(expect.arrayContaining(["one", "two"]));
    expect([...d.posted, ...peer.posted]).toHaveLength(1);
  });

  it("Take, a clear without a reason refused, with one closed; a viewer refused; a new finding reopens", async () => {
    const d = deps();
    const opened = await noteFinding(d, { address: ADDRESS, key: "k1", what: "screening high" });
    const id = opened!.id;
    const taken = await applyCaseOp(d, { id, op: "take", actor: operator, conversation: ALERTS });
    expect(taken.ok && taken.record.state).toBe("taken");
    const viewerReply = await caseCommand.run(command(d, viewer, `case clear ${id} fine`));
    expect(replyText(viewerReply)).toMatch(/operator/);
    const bare = await caseCommand.run(command(d, operator, `case clear ${id}`));
    expect(replyText(bare)).toMatch(/reason is needed/);
    expect((await readCase(d.store, id))?.state).toBe("taken");
    await caseCommand.run(command(d, operator, `case clear ${id} customer documents checked`));
    const cleared = await readCase(d.store, id);
    expect(cleared?.state).toBe("cleared");
    expect(cleared?.timeline.at(-1)?.note).toBe("customer documents checked");
    const again = await noteFinding(d, { address: ADDRESS, key: "k2", what: "deny list: aml_risk" });
    expect(again).toEqual({ id, event: "reopened" });
    expect((await readCase(d.store, id))?.state).toBe("open");
    const timeline = replyText(await caseCommand.run(command(d, viewer, `case ${id}`)));
    expect(timeline).toMatch(/opened[\s\S]*taken[\s\S]*cleared[\s\S]*reopened/);
  });

  it("the SLA job escalates an untaken case once, mentioning on-call; a taken case never", async () => {
    const d = deps();
    const opened = await noteFinding(d, { address: ADDRESS, key: "k1", what: "high" });
    const sla = caseSlaHandler({ deps: d, actions: [] });
    get().clock.advance(61 * 60_000);
    await sla({ kind: "case-sla", caseId: opened!.id, opening: 1 });
    await sla({ kind: "case-sla", caseId: opened!.id, opening: 1 });
    const escalations = d.posted.filter((p) => /Escalated/.test(p.reply.summary));
    expect(escalations).toHaveLength(1);
    expect(JSON.stringify(escalations[0]!.reply.blocks)).toContain("U0ONCALL");
  });

  it("a certificate's PDF names the address, level and code; verify: genuine, altered, unknown", async () => {
    const d = deps();
    const none = await certificateCommand.run(command(d, viewer, `certificate ${ADDRESS}`));
    expect(replyText(none)).toMatch(/never screened/);
    expect(replyButtons(none).map((b) => b.label)).toEqual(["Screen (billed)"]);
    await screeningFound(d, order("A00000000000001", "high"), { askedBy: "olga", conversation: channel });
    const reply = await certificateCommand.run(command(d, viewer, `certificate ${ADDRESS}`));
    const fileBlock = reply.blocks.find((b) => b.type === "file");
    expect(fileBlock?.type === "file" && fileBlock.file.contentType).toBe("application/pdf");
    const bytes = fileBlock?.type === "file" ? (fileBlock.file.bytes ?? new Uint8Array()) : new Uint8Array();
    const pdf = await getDocument({ data: new Uint8Array(bytes) }).promise;
    let content = "";
    for (let p = 1; p <= pdf.numPages; p += 1)
      content += (await (await pdf.getPage(p)).getTextContent()).items
        .map((i) => ("str" in i ? i.str : ""))
        .join(" ");
    const code = /OPS-CERT-[A-Z2-7]{10}-[A-Z2-7]{26}/.exec(replyText(reply))?.[0] ?? "";
    expect(content).toContain(ADDRESS);
    expect(content).toContain("Risk level (risk.level): high");
    expect(content).toContain(code);
    expect(code).not.toBe("");
    const genuine = await verifyCommand.run(command(d, viewer, `verify ${code}`));
    expect(replyText(genuine)).toMatch(new RegExp(`^Genuine: certifies ${ADDRESS} .*risk level high`));
    const altered = `${code.slice(0, -1)}${code.endsWith("A") ? "B" : "A"}`;
    expect(replyText(await verifyCommand.run(command(d, viewer, `verify ${altered}`)))).toMatch(
      /^Not genuine/,
    );
    const unknown = `OPS-CERT-AAAAAAAAAA-${"A".repeat(26)}`;
    expect(replyText(await verifyCommand.run(command(d, viewer, `verify ${unknown}`)))).toMatch(
      /^Not genuine: no certificate/,
    );
  });

  it("with PUBLIC_URL the PDF prints the /verify link of its code; the PDF itself matches the code", async () => {
    const d = stubDeps({
      store: get().store,
      clock: get().clock,
      settings: { ...SETTINGS, cases: { ...SETTINGS.cases, verifyUrl: "https://bot.example/ops/verify" } },
    });
    await screeningFound(d, order("A00000000000002", "severe"), { askedBy: "olga", conversation: channel });
    const reply = await certificateCommand.run(command(d, viewer, `certificate ${ADDRESS}`));
    const code = /OPS-CERT-[A-Z2-7]{10}-[A-Z2-7]{26}/.exec(replyText(reply))?.[0] ?? "";
    const fileBlock = reply.blocks.find((b) => b.type === "file");
    const bytes = fileBlock?.type === "file" ? (fileBlock.file.bytes ?? new Uint8Array()) : new Uint8Array();
    const pdf = await getDocument({ data: new Uint8Array(bytes) }).promise;
    const last = await pdf.getPage(pdf.numPages);
    const content = (await last.getTextContent()).items.map((i) => ("str" in i ? i.str : "")).join("");
    expect(content).toContain(`https://bot.example/ops/verify?code=${code}`);
    // The QR code is drawn as filled squares beside the link: far more fill operations than text needs.
    const ops = await last.getOperatorList();
    expect(ops.fnArray.filter((fn) => fn === OPS.fill || fn === OPS.eoFill).length).toBeGreaterThan(100);
    const verdict = await verifyAnyCode(d, code);
    if (!verdict.genuine) throw new Error("not genuine");
    expect(await checkFileOfCode(d, verdict, Readable.from([Buffer.from(bytes)]))).toMatchObject({
      matches: true,
    });
  });
});
