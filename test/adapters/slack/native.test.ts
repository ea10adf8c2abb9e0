import { describe, expect, it } from "vitest";
import { tronAddress } from "../../../src/sandbox/families/energy/common.js";
import { FAKE_SLACK_BOT_USER } from "../../fakes/slack-api.js";
import {
  buttonLabels,
  CHANNEL,
  messageText,
  OPERATOR,
  startSlackHarness,
  VIEWER,
  waitFor,
} from "./harness.js";
import { appMentionBody, messageEventBody, viewSubmissionBody } from "./native-payloads.js";

/**
 * Feeling native in a busy channel, through real Bolt against the fake Slack API: help that
 * teaches every role, forms for missing arguments (modal open and submit), and paste-to-check.
 */
const ADDRESS = tronAddress("native-slack");

describe("help that teaches every role", () => {
  it("a viewer's /ops help lists every verb, marking what needs operator or admin and whom to ask", async () => {
    const h = await startSlackHarness();
    await h.command("/ops help", { user: VIEWER });
    await h.settle();
    const [answer] = h.fake.channelMessages(CHANNEL);
    const shown = messageText(answer);
    for (const verb of [
      "help",
      "screen",
      "compliance",
      "energy",
      "host",
      "prices",
      "balance",
      "statement",
      "audit",
      "setup",
    ]) {
      expect(shown).toContain(`/${verb}`);
    }
    expect(shown).toMatch(/`\/energy [^\n]*needs operator/);
    expect(shown).toMatch(/`\/setup [^\n]*needs admin/);
    expect(shown).toContain("ask an admin to add you to");
    expect(shown).not.toMatch(/\/prices [^\n]*needs/);
    expect(shown).toContain(`slack:${VIEWER.id}`);
  });
});

describe("forms for missing arguments", () => {
  it("/energy alone opens a modal with the command's trigger_id; nothing is posted", async () => {
    const h = await startSlackHarness();
    const { request } = await h.command("/energy");
    await h.settle();
    const trigger = new URLSearchParams(request.raw).get("trigger_id");
    const [opened] = h.fake.views();
    expect(opened?.triggerId).toBe(trigger);
    expect(opened?.view).toMatchObject({ type: "modal", callback_id: "opsbot_form" });
    const fields = (opened!.view.blocks as { block_id: string }[]).map((b) => b.block_id);
    expect(fields).toEqual(["address", "amount"]);
    expect(JSON.parse(String(opened?.view.private_metadata))).toEqual({ verb: "energy", channel: CHANNEL });
    expect(h.fake.allMessages()).toEqual([]);
  });

  it("a bad value is refused in the form with the text grammar's one line; nothing is asked or posted", async () => {
    const h = await startSlackHarness();
    await h.command(`/energy ${ADDRESS} 12`);
    await h.settle();
    const typedError = messageText(h.fake.ephemerals(OPERATOR.id)[0]);
    expect(typedError).not.toBe("");

    await h.command("/energy");
    await h.settle();
    const [opened] = h.fake.views();
    const response = await h.post(
      viewSubmissionBody(opened!, { address: ADDRESS, amount: "12" }, { user: OPERATOR }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ response_action: "errors", errors: { amount: typedError } });

    const badAddress = await h.post(
      viewSubmissionBody(opened!, { address: "TXYZnotanaddress", amount: "65k" }, { user: OPERATOR }),
    );
    const refused = (await badAddress.json()) as { errors: Record<string, string> };
    expect(Object.keys(refused.errors)).toEqual(["address"]);
    await h.settle();
    expect(h.fake.channelMessages(CHANNEL)).toEqual([]);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
  });

  it("a good submission runs the same quote → Confirm in the channel the command came from", async () => {
    const h = await startSlackHarness();
    await h.command("/energy", { channel: "C0FORMS" });
    await h.settle();
    const [opened] = h.fake.views();
    const response = await h.post(
      viewSubmissionBody(opened!, { address: ADDRESS, amount: " 65k " }, { user: OPERATOR }),
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("");
    const quote = await waitFor(() => h.fake.channelMessages("C0FORMS")[0], "the quote");
    expect(buttonLabels(quote)).toEqual(expect.arrayContaining([expect.stringMatching(/Confirm/)]));
    expect(messageText(quote)).toContain(ADDRESS);
    await h.click(quote, /Confirm/);
    await h.settle();
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
  });

  it("/statement alone opens its form; a date in the future is refused under its field", async () => {
    const h = await startSlackHarness();
    await h.command("/ops statement");
    await h.settle();
    const [opened] = h.fake.views();
    expect((opened!.view.blocks as { block_id: string }[]).map((b) => b.block_id)).toEqual([
      "address",
      "from",
      "to",
      "format",
      "token",
    ]);
    const response = await h.post(
      viewSubmissionBody(
        opened!,
        { address: ADDRESS, from: "2025-01-01", to: "2999-01-31" },
        { user: OPERATOR },
      ),
    );
    const body = (await response.json()) as { response_action: string; errors: Record<string, string> };
    expect(body.response_action).toBe("errors");
    expect(Object.keys(body.errors)).toEqual(["to"]);
    expect(h.sandbox.calls("reports.statement")).toEqual([]);
  });

  it("a viewer's /energy gets the refusal line, not a form", async () => {
    const h = await startSlackHarness();
    await h.command("/energy", { user: VIEWER });
    await h.settle();
    expect(h.fake.views()).toEqual([]);
    expect(messageText(h.fake.ephemerals(VIEWER.id)[0])).toContain("energy needs the operator role");
  });
});

describe("paste-to-check in a channel", () => {
  it("a message that is just an address gets the verdict with Screen and Energy buttons; other messages nothing", async () => {
    const h = await startSlackHarness();
    for (const text of ["hello team", `please check ${ADDRESS}`, "TXYZ", `${ADDRESS} ${ADDRESS}`]) {
      await h.post(messageEventBody(text, { user: VIEWER }));
    }
    await h.post(messageEventBody(ADDRESS, { user: VIEWER, subtype: "message_changed" }));
    await h.post(messageEventBody(ADDRESS, { user: VIEWER, botId: "B0FAKEBOT" }));
    await h.post(messageEventBody(ADDRESS, { user: VIEWER, channelType: "im", channel: "D0DM" }));
    await h.settle();
    expect(h.fake.allMessages()).toEqual([]);
    expect(h.sandbox.calls("compliance.lookup")).toEqual([]);

    await h.post(messageEventBody(ADDRESS, { user: VIEWER }));
    await h.settle();
    const [verdict] = h.fake.channelMessages(CHANNEL);
    expect(messageText(verdict)).toContain(`${ADDRESS}`);
    expect(messageText(verdict)).toMatch(/clean|deny list/i);
    expect(buttonLabels(verdict)).toEqual(["Screen (billed)", "Energy 65k quote", "Watch"]);
    expect(h.sandbox.calls("compliance.lookup")).toHaveLength(1);
  });

  it("Watch runs the same as `watch add <address>` here; a viewer's click watches nothing", async () => {
    const h = await startSlackHarness();
    await h.post(messageEventBody(ADDRESS, { user: VIEWER }));
    await h.settle();
    const [verdict] = h.fake.channelMessages(CHANNEL);
    await h.click(verdict!, "Watch", { user: VIEWER });
    await h.settle();
    expect(messageText(h.fake.ephemerals(VIEWER.id)[0])).toContain("needs the operator role");
    await h.click(verdict!, "Watch", { user: OPERATOR });
    await h.settle();
    expect(messageText(h.fake.channelMessages(CHANNEL)[0])).toContain(`Watching ${ADDRESS}`);
    await h.command("/watch list", { user: VIEWER });
    await h.settle();
    const listed = h.fake
      .allMessages()
      .map(messageText)
      .find((t) => t.includes("Watched here"));
    expect(listed).toContain("Watched here: 1 address");
    expect(listed).toContain(ADDRESS);
  });

  it("a mention of the bot with an address is answered once (as app_mention, not twice)", async () => {
    const h = await startSlackHarness();
    const text = `<@${FAKE_SLACK_BOT_USER}> ${ADDRESS}`;
    // Slack sends a mention twice: as a channel message and as app_mention.
    await h.post(messageEventBody(text, { user: VIEWER, threadTs: "1700000000.000500" }));
    await h.post(appMentionBody(text, { user: VIEWER }));
    await h.settle();
    expect(h.fake.channelMessages(CHANNEL)).toHaveLength(1);
    expect(h.sandbox.calls("compliance.lookup")).toHaveLength(1);
  });

  it("Energy 65k quote runs the same as `energy <address> 65k`; Screen is for operators only", async () => {
    const h = await startSlackHarness();
    await h.post(messageEventBody(ADDRESS, { user: VIEWER }));
    await h.settle();
    const [verdict] = h.fake.channelMessages(CHANNEL);
    await h.click(verdict!, "Screen (billed)", { user: VIEWER });
    await h.settle();
    expect(messageText(h.fake.ephemerals(VIEWER.id)[0])).toContain("needs the operator role");
    expect(h.sandbox.calls("screening.create")).toEqual([]);

    await h.click(verdict!, "Energy 65k quote", { user: OPERATOR });
    await h.settle();
    const quote = h.fake.channelMessages(CHANNEL)[0];
    expect(messageText(quote)).toMatch(/65,000/);
    expect(buttonLabels(quote)).toEqual(expect.arrayContaining([expect.stringMatching(/Confirm/)]));
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
  });

  it("a pasted list is flood-limited: five verdicts, one line saying so, then silence", async () => {
    const h = await startSlackHarness();
    for (let i = 0; i < 8; i += 1)
      await h.post(messageEventBody(tronAddress(`flood-${i}`), { user: VIEWER }));
    await h.settle();
    expect(h.fake.channelMessages(CHANNEL)).toHaveLength(5);
    const notices = h.fake.ephemerals(VIEWER.id).map(messageText);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/More than 5 pasted addresses/);
    expect(h.sandbox.calls("compliance.lookup")).toHaveLength(5);
    // Another channel has its own window.
    await h.post(messageEventBody(tronAddress("flood-other"), { user: VIEWER, channel: "C0OTHER" }));
    await h.settle();
    expect(h.fake.channelMessages("C0OTHER")).toHaveLength(1);
  });
});
