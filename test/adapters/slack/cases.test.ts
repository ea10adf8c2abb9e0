import { getDocument } from "pdfjs-dist/legacy/build/pdf.mjs";
import { describe, expect, it } from "vitest";
import { DEMO_ADDRESSES } from "../../../src/sandbox/families/screening/demo-addresses.js";
import type { FakeSlackMessage } from "../../fakes/slack-api.js";
import {
  buttonLabels,
  CHANNEL,
  messageText,
  OPERATOR,
  type SlackHarness,
  startSlackHarness,
  VIEWER,
  waitFor,
} from "./harness.js";
import { viewSubmissionBody } from "./native-payloads.js";

/**
 * AML cases and certificates on Slack: real Bolt against the fake Web API, the sandbox's high-risk
 * demo address over HTTP. A screening at a case level posts the case in the alert channel; Take
 * edits it in place; Clear… and Report… open a modal (views.open) whose reason closes the case;
 * `certificate` uploads a PDF whose code `verify` calls genuine.
 */
const ALERTS = "C0ALERTS";
const ADDRESS = DEMO_ADDRESSES.highRisk;
const CODE = /OPS-CERT-[A-Z2-7]{10}-[A-Z2-7]{26}/;

async function setup(): Promise<SlackHarness> {
  return startSlackHarness({
    settings: {
      cases: {
        levels: ["high", "severe"],
        slaMs: 60 * 60_000,
        certKeyHex: "ab".repeat(32),
        destinations: [{ platform: "slack", id: ALERTS }],
      },
    },
    recordPosted: true,
  });
}

/** `/screen` of the high-risk address: the case message in the alert channel. */
async function openCase(h: SlackHarness): Promise<{ id: string; message: FakeSlackMessage }> {
  await h.command(`/screen ${ADDRESS}`);
  await h.settle();
  const message = structuredClone(await waitFor(() => h.fake.channelMessages(ALERTS)[0], "the case"));
  const id = /\bC\d+\b/.exec(messageText(message))?.[0] ?? "";
  return { id, message };
}

const current = (h: SlackHarness, message: FakeSlackMessage) =>
  structuredClone(h.fake.channelMessages(ALERTS).find((m) => m.ts === message.ts));

describe("slack: AML cases", () => {
  it("a high-risk screening opens a case in the alert channel and names it where it was found", async () => {
    const h = await setup();
    const { id, message } = await openCase(h);
    expect(id).toMatch(/^C\d+$/);
    expect(messageText(message)).toContain(ADDRESS);
    expect(buttonLabels(message)).toEqual(["Take", "Clear…", "Report…"]);
    expect(h.fake.channelMessages(ALERTS)).toHaveLength(1);
    const answer = messageText(h.fake.channelMessages(CHANNEL).at(-1));
    expect(answer).toContain(`opened AML case \`${id}\``);
  });

  it("Take edits the case in place; a viewer's Take is refused with one line and changes nothing", async () => {
    const h = await setup();
    const { message } = await openCase(h);
    await h.click(message, "Take", { user: VIEWER });
    await h.settle();
    expect(h.fake.ephemerals(VIEWER.id).map(messageText)).toEqual([
      expect.stringMatching(/needs the operator role; you are a viewer/),
    ]);
    expect(messageText(current(h, message))).toMatch(/open, nobody has taken it/);

    await h.click(message, "Take", { user: OPERATOR });
    await h.settle();
    const taken = current(h, message);
    expect(messageText(taken)).toMatch(/taken by olga/);
    expect(buttonLabels(taken)).toEqual(["Clear…", "Report…"]);
    expect(h.fake.channelMessages(ALERTS)).toHaveLength(1);
  });

  it("Clear… opens a modal; no reason closes nothing; a reason clears the case and edits its message", async () => {
    const h = await setup();
    const { id, message } = await openCase(h);
    const posted = h.fake.allMessages().length;
    await h.click(message, "Clear…", { user: OPERATOR });
    await h.settle();
    const [opened] = h.fake.views();
    expect(opened?.view).toMatchObject({ type: "modal", callback_id: "opsbot_form" });
    expect(h.fake.allMessages()).toHaveLength(posted);

    const empty = await h.post(viewSubmissionBody(opened!, { reason: "  " }, { user: OPERATOR }));
    expect(await empty.json()).toEqual({
      response_action: "errors",
      errors: { reason: "A reason is needed; nothing was closed." },
    });
    await h.settle();
    expect(messageText(current(h, message))).toMatch(/open, nobody has taken it/);

    const done = await h.post(
      viewSubmissionBody(opened!, { reason: "customer documents checked" }, { user: OPERATOR }),
    );
    expect(done.status).toBe(200);
    await h.settle();
    const cleared = await waitFor(() => {
      const m = current(h, message);
      return /cleared by olga/.test(messageText(m)) && m;
    }, "the edited case");
    expect(messageText(cleared)).toContain("customer documents checked");
    expect(buttonLabels(cleared)).toEqual([]);
    // The case is edited, not posted again: beside it, one line says who closed it and why.
    const [, line] = h.fake.channelMessages(ALERTS);
    expect(h.fake.channelMessages(ALERTS)).toHaveLength(2);
    expect(messageText(line)).toMatch(/Case C\d+ cleared by olga: customer documents checked$/);
    await h.command(`/ops case ${id}`);
    await h.settle();
    expect(messageText(h.fake.channelMessages(CHANNEL).at(-1))).toMatch(/cleared by olga/);
  });

  it("Report… opens the same form; its reason reports the case", async () => {
    const h = await setup();
    const { message } = await openCase(h);
    await h.click(message, "Report…", { user: OPERATOR });
    await h.settle();
    const [opened] = h.fake.views();
    expect(JSON.parse(String(opened?.view.private_metadata))).toMatchObject({ lead: expect.any(String) });
    await h.post(viewSubmissionBody(opened!, { reason: "filed with the FIU" }, { user: OPERATOR }));
    await h.settle();
    const reported = await waitFor(() => {
      const m = current(h, message);
      return /reported by olga/.test(messageText(m)) && m;
    }, "the reported case");
    expect(messageText(reported)).toContain("filed with the FIU");
  });

  it("the reason form names the case and keeps the reason as typed; a long one is refused in the open form", async () => {
    const h = await setup();
    const { id, message } = await openCase(h);
    await h.click(message, "Report…", { user: OPERATOR });
    await h.settle();
    const [opened] = h.fake.views();
    expect(opened?.view).toMatchObject({ title: { text: `Report case ${id}` } });
    expect(JSON.stringify(opened?.view.blocks)).toContain('"multiline":true');

    const tooLong = await h.post(
      viewSubmissionBody(opened!, { reason: "x".repeat(501) }, { user: OPERATOR }),
    );
    expect(await tooLong.json()).toMatchObject({
      response_action: "errors",
      errors: { reason: expect.stringMatching(/too long .*at most 500/) },
    });

    const reason = `customer's "docs verified by KYC\nsaid "false positive"`;
    const done = await h.post(viewSubmissionBody(opened!, { reason: `  ${reason}\n` }, { user: OPERATOR }));
    expect(done.status).toBe(200);
    await h.settle();
    const reported = await waitFor(() => {
      const m = current(h, message);
      return /reported by olga/.test(messageText(m)) && m;
    }, "the reported case");
    expect(messageText(reported)).toContain("customer's \"docs verified by KYC");
    const [, line] = h.fake.channelMessages(ALERTS);
    expect(messageText(line)).toContain(`reported by olga: ${reason}`);
    expect(h.fake.ephemerals(OPERATOR.id).map(messageText)).toEqual([]);
  });

  it("a viewer's Clear… opens no form", async () => {
    const h = await setup();
    const { message } = await openCase(h);
    await h.click(message, "Clear…", { user: VIEWER });
    await h.settle();
    expect(h.fake.views()).toEqual([]);
    expect(h.fake.ephemerals(VIEWER.id).map(messageText)).toEqual([
      expect.stringMatching(/needs the operator role/),
    ]);
  });
});

describe("slack: certificates", () => {
  it("`certificate` uploads a PDF naming the address, level and code; `verify` of the code says genuine", async () => {
    const h = await setup();
    await openCase(h);
    await h.command(`/ops certificate ${ADDRESS}`, { user: VIEWER });
    await h.settle();
    const [file] = h.fake.files();
    expect(file?.filename).toBe(`certificate-${ADDRESS}.pdf`);
    const post = h.fake.channelMessages(CHANNEL).find((m) => m.via === "files.completeUploadExternal");
    const code = CODE.exec(messageText(post))?.[0] ?? CODE.exec(JSON.stringify(h.fake.allMessages()))?.[0];
    expect(code).toBeDefined();

    const pdf = await getDocument({ data: new Uint8Array(file?.bytes ?? []) }).promise;
    let content = "";
    for (let p = 1; p <= pdf.numPages; p += 1)
      content += (await (await pdf.getPage(p)).getTextContent()).items
        .map((i) => ("str" in i ? i.str : ""))
        .join(" ");
    expect(content).toContain(ADDRESS);
    expect(content).toMatch(/Risk level \(risk\.level\): (high|severe)/);
    expect(content).toContain(code);

    await h.command(`/ops verify ${code}`, { user: VIEWER });
    await h.settle();
    expect(messageText(h.fake.channelMessages(CHANNEL).at(-1))).toMatch(
      new RegExp(`\nGenuine: certifies ${ADDRESS} .*risk level (high|severe)`),
    );
  });

  it("an address never screened gets a line, not a PDF", async () => {
    const h = await setup();
    await h.command(`/ops certificate ${DEMO_ADDRESSES.lowRisk}`, { user: VIEWER });
    await h.settle();
    expect(h.fake.files()).toEqual([]);
    expect(messageText(h.fake.channelMessages(CHANNEL).at(-1))).toMatch(/never screened/);
  });
});
