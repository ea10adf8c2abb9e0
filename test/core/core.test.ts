import { describe, expect, it } from "vitest";
import { CANCEL_KIND, cancelActionHandler, createActionGroup } from "../../src/core/actions.js";
import { auditCommand } from "../../src/core/audit/audit-command.js";
import { NotCarriedOut } from "../../src/core/buttons/not-carried-out.js";
import type { ActionHandler, CommandContext, CommandDefinition } from "../../src/core/command.js";
import { actionHandlers, commands } from "../../src/core/command-registry.js";
import { createCore } from "../../src/core/core.js";
import { UserError } from "../../src/core/errors.js";
import { helpCommand } from "../../src/core/help.js";
import type { Actor, ConversationRef, Invocation } from "../../src/core/invocation.js";
import { parseCommandLine } from "../../src/core/parse/tokenize.js";
import { buttons, publicReply, type Reply, spansToText, text } from "../../src/core/reply.js";
import { admin, channel, operator, stubDeps, viewer } from "./support.js";

/** Test verbs next to the real registry: what each run received is recorded. */
function testRegistry() {
  const runs: CommandContext[] = [];
  const confirmed: unknown[] = [];
  const record = (ctx: CommandContext) => {
    runs.push(ctx);
    return Promise.resolve(publicReply("done", [text(`ran ${ctx.args.join(" ")}`)]));
  };
  const spend: CommandDefinition = {
    verb: "energy",
    role: "operator",
    summary: "rent energy",
    usage: "energy <address> <amount>",
    example: "energy TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t 65k",
    async run(ctx) {
      runs.push(ctx);
      const { tokens } = await createActionGroup(
        ctx.deps.store,
        { conversation: ctx.invocation.conversation, createdBy: ctx.invocation.actor, now: ctx.deps.now },
        [
          { kind: "test.confirm", payload: { args: ctx.args }, role: "operator" },
          { kind: CANCEL_KIND, payload: {}, role: "operator" },
        ],
      );
      return publicReply("quote", [
        text("Quote"),
        buttons(
          { label: "Confirm", token: tokens[0] ?? "", style: "primary" },
          { label: "Cancel", token: tokens[1] ?? "" },
        ),
      ]);
    },
  };
  const host: CommandDefinition = {
    verb: "host",
    subverbs: ["start", "stop"],
    role: "operator",
    summary: "host mode",
    usage: "host start|stop <address>",
    example: "host start TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
    run: record,
  };
  const broken: CommandDefinition = {
    verb: "prices",
    role: "viewer",
    summary: "price list",
    usage: "prices [service]",
    example: "prices energy",
    async run(ctx) {
      if (ctx.args[0] === "user") throw new UserError("No such service: user.");
      throw new TypeError("cannot read properties of undefined");
    },
  };
  const confirm: ActionHandler<{ args: string[] }> = {
    kind: "test.confirm",
    role: "operator",
    async run(ctx, payload) {
      confirmed.push({ payload, confirmationId: ctx.record.confirmationId });
      if (payload.args[0] === "fail") throw new Error("order failed");
      if (payload.args[0] === "down" && confirmed.length === 1)
        throw new NotCarriedOut("The service did not answer; nothing was ordered.");
      return publicReply("ordered", [text(`ordered by ${ctx.invocation.actor.userId}`)]);
    },
  };
  return {
    runs,
    confirmed,
    // Its own registry, not command-registry.ts: verbs added there later must not change these tests.
    registry: {
      commands: [helpCommand, auditCommand, spend, host, broken],
      actions: [cancelActionHandler, confirm],
    },
  };
}

function setup() {
  const deps = stubDeps();
  const t = testRegistry();
  const core = createCore(deps, t.registry);
  const say = (actor: Actor, line: string, conversation: ConversationRef = channel) =>
    core.handle({ kind: "command", actor, conversation, text: line });
  const press = (actor: Actor, token: string) =>
    core.handle({ kind: "action", actor, conversation: channel, token });
  return { deps, core, say, press, ...t };
}

const lines = (reply: Reply): string[] =>
  reply.blocks.flatMap((b) => {
    if (b.type === "text" || b.type === "context") return [spansToText(b.spans)];
    if (b.type === "header") return [b.text];
    if (b.type === "fields") return b.fields.map((f) => `${f.label}: ${spansToText(f.value)}`);
    return [];
  });

const tokensOf = (reply: Reply): string[] =>
  reply.blocks.flatMap((b) => (b.type === "buttons" ? b.buttons.map((x) => x.token) : []));

describe("help", () => {
  it("lists every command for a viewer, marking those that need a higher role and whom to ask", async () => {
    const { say } = setup();
    const reply = await say(viewer, "help");
    expect(reply.visibility).toBe("public");
    expect(lines(reply)).toEqual([
      "What I can do",
      "/help [command] — what I can do, with an example for each command. Example: /help energy",
      "/audit [count] [page] | audit export [<from> [<to>]] — the spend ledger, newest first; export: a CSV anyone can verify. Example: /audit export 2026-11-01 (needs admin)",
      "/energy <address> <amount> — rent energy. Example: /energy TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t 65k (needs operator)",
      expect.stringMatching(/^\/host start\|stop <address> — host mode\. .* \(needs operator\)$/),
      "/prices [service] — price list. Example: /prices energy",
      `You are a viewer (slack:${viewer.userId}). For a command marked “needs …”, ask an admin to add you to admin: OPS_ADMINS, operator: OPS_OPERATORS. Type /help <command> for details.`,
    ]);
    expect(reply.summary).toBe("What I can do: help, prices; needs a higher role: audit, energy, host");
  });

  it("marks nothing an operator may use, and nothing at all for an admin", async () => {
    const { say } = setup();
    const forOperator = lines(await say(operator, "help")).join("\n");
    expect(forOperator).toContain("/energy <address> <amount> — rent energy. Example: /energy TR7N");
    expect(forOperator).not.toMatch(/energy .*needs operator/);
    expect(forOperator).toContain("(needs admin)");
    expect(forOperator).toContain("ask an admin to add you to admin: OPS_ADMINS.");
    const forAdmin = lines(await say(admin, "help")).join("\n");
    expect(forAdmin).toContain("/audit [count] [page] | audit export [<from> [<to>]] — the spend ledger");
    expect(forAdmin).not.toContain("needs ");
    expect(forAdmin).toContain(
      `You are an admin (telegram:${admin.userId}). Type /help <command> for details.`,
    );
  });

  it("help <verb> works for every verb for everyone, saying which role it needs", async () => {
    const { say, registry } = setup();
    expect(lines(await say(viewer, "help energy"))).toEqual([
      "energy",
      "Rent energy.",
      "Usage: /energy <address> <amount>",
      "Example: /energy TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t 65k",
      `Needs operator — ask an admin to add you to OPS_OPERATORS. You are a viewer (slack:${viewer.userId}).`,
    ]);
    for (const command of registry.commands) {
      const reply = await say(viewer, `help ${command.verb}`);
      expect(reply.visibility).toBe("public");
      expect(lines(reply)[0]).toBe(command.verb);
    }
    expect(lines(await say(operator, "help energy"))).toHaveLength(4);
    const missing = await say(viewer, "help nope");
    expect(missing).toMatchObject({
      visibility: "private",
      summary: 'There is no command "nope". Type /help for the list.',
    });
  });

  it("uses bare verbs on the console and answers Telegram's start", async () => {
    const { say } = setup();
    const console = await say(viewer, "help", { platform: "console", id: "local" });
    expect(lines(console)[1]).toBe(
      "help [command] — what I can do, with an example for each command. Example: help energy",
    );
    const start = await say({ platform: "telegram", userId: "7" }, "start", {
      platform: "telegram",
      id: "-100",
    });
    expect(start.summary).toBe("What I can do: help, prices; needs a higher role: audit, energy, host");
  });
});

describe("commands", () => {
  it("answers an unknown verb with the parser's one private line and runs nothing", async () => {
    const { say, runs } = setup();
    const reply = await say(operator, "enrgy TAddr 65k");
    expect(reply).toEqual({
      visibility: "private",
      summary: 'unknown command "enrgy" (did you mean energy?): type help to see what the bot can do',
      blocks: [text('unknown command "enrgy" (did you mean energy?): type help to see what the bot can do')],
    });
    // The registry is the grammar: a verb of the contract nobody registered yet is unknown too.
    expect((await say(operator, "balance")).summary).toBe(
      'unknown command "balance": type help to see what the bot can do',
    );
    expect((await say(operator, "")).visibility).toBe("private");
    expect(runs).toHaveLength(0);
  });

  it("runs a verb through Slack's umbrella /ops", async () => {
    const { say, runs } = setup();
    expect((await say(operator, "/ops energy TAddr 65k")).summary).toBe("quote");
    expect(runs[0]?.args).toEqual(["TAddr", "65k"]);
  });

  it("refuses a verb above the user's role without running it", async () => {
    const { say, runs } = setup();
    const reply = await say(viewer, "energy TAddr 65k");
    expect(reply.summary).toBe(
      "energy needs the operator role; you are a viewer. Ask an admin to add slack:U0VIEW to OPS_OPERATORS.",
    );
    expect(reply.visibility).toBe("private");
    expect((await say(operator, "audit")).summary).toContain(
      "audit needs the admin role; you are an operator.",
    );
    expect(runs).toHaveLength(0);
  });

  it("checks and strips the subverb", async () => {
    const { say, runs } = setup();
    expect((await say(operator, "host TAddr")).summary).toBe(
      '"TAddr" is not a host subcommand: use host start or host stop',
    );
    expect(runs).toHaveLength(0);
    await say(operator, "host START TAddr");
    expect(runs[0]).toMatchObject({ subverb: "start", args: ["TAddr"], role: "operator" });
  });

  it("turns a thrown error into one line with a ref that is in the log", async () => {
    const { say, deps } = setup();
    const reply = await say(viewer, "prices");
    const ref = /^Something went wrong \(ref ([0-9a-f]{8})\); the details are in the log\.$/.exec(
      reply.summary,
    )?.[1];
    expect(ref).toBeDefined();
    expect(reply.visibility).toBe("private");
    const logged = deps.logger.records.find((r) => r.level === "error");
    expect(logged?.obj).toMatchObject({
      ref,
      verb: "prices",
      actor: "slack:U0VIEW",
      conversation: "slack:C0OPS",
    });
    expect(String(logged?.obj.err)).toContain("cannot read properties of undefined");
    expect((await say(viewer, "prices user")).summary).toBe("No such service: user.");
  });
});

describe("buttons", () => {
  it("runs Confirm once, replaces the message, and kills Cancel", async () => {
    const { say, press, confirmed } = setup();
    const quote = await say(operator, "energy TAddr 65k");
    const [confirm, cancel] = tokensOf(quote) as [string, string];
    const done = await press(operator, confirm);
    expect(done).toMatchObject({ summary: "ordered", replacesOriginal: true, visibility: "public" });
    expect(await press(operator, confirm)).toMatchObject({
      summary: "Already handled.",
      visibility: "private",
    });
    expect(await press(admin, cancel)).toMatchObject({ summary: "Already handled." });
    expect(confirmed).toHaveLength(1);
    expect(confirmed[0]).toMatchObject({ payload: { args: ["TAddr", "65k"] } });
  });

  it("refuses a viewer's click without spending the button", async () => {
    const { say, press, confirmed } = setup();
    const [confirm] = tokensOf(await say(operator, "energy TAddr 65k")) as [string];
    const refused = await press(viewer, confirm);
    expect(refused.summary).toBe(
      "This button needs the operator role; you are a viewer. Ask an admin to add slack:U0VIEW to OPS_OPERATORS.",
    );
    expect(refused.replacesOriginal).toBeUndefined();
    expect(confirmed).toHaveLength(0);
    expect((await press(operator, confirm)).summary).toBe("ordered");
  });

  it("cancels with the generic Cancel handler", async () => {
    const { say, press, confirmed } = setup();
    const [confirm, cancel] = tokensOf(await say(operator, "energy TAddr 65k")) as [string, string];
    expect(await press(operator, cancel)).toMatchObject({
      summary: "Cancelled by slack:U0OPER.",
      replacesOriginal: true,
    });
    expect((await press(operator, confirm)).summary).toBe("Already handled.");
    expect(confirmed).toHaveLength(0);
    expect(cancelActionHandler.kind).toBe(CANCEL_KIND);
  });

  it("expires after 5 minutes of the injected clock", async () => {
    const { say, press, deps, confirmed } = setup();
    const [confirm] = tokensOf(await say(operator, "energy TAddr 65k")) as [string];
    deps.clock.advance(5 * 60_000);
    expect((await press(operator, confirm)).summary).toBe(
      "This button has expired (buttons last 5 minutes). Run the command again.",
    );
    expect(confirmed).toHaveLength(0);
  });

  it("reports a failed action in place of the spent message", async () => {
    const { say, press, deps } = setup();
    const [confirm] = tokensOf(await say(operator, "energy fail 65k")) as [string];
    const reply = await press(operator, confirm);
    expect(reply).toMatchObject({ visibility: "public", replacesOriginal: true });
    expect(reply.summary).toMatch(/^Something went wrong \(ref [0-9a-f]{8}\)/);
    expect(deps.logger.records.find((r) => r.level === "error")?.obj).toMatchObject({
      action: "test.confirm",
    });
  });

  it("an action not carried out leaves its button usable: one line for the presser, the message stays", async () => {
    const { say, press, confirmed } = setup();
    const [confirm, cancel] = tokensOf(await say(operator, "energy down 65k")) as [string, string];
    const failed = await press(operator, confirm);
    expect(failed).toEqual({
      summary:
        "The service did not answer; nothing was ordered. The button still works: press it again to retry.",
      blocks: [
        text(
          "The service did not answer; nothing was ordered. The button still works: press it again to retry.",
        ),
      ],
      visibility: "private",
    });
    expect(await press(operator, confirm)).toMatchObject({ summary: "ordered", replacesOriginal: true });
    expect(await press(operator, confirm)).toMatchObject({ summary: "Already handled." });
    expect(await press(operator, cancel)).toMatchObject({ summary: "Already handled." });
    expect(confirmed).toHaveLength(2);
  });

  it("never throws, even when the store fails", async () => {
    const { deps, registry } = { deps: stubDeps(), ...testRegistry() };
    deps.store = { ...deps.store, get: () => Promise.reject(new Error("store down")) };
    const core = createCore(deps, registry);
    const invocation: Invocation = {
      kind: "action",
      actor: operator,
      conversation: channel,
      token: "abcdefghijklmnopqrstuv",
    };
    expect((await core.handle(invocation)).summary).toMatch(/^Something went wrong \(ref/);
  });
});

describe("registry", () => {
  it("the real registry builds, and every example is a line of its own verb", async () => {
    const deps = stubDeps();
    expect(() => createCore(deps, { commands, actions: actionHandlers })).not.toThrow();
    expect(commands.map((c) => c.verb)).toContain("help");
    for (const command of commands) {
      const parsed = parseCommandLine(command.example, commands);
      expect(parsed.ok && parsed.value.verb, command.example).toBe(command.verb);
      expect(command.usage.startsWith(command.verb), command.usage).toBe(true);
    }
  });

  it("rejects two commands with one name and two handlers of one kind", () => {
    const deps = stubDeps();
    expect(() => createCore(deps, { commands: [...commands, ...commands], actions: [] })).toThrow(
      /two commands/,
    );
    expect(() => createCore(deps, { commands, actions: [cancelActionHandler, cancelActionHandler] })).toThrow(
      /two action handlers/,
    );
  });
});
