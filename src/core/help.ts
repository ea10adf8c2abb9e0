import type { CommandContext, CommandDefinition } from "./command.js";
import { actorKey } from "./invocation.js";
import { echo } from "./parse/echo.js";
import { platformFacts } from "./platforms.js";
import {
  type Block,
  code,
  codeMarked,
  context,
  errorReply,
  fields,
  header,
  italic,
  publicReply,
  type Reply,
  text,
} from "./reply.js";
import { can, type Role } from "./roles.js";

/** How a command is typed where the person is (a slash command, or the bare line). */
const prefixFor = (ctx: CommandContext): string =>
  platformFacts(ctx.deps.platforms, ctx.invocation.conversation.platform).commandPrefix;

/**
 * `help [verb]`: every verb for everyone, so a viewer learns what exists and whom to ask. The
 * verbs the person may not use are marked with the role they need and the list an admin must add
 * them to.
 */
export const helpCommand: CommandDefinition = {
  verb: "help",
  aliases: ["start"],
  role: "viewer",
  summary: "what I can do, with an example for each command",
  usage: "help [command]",
  example: "help energy",
  async run(ctx) {
    const wanted = ctx.args[0]?.toLowerCase();
    return wanted === undefined ? listReply(ctx) : verbReply(ctx, wanted);
  },
};

const LIST_FOR: Record<Role, string> = { viewer: "", operator: "OPS_OPERATORS", admin: "OPS_ADMINS" };

/** `needs operator — ask an admin to add you to OPS_OPERATORS` */
const needsLine = (needed: Role): string =>
  `needs ${needed} — ask an admin to add you to ${LIST_FOR[needed]}`;

/** What an operator sees of agents (CONTRACT.md "Agents"): their requests, confirmed like any quote. */
const AGENTS_LINE =
  "Agents' requests: an AI agent (OPS_AGENT_TOKENS) may read and ask for energy; its request is posted in the agents' channel as a quote naming the agent and its reason. An operator confirms or cancels it under every money rule (price, deny list, caps, approval); the agent never presses a button.";

function listReply(ctx: CommandContext): Reply {
  const prefix = prefixFor(ctx);
  const blocks: Block[] = [header("What I can do")];
  const locked: string[] = [];
  for (const c of ctx.commands) {
    const allowed = can(ctx.role, c.role);
    if (!allowed) locked.push(c.verb);
    const lockedParts = allowed ? lockedSubverbs(c, ctx.role) : [];
    locked.push(...lockedParts.map((p) => p.line));
    blocks.push(
      text(
        code(`${prefix}${c.usage}`),
        ` — ${c.summary}. Example: `,
        code(`${prefix}${c.example}`),
        ...(allowed ? [] : [italic(` (needs ${c.role})`)]),
        ...lockedParts.map((p) => italic(` (${p.line}: needs ${p.role})`)),
      ),
    );
  }
  // Only where agents are let in (OPS_AGENT_TOKENS): elsewhere there are no agents' requests to see.
  if (ctx.deps.settings.agentChannel) blocks.push(text(AGENTS_LINE));
  const higher = [...new Set(ctx.commands.flatMap((c) => [c.role, ...Object.values(c.subverbRoles ?? {})]))]
    .filter((role) => !can(ctx.role, role))
    .map((role) => `${role}: ${LIST_FOR[role]}`);
  blocks.push(
    context(
      `You are ${article(ctx.role)} ${ctx.role} (${actorKey(ctx.invocation.actor)}). `,
      ...(higher.length > 0
        ? [`For a command marked “needs …”, ask an admin to add you to ${higher.join(", ")}. `]
        : []),
      "Type ",
      code(`${prefix}help <command>`),
      " for details.",
    ),
  );
  const open = ctx.commands.filter((c) => can(ctx.role, c.role)).map((c) => c.verb);
  const more = locked.length > 0 ? `; needs a higher role: ${locked.join(", ")}` : "";
  return publicReply(`What I can do: ${open.join(", ")}${more}`, blocks);
}

/**
 * The subverbs of an allowed verb that need a higher role than `role`, one entry per role needed:
 * `{ line: "host start, host stop", role: "operator" }`.
 */
function lockedSubverbs(c: CommandDefinition, role: Role): { line: string; role: Role }[] {
  const byRole = new Map<Role, string[]>();
  for (const [subverb, needed] of Object.entries(c.subverbRoles ?? {})) {
    if (!can(role, needed)) byRole.set(needed, [...(byRole.get(needed) ?? []), `${c.verb} ${subverb}`]);
  }
  return [...byRole].map(([needed, lines]) => ({ line: lines.join(", "), role: needed }));
}

function verbReply(ctx: CommandContext, wanted: string): Reply {
  const prefix = prefixFor(ctx);
  const found = ctx.commands.find((c) => c.verb === wanted || c.aliases?.includes(wanted));
  if (!found) return errorReply(`There is no command ${echo(wanted)}. Type ${prefix}help for the list.`);
  const blocks: Block[] = [
    header(found.verb),
    text(`${capitalise(found.summary)}.`),
    ...(found.details === undefined ? [] : [text(...codeMarked(found.details))]),
    fields(["Usage", code(`${prefix}${found.usage}`)], ["Example", code(`${prefix}${found.example}`)]),
  ];
  if (!can(ctx.role, found.role)) {
    blocks.push(
      context(
        `${capitalise(needsLine(found.role))}. You are ${article(ctx.role)} ${ctx.role} (${actorKey(ctx.invocation.actor)}).`,
      ),
    );
  }
  for (const part of can(ctx.role, found.role) ? lockedSubverbs(found, ctx.role) : []) {
    blocks.push(
      context(
        `${part.line}: ${needsLine(part.role)}. You are ${article(ctx.role)} ${ctx.role} (${actorKey(ctx.invocation.actor)}).`,
      ),
    );
  }
  return publicReply(`${found.usage}: ${found.summary}`, blocks);
}

const article = (word: string): string => (/^[aeiou]/i.test(word) ? "an" : "a");
const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
