import Big from "big.js";
import type { ActionContext, ActionHandler } from "../command.js";
import type { CoreDeps } from "../deps.js";
import { energyConfirmAction } from "../energy/confirm-energy.js";
import { energyConfirmPayloadSchema } from "../energy/energy-payload.js";
import { hostConfirmAction, hostConfirmPayloadSchema } from "../host/confirm-host.js";
import { preflightAddress } from "../spend/preflight.js";
import { buildEnergyQuote, buildHostQuote, ROUTE_SERVICE } from "../spend/quote.js";
import { subuserDeleteAction } from "../subuser/delete-subuser.js";
import { subuserDeletePayloadSchema } from "../subuser/subuser-payload.js";
import type { SpendKind } from "./request.js";

/**
 * How an approved spend is quoted again and carried out. The re-quote reads the price list from
 * the service (not the bot's cached copy): the approver must see what the order costs now. The
 * order itself is placed by the spend's own Confirm handler, unchanged.
 */
export type Requote =
  | { ok: true; costTrx: string; payload: unknown }
  | { ok: false; line: string; address: string };

type Deps = Pick<CoreDeps, "service" | "logger" | "now" | "store">;

interface SpendRunner {
  requote(deps: Deps, payload: unknown): Promise<Requote>;
  confirm: ActionHandler;
}

const RUNNERS: Record<SpendKind, SpendRunner> = {
  energy: {
    async requote(deps, raw) {
      const p = energyConfirmPayloadSchema.parse(raw);
      const preflight = await preflightAddress(deps, p.address);
      if (!preflight.ok) return { ok: false, line: preflight.line, address: p.address };
      const list = await deps.service.pricing.get({ services: [ROUTE_SERVICE[p.route]] });
      const quote = buildEnergyQuote(list, p.address, p.amount);
      const payload = {
        ...p,
        quoteTrx: quote.costTrx,
        unitPriceSun: quote.unitPriceSun,
        periodLabel: quote.periodLabel,
      };
      return { ok: true, costTrx: quote.costTrx, payload };
    },
    confirm: energyConfirmAction,
  },
  host: {
    async requote(deps, raw) {
      const p = hostConfirmPayloadSchema.parse(raw);
      const preflight = await preflightAddress(deps, p.address, "started");
      if (!preflight.ok) return { ok: false, line: preflight.line, address: p.address };
      const list = await deps.service.pricing.get({ services: ["host"] });
      const host = list.data.services.host;
      if (!host) throw new Error("the price list has no Host Mode rates right now; try again later");
      const quote = buildHostQuote(host, deps.now());
      return {
        ok: true,
        costTrx: quote.firstCycleTrx,
        payload: { ...p, firstCycleTrx: quote.firstCycleTrx },
      };
    },
    confirm: hostConfirmAction,
  },
  // A deletion has no price: nothing to quote again, and nothing that could have risen.
  subuser: {
    async requote(_deps, raw) {
      return { ok: true, costTrx: "0", payload: subuserDeletePayloadSchema.parse(raw) };
    },
    confirm: subuserDeleteAction,
  },
};

export const requoteSpend = (kind: SpendKind, deps: Deps, payload: unknown): Promise<Requote> =>
  RUNNERS[kind].requote(deps, payload);

/** True when the new cost is above what was approved. */
export const costRose = (approvedTrx: string, nowTrx: string): boolean => new Big(nowTrx).gt(approvedTrx);

/** Runs the spend's own Confirm, as its requester, seeded with the request id. */
export function carryOut(kind: SpendKind, ctx: ActionContext, payload: unknown) {
  return RUNNERS[kind].confirm.run(ctx, payload);
}
