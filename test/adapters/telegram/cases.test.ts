import { getDocument } from "pdfjs-dist/legacy/build/pdf.mjs";
import { describe, expect, it } from "vitest";
import { DEMO_ADDRESSES } from "../../../src/sandbox/families/screening/demo-addresses.js";
import type { FakeMessage } from "../../fakes/telegram-api.js";
import { waitFor } from "../../support/bot-kit.js";
import {
  GROUP_CHAT,
  OPERATOR,
  PRIVATE_CHAT,
  replyUpdate,
  startTelegramHarness,
  type TelegramHarness,
  type TelegramUser,
  VIEWER,
} from "./harness.js";

/**
 * AML cases and certificates on Telegram: real grammY against the fake Bot API, the sandbox's
 * high-risk demo address over HTTP. The case goes to the alert group; Take edits it in place;
 * Clear… and Report… send a ForceReply prompt whose answer (the reason) closes the case;
 * `certificate` sends a PDF document whose code `verify` calls genuine.
 */
const ADDRESS = DEMO_ADDRESSES.highRisk;
const CODE = /OPS-CERT-[A-Z2-7]{10}-[A-Z2-7]{26}/;

const buttons = (m: FakeMessage | undefined): string[] =>
  m?.replyMarkup?.inline_keyboard.flat().map((b) => b.text) ?? [];

async function setup(): Promise<TelegramHarness> {
  return startTelegramHarness({
    settings: {
      cases: {
        levels: ["high", "severe"],
        slaMs: 60 * 60_000,
        certKeyHex: "cd".repeat(32),
        destinations: [{ platform: "telegram", id: String(GROUP_CHAT) }],
      },
    },
    recordPosted: true,
  });
}

async function openCase(h: TelegramHarness): Promise<{ id: string; message: FakeMessage }> {
  await h.say(`/screen ${ADDRESS}`);
  await h.settle();
  const message = await waitFor(() => h.fake.messages(GROUP_CHAT)[0], "the case");
  return { id: /\bC\d+\b/.exec(message.text)?.[0] ?? "", message: structuredClone(message) };
}

const current = (h: TelegramHarness, message: FakeMessage) =>
  h.fake.messages(GROUP_CHAT).find((m) => m.message_id === message.message_id);

/** The prompt the bot sent last in the group, answered by `from` with `text`. */
async function answerPrompt(h: TelegramHarness, text: string, from: TelegramUser = OPERATOR): Promise<void> {
  const prompt = h.fake.messages(GROUP_CHAT).findLast((m) => m.forceReply !== undefined);
  expect(prompt).toBeDefined();
  await h.postUpdate(replyUpdate(prompt!, text, from, h.fake.me));
  await h.settle();
}

describe("telegram: AML cases", () => {
  it("a high-risk screening posts the case in the alert group and names it in the chat it came from", async () => {
    const h = await setup();
    const { id, message } = await openCase(h);
    expect(id).toMatch(/^C\d+$/);
    expect(message.text).toContain(ADDRESS);
    expect(buttons(message)).toEqual(["Take", "Clear…", "Report…"]);
    expect(h.fake.messages(PRIVATE_CHAT).at(-1)?.text).toContain(`opened AML case ${id}`);
  });

  it("Take edits the case in place; a viewer's Take is refused with one line", async () => {
    const h = await setup();
    const { message } = await openCase(h);
    await h.click(message, "Take", VIEWER);
    await h.settle();
    const refusals = h.fake.calls("answerCallbackQuery").map((c) => String(c.params.text ?? ""));
    expect(refusals.filter((t) => t !== "")).toEqual([expect.stringMatching(/needs the operator role/)]);
    expect(current(h, message)?.text).toMatch(/open, nobody has taken it/);

    await h.click(message, "Take");
    await h.settle();
    expect(current(h, message)?.text).toMatch(/taken by @olga_ops/);
    expect(buttons(current(h, message))).toEqual(["Clear…", "Report…"]);
    expect(h.fake.messages(GROUP_CHAT)).toHaveLength(1);
  });

  it("Clear… sends a reply prompt; an empty answer closes nothing; the reason clears and edits the case", async () => {
    const h = await setup();
    const { message } = await openCase(h);
    await h.click(message, "Clear…");
    await h.settle();
    const prompt = h.fake.messages(GROUP_CHAT).at(-1);
    expect(prompt?.forceReply).toBeDefined();
    expect(prompt?.text).toMatch(/Reason for clearing case C\d+\?/);

    // Until the reason comes nothing is closed; someone else's answer is conversation, not the reason.
    expect(current(h, message)?.text).toMatch(/open, nobody has taken it/);
    await answerPrompt(h, "looks fine to me", VIEWER);
    expect(current(h, message)?.text).toMatch(/open, nobody has taken it/);
    expect(h.fake.messages(GROUP_CHAT)).toHaveLength(2);

    await answerPrompt(h, "customer documents checked");
    const cleared = await waitFor(() => {
      const m = current(h, message);
      return m && /cleared by @olga_ops/.test(m.text) && m;
    }, "the edited case");
    expect(cleared.text).toContain("customer documents checked");
    expect(buttons(cleared)).toEqual([]);
    expect(h.fake.messages(GROUP_CHAT).at(-1)?.text).toMatch(/^Case C\d+ cleared by @olga_ops: customer/);
  });

  it("a reason is kept as typed (quotes, apostrophes, lines); one too long is refused and asked again", async () => {
    const h = await setup();
    const { id, message } = await openCase(h);
    await h.click(message, "Report…");
    await h.settle();
    await answerPrompt(h, "x".repeat(501));
    const again = h.fake.messages(GROUP_CHAT).at(-1);
    expect(again?.text).toMatch(/at most 500 characters\. Nothing changed\. Reply to this message/);
    expect(again?.forceReply).toBeDefined();
    expect(current(h, message)?.text).toMatch(/open, nobody has taken it/);

    // The answer to the new prompt is the reason.
    const reason = `customer's "docs verified by KYC\nsaid "false positive"`;
    await answerPrompt(h, reason);
    const reported = await waitFor(() => {
      const m = current(h, message);
      return m && /reported by @olga_ops/.test(m.text) && m;
    }, "the reported case");
    expect(reported.text).toContain(`customer's "docs verified by KYC`);
    expect(h.fake.messages(GROUP_CHAT).at(-1)?.text).toBe(`Case ${id} reported by @olga_ops: ${reason}`);
  });

  it("Report… asks the same way; its reason reports the case", async () => {
    const h = await setup();
    const { message } = await openCase(h);
    await h.click(message, "Report…");
    await h.settle();
    await answerPrompt(h, "filed with the FIU");
    const reported = await waitFor(() => {
      const m = current(h, message);
      return m && /reported by @olga_ops/.test(m.text) && m;
    }, "the reported case");
    expect(reported.text).toContain("filed with the FIU");
  });
});

describe("telegram: certificates", () => {
  it("`certificate` sends a PDF naming the address, level and code; `verify` says genuine", async () => {
    const h = await setup();
    await openCase(h);
    await h.say(`/certificate ${ADDRESS}`, { chat: GROUP_CHAT, from: VIEWER });
    await h.settle();
    const sent = h.fake.messages(GROUP_CHAT).find((m) => m.document !== undefined);
    expect(sent?.document?.filename).toBe(`certificate-${ADDRESS}.pdf`);
    const code = CODE.exec(
      h.fake
        .messages(GROUP_CHAT)
        .map((m) => `${m.text} ${m.document?.caption ?? ""}`)
        .join("\n"),
    )?.[0];
    expect(code).toBeDefined();

    const pdf = await getDocument({ data: new Uint8Array(sent?.document?.bytes ?? []) }).promise;
    let content = "";
    for (let p = 1; p <= pdf.numPages; p += 1)
      content += (await (await pdf.getPage(p)).getTextContent()).items
        .map((i) => ("str" in i ? i.str : ""))
        .join(" ");
    expect(content).toContain(ADDRESS);
    expect(content).toMatch(/Risk level \(risk\.level\): (high|severe)/);
    expect(content).toContain(code);

    await h.say(`/verify ${code}`, { chat: GROUP_CHAT, from: VIEWER });
    await h.settle();
    expect(h.fake.messages(GROUP_CHAT).at(-1)?.text).toMatch(
      new RegExp(`^Genuine: certifies ${ADDRESS} .*risk level (high|severe)`),
    );
  });
});
