import { alertHomeBlocks } from "./alerts/index.js";
import { caseHomeBlocks } from "./cases/index.js";
import type { CommandDefinition } from "./command.js";
import type { CoreDeps } from "./deps.js";
import { toUserLine } from "./errors.js";
import { activeHosts } from "./host/index.js";
import type { Actor } from "./invocation.js";
import { homeConversation } from "./platforms.js";
import { type Block, code, context, header, publicReply, type Reply, text } from "./reply.js";
import { can, roleOf } from "./roles.js";

/**
 * A home summary for a platform's home screen (Slack's App Home): the account balance, the
 * current prices and the addresses in Host Mode. Balance and prices are the `balance` and
 * `prices` commands of the registry run for the user who looks (their caches, rate-limit care
 * and rendering come with them, and their role rules apply); a verb the registry lacks is left
 * out. Host Mode addresses are read from `host/active.ts`.
 */
/** The summary stays short: a home screen is a glance, not a report. */
const MAX_HOSTS_SHOWN = 20;
const HOME_VERBS = ["balance", "prices"] as const;

/**
 * More parts of the home screen, in order, each from its feature: the open alerts; standing orders
 * and payout runs in progress add their section here (a function of the deps and the user who looks).
 */
type HomeSection = (deps: CoreDeps, actor: Actor) => Promise<Block[]>;
const HOME_SECTIONS: readonly HomeSection[] = [alertHomeBlocks, caseHomeBlocks];

export interface HomeSummaryOptions {
  actor: Actor;
  commands: readonly CommandDefinition[];
}

export async function homeSummary(deps: CoreDeps, options: HomeSummaryOptions): Promise<Reply> {
  const blocks: Block[] = [header("Operations overview")];
  for (const verb of HOME_VERBS) {
    const part = await runReadOnly(deps, options, verb);
    if (part.length > 0) blocks.push(...part, { type: "divider" });
  }
  blocks.push(...(await hostBlocks(deps)));
  for (const section of HOME_SECTIONS) {
    const part = await section(deps, options.actor).catch((error: unknown) => {
      deps.logger.warn({ err: error }, "home summary section failed");
      return [];
    });
    if (part.length > 0) blocks.push({ type: "divider" }, ...part);
  }
  blocks.push(
    context(`Updated ${new Date(deps.now()).toISOString()}. Type `, code("/ops help"), " for commands."),
  );
  return publicReply("Operations overview", blocks);
}

/** One read-only command's reply blocks, or one line saying why it could not be shown. */
async function runReadOnly(deps: CoreDeps, options: HomeSummaryOptions, verb: string): Promise<Block[]> {
  const command = options.commands.find((c) => c.verb === verb);
  if (command === undefined) return [];
  const role = roleOf(options.actor, deps.settings);
  if (!can(role, command.role)) return [];
  const conversation = homeConversation(deps.platforms, options.actor);
  try {
    const reply = await command.run({
      invocation: { kind: "command", actor: options.actor, conversation, text: verb },
      args: [],
      role,
      deps,
      commands: options.commands,
    });
    return reply.blocks.filter((b) => b.type !== "buttons" && b.type !== "file" && b.type !== "image");
  } catch (error) {
    deps.logger.warn({ err: error, verb }, "home summary part failed");
    return [text(`${verb}: ${toUserLine(error)}`)];
  }
}

async function hostBlocks(deps: CoreDeps): Promise<Block[]> {
  let addresses: string[];
  try {
    addresses = (await activeHosts(deps)).sort();
  } catch (error) {
    deps.logger.warn({ err: error }, "could not read the Host Mode addresses");
    return [text("Host Mode: the list could not be read right now.")];
  }
  if (addresses.length === 0) return [text("Host Mode: no address is in Host Mode.")];
  const shown = addresses.slice(0, MAX_HOSTS_SHOWN);
  const blocks: Block[] = [text(`Host Mode (${addresses.length}):`)];
  blocks.push(text(...shown.flatMap((address, i) => (i === 0 ? [code(address)] : ["\n", code(address)]))));
  if (addresses.length > shown.length) blocks.push(context(`… and ${addresses.length - shown.length} more`));
  return blocks;
}
