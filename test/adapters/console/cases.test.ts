import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { getDocument } from "pdfjs-dist/legacy/build/pdf.mjs";
import { afterEach, describe, expect, it } from "vitest";
import { createConsoleAdapter } from "../../../adapters/console/index.js";
import type { Actor, ConversationRef } from "../../../src/core/invocation.js";
import { DEMO_ADDRESSES } from "../../../src/sandbox/families/screening/demo-addresses.js";
import { type BotKit, startBotKit, waitFor } from "../../support/bot-kit.js";

/**
 * AML cases and certificates on the console: the console adapter on a pipe in front of the real
 * core, client and sandbox, the console itself the alert destination (as the demo runs it). The
 * case arrives as a notification with numbered choices; Clear… prompts for the reason on the next
 * line; `certificate` saves the PDF and prints its path.
 */
const me: Actor = { platform: "console", userId: "alice", displayName: "alice" };
const session: ConversationRef = { platform: "console", id: "local" };
const ADDRESS = DEMO_ADDRESSES.highRisk;

const kits: BotKit[] = [];
const consoles: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(consoles.splice(0).map((c) => c.close()));
  await Promise.all(kits.splice(0).map((k) => k.close()));
});

/** A console typed into line by line: each line is answered (and its notifications printed) before the next. */
async function consoleBot(role: "operator" | "viewer" = "operator") {
  const kit = await startBotKit({
    settings: {
      hostCallbackToken: "console-test-callback-token",
      explorerTxUrl: "https://tronscan.org/#/transaction/",
      admins: [],
      operators: role === "operator" ? ["console:alice"] : ["console:bob"],
      cases: {
        levels: ["high", "severe"],
        slaMs: 60 * 60_000,
        certKeyHex: "ef".repeat(32),
        destinations: [session],
      },
    },
    recordPosted: true,
  });
  kits.push(kit);
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = "";
  output.on("data", (chunk: Buffer) => {
    printed += chunk.toString("utf8");
  });
  const fileDir = mkdtempSync(join(tmpdir(), "opsbot-console-cases-"));
  const adapter = createConsoleAdapter({
    input,
    output,
    core: kit.core,
    actor: me,
    conversation: session,
    fileDir,
  });
  await kit.startWorkers(new Map([["console", adapter]]));
  await adapter.start();
  /** Types `line` and returns what was printed after it, once it and its notifications are done. */
  async function type(line: string, until?: RegExp): Promise<string> {
    const from = printed.length;
    input.write(`${line}\n`);
    await waitFor(
      () => printed.length > from && (until === undefined || until.test(printed.slice(from))),
      line,
    );
    await kit.settle();
    return printed.slice(from);
  }
  consoles.push(adapter);
  return { kit, type };
}

describe("console: AML cases", () => {
  it("screen → the case with numbered choices; Take; Clear… asks; an empty line closes nothing; a reason clears it", async () => {
    const { type } = await consoleBot();
    const screened = await type(`screen ${ADDRESS}`, /» .*\[3\] Report…/s);
    expect(screened).toMatch(/This finding opened AML case C1/);
    expect(screened).toMatch(
      /» AML case C1[\s\S]*open, nobody has taken it[\s\S]*\[1\] Take[\s\S]*\[2\] Clear…/,
    );

    // The terminal cannot edit: the changed case is printed below, with its remaining choices.
    expect(await type("1")).toMatch(/AML case C1[\s\S]*taken by alice[\s\S]*\[1\] Clear…\s+\[2\] Report…/);

    const asked = await type("1");
    expect(asked).toMatch(
      /^Reason for clearing case C1\? .*\n\(Type it on the next line; cancel closes nothing; a line that starts with a command runs that command\.\)/,
    );
    // A blank line is refused and the prompt stays open; cancel closes it.
    expect(await type("   ")).toMatch(/^A reason is needed; type it on the next line/);
    expect(await type("cancel")).toMatch(/^Cancelled: nothing was closed\./);
    expect(await type("case C1")).toMatch(/taken by alice/);

    await type("1");
    const cleared = await type("customer documents checked", /Case C1 cleared/);
    expect(cleared).toMatch(/» AML case C1[\s\S]*cleared by alice[\s\S]*customer documents checked/);
    expect(cleared).toMatch(/Case C1 cleared by alice: customer documents checked/);
    expect(await type("cases all")).toMatch(/C1 · .* · cleared by alice/);
  });

  it("while a reason is awaited a command is a command; a reason is kept as typed, quotes and apostrophes too", async () => {
    const { type } = await consoleBot();
    await type(`screen ${ADDRESS}`, /» .*\[3\] Report…/s);
    await type("3", /Reason for reporting case C1\?/);
    const listed = await type("cases", /C1/);
    expect(listed).toMatch(/^Not taken as the reason \(it is a command\): nothing was closed\./);
    expect(listed).toMatch(/C1 · .*open/);
    expect(listed).not.toMatch(/reported by/);

    // `cases` printed the case's choices again: Report… is 3.
    await type("3", /Reason for reporting case C1\?/);
    const reason = `customer's "docs verified by KYC`;
    const reported = await type(reason, /Case C1 reported/);
    expect(reported).toContain(`Case C1 reported by alice: ${reason}`);
    expect(await type("case C1")).toContain(reason);
  });

  it("a viewer's Take is refused with one line", async () => {
    const { kit, type } = await consoleBot("viewer");
    // Bob, an operator, screens elsewhere; the case comes to this console (the alert destination).
    const bob: Actor = { platform: "console", userId: "bob" };
    await kit.core.handle({ kind: "command", actor: bob, conversation: session, text: `screen ${ADDRESS}` });
    await type("cases", /C1/);
    expect((await type("1")).trim()).toMatch(/^[^\n]*needs the operator role[^\n]*$/);
  });

  it("certificate saves a PDF naming the address, level and code; verify says genuine", async () => {
    const { type } = await consoleBot();
    await type(`screen ${ADDRESS}`, /\[3\] Report…/);
    const answer = await type(`certificate ${ADDRESS}`);
    const code = /OPS-CERT-[A-Z2-7]{10}-[A-Z2-7]{26}/.exec(answer)?.[0] ?? "";
    const path = /saved to (\S+\.pdf)/.exec(answer)?.[1] ?? "";
    expect(path).toMatch(new RegExp(`certificate-${ADDRESS}\\.pdf$`));
    const pdf = await getDocument({ data: new Uint8Array(readFileSync(path)) }).promise;
    let content = "";
    for (let p = 1; p <= pdf.numPages; p += 1)
      content += (await (await pdf.getPage(p)).getTextContent()).items
        .map((i) => ("str" in i ? i.str : ""))
        .join(" ");
    expect(content).toContain(ADDRESS);
    expect(content).toMatch(/Risk level \(risk\.level\): (high|severe)/);
    expect(content).toContain(code);
    expect(await type(`verify ${code}`)).toMatch(new RegExp(`Genuine: certifies ${ADDRESS} .*risk level`));
  });
});
