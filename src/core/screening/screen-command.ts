import { z } from "zod";
import { CANCEL_KIND, createActionGroup } from "../actions.js";
import type { ActionHandler, CommandContext, CommandDefinition } from "../command.js";
import { formatAmount, shortAddress } from "../format.js";
import { isNetworkTicker, type NetworkTicker, parseScreenArgs } from "../parse/networks.js";
import { type Button, buttons, code, context, errorReply, publicReply, type Reply, text } from "../reply.js";
import { runScreening } from "./screen-run.js";
import { screenableNetworks } from "./screening-providers.js";

/** The kind of the buttons that pick the network of an ambiguous address. */
const SCREEN_NETWORK_KIND = "screen.network";

/** `screen <address> [network] [provider]`: one paid AML screening (version 2). */
export const screenCommand: CommandDefinition = {
  verb: "screen",
  role: "operator",
  summary: "AML screening of an address (billed per check)",
  usage: "screen <address> [network] [provider]",
  example: "screen TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
  async run(ctx) {
    const parsed = parseScreenArgs(ctx.args);
    if (!parsed.ok) return errorReply(parsed.error);
    const { address, network, provider, candidates } = parsed.value;
    const { actor, conversation } = ctx.invocation;
    if (network !== undefined) {
      return runScreening(ctx.deps, { actor, conversation, address, network, ...(provider && { provider }) });
    }
    return askNetwork(ctx, address, candidates ?? [], provider);
  },
};

/** An address that fits several networks (0x… EVM): one button per network the account can screen. */
async function askNetwork(
  ctx: CommandContext,
  address: string,
  candidates: readonly NetworkTicker[],
  provider: string | undefined,
): Promise<Reply> {
  const { networks, list } = await screenableNetworks(ctx.deps, candidates, provider);
  if (networks.length === 0) {
    const named = provider === undefined ? "" : ` named ${provider}`;
    return errorReply(
      `No available provider${named} covers the networks this address fits (${candidates.join(", ")}); nothing was ordered.`,
    );
  }
  const { actor, conversation } = ctx.invocation;
  const { tokens } = await createActionGroup(
    ctx.deps.store,
    { conversation, createdBy: actor, now: ctx.deps.now },
    [
      ...networks.map((network) => ({
        kind: SCREEN_NETWORK_KIND,
        payload: { address, network, ...(provider && { provider }) },
        role: "operator" as const,
      })),
      { kind: CANCEL_KIND, payload: {}, role: "operator" as const },
    ],
  );
  const choices: Button[] = networks.map((network, i) => ({ label: network, token: tokens[i] ?? "" }));
  choices.push({ label: "Cancel", token: tokens[networks.length] ?? "" });
  const price = priceNote(list.providers, provider);
  const line = `${shortAddress(address)} fits several networks: which one should it be screened on?`;
  return publicReply(line, [
    text(code(address), " fits several networks. Which one should it be screened on?"),
    buttons(...choices),
    context(`A screening is billed${price}. Or type the network: screen <address> <network>.`),
  ]);
}

/** ", 3.27 TRX with provider_a": the list price of the provider that would be used, when known. */
function priceNote(
  providers: readonly { provider: string; price_trx: string | null; available: boolean }[],
  wanted?: string,
) {
  const p = providers.find((x) => x.available && (wanted === undefined || x.provider === wanted));
  return p?.price_trx ? ` (${formatAmount(p.price_trx)} with ${p.provider})` : "";
}

const networkPayload = z.object({
  address: z.string().min(1),
  network: z.string().refine(isNetworkTicker, "not a network ticker"),
  provider: z.string().min(1).optional(),
});

/** A network button: screens the address on the network it names. */
export const screenNetworkAction: ActionHandler = {
  kind: SCREEN_NETWORK_KIND,
  role: "operator",
  async run(ctx, payload) {
    const parsed = networkPayload.safeParse(payload);
    if (!parsed.success) throw new Error(`bad ${SCREEN_NETWORK_KIND} payload: ${parsed.error.message}`);
    const { address, network, provider } = parsed.data;
    const { actor, conversation } = ctx.invocation;
    return runScreening(ctx.deps, { actor, conversation, address, network, ...(provider && { provider }) });
  },
};
