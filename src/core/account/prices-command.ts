import type { PricingServiceName } from "../../service/pricing.js";
import type { CommandDefinition } from "../command.js";
import { closest } from "../parse/closest.js";
import { echo } from "../parse/echo.js";
import { getPriceList, OPT_IN_SERVICES } from "../pricing/price-list.js";
import { errorReply } from "../reply.js";
import { renderPrices, serviceNames, unknownServiceLine } from "./prices-render.js";

/**
 * `prices [service]`: the price list, read through the one price list cache the quotes use
 * (`src/core/pricing/price-list.ts`), so `prices` and a quote show the same prices at any moment.
 */

/** Services a word names: the exact key, or a key with that word as one of its parts ("energy", "5m"). */
function matchServices(word: string, names: readonly PricingServiceName[]): PricingServiceName[] {
  const exact = names.filter((name) => name === word);
  return exact.length > 0 ? exact : names.filter((name) => name.split("_").includes(word));
}

export const pricesCommand: CommandDefinition = {
  verb: "prices",
  role: "viewer",
  summary: "the live price list",
  usage: "prices [service]",
  example: "prices energy_5m",
  async run(ctx) {
    if (ctx.args.length > 1) {
      return errorReply('prices takes at most one service, e.g. "prices energy_5m" or "prices bandwidth"');
    }
    const wanted = ctx.args[0]?.toLowerCase();
    const list = await getPriceList(ctx.deps);
    const names = serviceNames(list);
    if (wanted === undefined) return renderPrices(list, names);
    const matched = matchServices(wanted, names);
    if (matched.length > 0) return renderPrices(list, matched);
    const optIn = OPT_IN_SERVICES.find((name) => name === wanted);
    if (optIn !== undefined) {
      const extra = await getPriceList(ctx.deps, [optIn]);
      if (extra.data.services[optIn]) return renderPrices(extra, [optIn]);
      return errorReply(`${optIn} prices are not available to this account: access is by request`);
    }
    const known = [...names, ...OPT_IN_SERVICES.filter((name) => !names.includes(name))];
    return errorReply(unknownServiceLine(echo(ctx.args[0] ?? ""), known, closest(wanted, known)));
  },
};
