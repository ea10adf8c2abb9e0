import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { type ConsoleAdapter, createConsoleAdapter, PROMPT } from "../../../adapters/console/index.js";
import { CANCEL_KIND, cancelActionHandler, createActionGroup } from "../../../src/core/actions.js";
import { auditCommand } from "../../../src/core/audit/audit-command.js";
import type { ActionHandler, CommandDefinition } from "../../../src/core/command.js";
import { createCore } from "../../../src/core/core.js";
import { helpCommand } from "../../../src/core/help.js";
import type { Actor, ConversationRef } from "../../../src/core/invocation.js";
import { buttons, context, fields, file, header, publicReply, text } from "../../../src/core/reply.js";
import { stubDeps } from "../../core/support.js";

const me: Actor = { platform: "console", userId: "alice" };
const session: ConversationRef = { platform: "console", id: "local" };

/** `quote` posts Confirm/Cancel; `report` posts a file; Confirm says who pressed it. */
const quote: CommandDefinition = {
  verb: "quote",
  role: "viewer",
  summary: "a quote with buttons",
  usage: "quote",
  example: "quote",
  async run(ctx) {
    const { tokens } = await createActionGroup(
      ctx.deps.store,
      { conversation: ctx.invocation.conversation, createdBy: ctx.invocation.actor, now: ctx.deps.now },
      [
        { kind: "test.confirm", payload: {}, role: "viewer" },
        { kind: CANCEL_KIND, payload: {}, role: "viewer" },
      ],
    );
    return publicReply("Energy quote", [
      header("Energy quote"),
      fields(["Address", "TAddr"], ["Price", "3.25 TRX"]),
      context("Buttons last 5 minutes."),
      buttons({ label: "Confirm", token: tokens[0] ?? "" }, { label: "Cancel", token: tokens[1] ?? "" }),
    ]);
  },
};
const report: CommandDefinition = {
  verb: "report",
  role: "viewer",
  summary: "a file",
  usage: "report",
  example: "report",
  async run() {
    const bytes = new TextEncoder().encode("date,amount\n");
    return publicReply("statement", [file({ filename: "../statement.csv", contentType: "text/csv", bytes })]);
  },
};
const confirm: ActionHandler = {
  kind: "test.confirm",
  role: "viewer",
  async run(ctx) {
    return publicReply("confirmed", [text(`Confirmed by ${ctx.invocation.actor.userId}.`)]);
  },
};

let adapter: ConsoleAdapter | undefined;
afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
});

function start(options: { isTTY?: boolean; fileDir?: string } = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = "";
  output.on("data", (chunk: Buffer) => {
    printed += chunk.toString("utf8");
  });
  const core = createCore(stubDeps(), {
    commands: [helpCommand, auditCommand, quote, report],
    actions: [cancelActionHandler, confirm],
  });
  adapter = createConsoleAdapter({ input, output, core, actor: me, conversation: session, ...options });
  const current = adapter;
  return {
    adapter: current,
    /** Types the lines, ends the input and returns everything printed once they are all answered. */
    async type(...lines: string[]): Promise<string> {
      input.end(lines.map((l) => `${l}\n`).join(""));
      await current.finished;
      return printed;
    },
    printed: () => printed,
  };
}

describe("console adapter", () => {
  it("answers help with plain text from a pipe (no prompt, no styling)", async () => {
    const out = await start().type("help");
    expect(out).toBe(
      [
        "What I can do",
        "=============",
        "help [command] — what I can do, with an example for each command. Example: help energy",
        "audit [count] [page] | audit export [<from> [<to>]] — the spend ledger, newest first; export: a CSV anyone can verify. Example: audit export 2026-11-01 (needs admin)",
        "quote — a quote with buttons. Example: quote",
        "report — a file. Example: report",
        "You are a viewer (console:alice). For a command marked “needs …”, ask an admin to add you to admin: OPS_ADMINS. Type help <command> for details.",
        "",
        "",
      ].join("\n"),
    );
  });

  it("numbers buttons and presses one by its number", async () => {
    const out = await start().type("quote", "1", "2");
    expect(out).toBe(
      [
        "Energy quote",
        "============",
        "Address: TAddr",
        "Price: 3.25 TRX",
        "Buttons last 5 minutes.",
        "[1] Confirm  [2] Cancel",
        "",
        "Confirmed by alice.",
        "",
        "Already handled.",
        "",
        "",
      ].join("\n"),
    );
  });

  it("says which choices exist for an unknown number", async () => {
    const out = await start().type("7", "quote", "3");
    const printed = out.split("\n");
    expect(printed[0]).toBe("There is no choice 7: no message with buttons yet.");
    expect(printed).toContain("There is no choice 3; the choices are [1] Confirm, [2] Cancel.");
  });

  it("presses the buttons of the last message that had buttons", async () => {
    const t = start();
    const out = await t.type("quote", "quote", "help", "2", "1");
    // The second quote's Cancel is pressed, which kills its Confirm; the first quote stays usable.
    expect(out).toContain("Cancelled by console:alice.\n\nAlready handled.\n\n");
  });

  it("prints notifications with a mark, and their buttons become the current choices", async () => {
    const t = start();
    const { tokens } = await createActionGroup(stubDeps().store, { conversation: session, createdBy: me }, [
      { kind: "x", payload: {}, role: "viewer" },
    ]);
    const sent = await t.adapter.send(
      session,
      publicReply("Order delivered", [
        header("Order delivered"),
        text("65,000 energy"),
        buttons({ label: "Details", token: tokens[0] ?? "" }),
      ]),
    );
    expect(sent.messageId).toMatch(/^console-\d+$/);
    expect(t.printed()).toBe("» Order delivered\n» ===============\n» 65,000 energy\n» [1] Details\n\n");
    const out = await t.type("2");
    expect(out).toContain("There is no choice 2; the choices are [1] Details.");
  });

  it("shows a file block and writes the file for the demo", async () => {
    const dir = mkdtempSync(join(tmpdir(), "opsbot-console-test-"));
    const out = await start({ fileDir: dir }).type("report");
    const saved = join(dir, "1-statement.csv");
    expect(out).toBe(`[file] ../statement.csv (12 B)\nsaved to ${saved}\n\n`);
    expect(readFileSync(saved, "utf8")).toBe("date,amount\n");
  });

  it("prompts and dims context only on a TTY", async () => {
    const out = await start({ isTTY: true }).type("quote");
    expect(out.startsWith(PROMPT)).toBe(true);
    expect(out).toContain("\u001b[2mButtons last 5 minutes.\u001b[0m");
    expect(out.endsWith(`\n\n${PROMPT}`)).toBe(true);
  });

  it("ignores blank lines and never prints a terminal escape it was given", async () => {
    const out = await start().type("", "   ", "nope\u001b[2J");
    expect(out).toMatch(
      /^unknown command "nope.*" \(it contains an invisible character \(U\+001B\)\): type help to see what the bot can do\n\n$/,
    );
    expect(out).not.toContain("\u001b");
  });

  it("strips escapes from replies too (service text is untrusted)", async () => {
    const t = start();
    await t.adapter.send(session, publicReply("x", [text("evil\u001b]0;title\u0007 name \u202eoverride")]));
    expect(t.printed()).toBe("» evil]0;title name override\n\n");
  });
});

describe("console adapter when the reader goes away", () => {
  it("stops reading at a closed pipe (`… | head`) instead of crashing, and answers no more lines", async () => {
    const input = new PassThrough();
    let writes = 0;
    // A pipe whose reader left after the first answer: every later write fails with EPIPE.
    const output = new Writable({
      write(_chunk, _encoding, done) {
        writes += 1;
        done(writes > 1 ? Object.assign(new Error("write EPIPE"), { code: "EPIPE" }) : undefined);
      },
    });
    const handled: string[] = [];
    const core = createCore(stubDeps(), { commands: [helpCommand, quote], actions: [] });
    adapter = createConsoleAdapter({
      input,
      output,
      core: {
        handle(invocation) {
          handled.push(invocation.kind);
          return core.handle(invocation);
        },
      },
      actor: me,
      conversation: session,
    });
    input.write("help\nhelp\n");
    await adapter.finished;
    input.end("quote\nquote\n");
    expect(writes).toBe(2);
    expect(handled).toEqual(["command", "command"]);
  });
});
