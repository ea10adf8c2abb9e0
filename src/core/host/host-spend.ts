import { getBalance } from "../balance/balance-cache.js";
import { UserError } from "../errors.js";
import { buildHostQuote, type HostQuote } from "../pricing/quote.js";
import { defineSpend } from "../spend/definition.js";
import { denyListText } from "../spend/preflight.js";
import { placeHostStart } from "./confirm-host.js";
import {
  HOST_CONFIRM_KIND,
  type HostConfirmPayload,
  hostCallbackUrl,
  hostConfirmPayloadSchema,
} from "./host-payload.js";
import { NO_CALLBACK_WARNING, renderHostQuote } from "./host-render.js";
import { hostAuditBase } from "./host-start-flow.js";

type HostLiveQuote = HostQuote & { costTrx: string };

/** Host Mode start (infinity) for one address: priced at the first cycle's live rate. */
export const hostStart = defineSpend<HostConfirmPayload, HostLiveQuote>({
  name: "host",
  confirmKind: HOST_CONFIRM_KIND,
  schema: hostConfirmPayloadSchema,
  word: "started",
  quoteTrx: (p) => p.firstCycleTrx,
  live: (deps, p) => ({
    quoted: { costTrx: p.firstCycleTrx },
    addresses: [p.address],
    services: ["host"],
    requote(list) {
      const host = list.data.services.host;
      if (!host)
        throw new UserError(
          "The price list has no Host Mode rates right now; try again later. Nothing was started.",
        );
      const quote = buildHostQuote(host, deps.now());
      return { ...quote, costTrx: quote.firstCycleTrx };
    },
  }),
  atQuote: (p, quote) => ({ ...p, firstCycleTrx: quote.costTrx }),
  ledgerKind: "host_start",
  place: (ctx, who, p) => placeHostStart(ctx, who, p),
  audit: hostAuditBase,
  describe: (p) => `Host Mode (infinity) for ${p.address}`,
  roseAudit: (notice) => notice,
  // Nothing was started, so nothing was charged: any hold is given back.
  async requoted(deps, view) {
    const verdict = view.verdicts[0];
    const warnings = [...view.warnings];
    if (hostCallbackUrl(deps.settings) === undefined) warnings.push(NO_CALLBACK_WARNING);
    return renderHostQuote({
      address: view.payload.address,
      quote: view.quote,
      balance: await getBalance(deps),
      denyList: verdict ? denyListText(verdict) : "clean (not on any deny list)",
      warnings,
      notice: view.notice,
      ...(deps.settings.dailyLimitTrx !== undefined && { dailyLimitTrx: deps.settings.dailyLimitTrx }),
      tokens: view.tokens,
    });
  },
});
