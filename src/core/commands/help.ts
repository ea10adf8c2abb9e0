import type { CommandContext, CommandDefinition } from "../command.js";
import type { Platform } from "../invocation.js";
import { echo } from "../parse/echo.js";
import {
  type Block,
  code,
  context,
  errorReply,
  fields,
  header,
  publicReply,
  type Reply,
  text,
} from "../reply.js";
import { can } from "../roles.js";

/** Slack and Telegram type verbs as slash commands; the console takes the bare line. */
const prefixFor = (platform: Platform): string => (platform === "console" ? "" : "/");

/** `help [verb]`: the verbs the user's role allows, one line each with an example. */
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

function listReply(ctx: CommandContext): Reply {
  const prefix = prefixFor(ctx.invocation.conversation.platform);
  const allowed = ctx.commands.filter((c) => can(ctx.role, c.role));
  const blocks: Block[] = [header("What I can do")];
  for (const c of allowed) {
    blocks.push(
      text(code(`${prefix}${c.usage}`), ` — ${c.summary}. Example: `, code(`${prefix}${c.example}`)),
    );
  }
  const hidden = ctx.commands.length - allowed.length;
  const more =
    hidden > 0 ? ` ${hidden} more command${hidden === 1 ? " needs" : "s need"} a higher role.` : "";
  blocks.push(
    context(
      `You are ${article(ctx.role)} ${ctx.role}.${more} Type `,
      code(`${prefix}help <command>`),
      " for details.",
    ),
  );
  return publicReply(`What I can do: ${allowed.map((c) => c.verb).join(", ")}`, blocks);
}

function verbReply(ctx: CommandContext, wanted: string): Reply {
  const prefix = prefixFor(ctx.invocation.conversation.platform);
  const found = ctx.commands.find((c) => c.verb === wanted || c.aliases?.includes(wanted));
  if (!found) return errorReply(`There is no command ${echo(wanted)}. Type ${prefix}help for the list.`);
  const blocks: Block[] = [
    header(found.verb),
    text(`${capitalise(found.summary)}.`),
    fields(["Usage", code(`${prefix}${found.usage}`)], ["Example", code(`${prefix}${found.example}`)]),
  ];
  if (!can(ctx.role, found.role)) {
    blocks.push(context(`It needs the ${found.role} role; you are ${article(ctx.role)} ${ctx.role}.`));
  }
  return publicReply(`${found.usage}: ${found.summary}`, blocks);
}

const article = (word: string): string => (/^[aeiou]/i.test(word) ? "an" : "a");
const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
