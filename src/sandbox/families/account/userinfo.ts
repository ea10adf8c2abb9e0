import { randomUUID } from "node:crypto";
import Big from "big.js";
import { type SandboxAccount, SUN_PER_TRX, sunToTrx } from "../../accounts.js";
import { hex, type SandboxContext } from "../../context.js";
import { TRX_RATE_USD } from "../../price-book.js";
import { json, type Route, type SandboxReply, type SandboxRequest } from "../../router.js";
import { authenticate, isReply, utcDateTime, validationReply } from "./common.js";

/** GET /apiv2/userinfo and DELETE /apiv2/subuserdel/{user_id}. */

/** What burning TRX for energy would cost, SUN per energy unit: the base of the "saved" figures. */
const NETWORK_ENERGY_FEE_SUN = 100;
/** Records removed with a sub-user: key, settings, referral data, deposit address. */
const SUBUSER_RECORDS = 4;

function stats(account: SandboxAccount) {
  const { energy, spentSun, delegations, depositSun } = account.totals;
  const avg = energy > 0 ? new Big(spentSun).div(energy) : new Big(0);
  const burnSun = new Big(NETWORK_ENERGY_FEE_SUN).times(energy);
  const savedTrx = burnSun.minus(spentSun).div(SUN_PER_TRX);
  return {
    balance: sunToTrx(account.balanceSun),
    total_delegations: delegations,
    total_energy_delegated: energy,
    total_trx_spent: sunToTrx(spentSun),
    total_deposit: sunToTrx(depositSun),
    avg_rate_sun_energy: Number(avg.round(2)),
    save_by_netts_percent:
      energy > 0 ? Number(new Big(1).minus(avg.div(NETWORK_ENERGY_FEE_SUN)).times(100).round(2)) : 0,
    save_in_dollars: energy > 0 ? Number(savedTrx.times(TRX_RATE_USD).round(2)) : 0,
  };
}

function userinfoBody(account: SandboxAccount, at: number) {
  return {
    status: "success",
    timestamp: utcDateTime(at),
    user_id: account.userId,
    user_info: { email: account.email, name: account.name, deposit_address: account.depositAddress },
    stats: stats(account),
    network_info: { trx_price: TRX_RATE_USD, network_energy_fee: NETWORK_ENERGY_FEE_SUN },
  };
}

/** userinfo's 429: `{message, request_id}` with Retry-After and the documented RateLimit headers. */
function userinfoLimitReply(retryAfterSeconds: number): SandboxReply {
  return json(
    429,
    { message: "API rate limit exceeded", request_id: randomUUID() },
    {
      "retry-after": String(retryAfterSeconds),
      "ratelimit-limit": "6",
      "ratelimit-remaining": "0",
      "ratelimit-reset": String(retryAfterSeconds),
      "x-ratelimit-limit-minute": "6",
      "x-ratelimit-remaining-minute": "0",
    },
  );
}

function deleteSubuser(ctx: SandboxContext, req: SandboxRequest): SandboxReply {
  const parent = authenticate(ctx, req, (reason) =>
    reason === "missing"
      ? json(401, { detail: "X-API-KEY header is missing" })
      : json(403, { detail: "Invalid API key or IP not whitelisted" }),
  );
  if (isReply(parent)) return parent;
  const raw = req.params.user_id ?? "";
  if (!/^[0-9]{1,12}$/.test(raw)) return validationReply([{ field: "user_id", msg: "must be an integer" }]);
  const sub = ctx.accounts.byUserId(Number(raw));
  if (!sub) return json(400, { detail: "User not found" });
  if (!sub.googleId.startsWith("SUB") || sub.parentUserId === undefined) {
    return json(400, { detail: "User is not a sub-user and cannot be deleted" });
  }
  if (sub.parentUserId !== parent.userId)
    return json(403, { detail: "Only the parent account may delete this sub-user" });
  // History moves to the parent; the balance does not (the spec says it is not transferred).
  parent.totals.delegations += sub.totals.delegations;
  parent.totals.energy += sub.totals.energy;
  parent.totals.spentSun += sub.totals.spentSun;
  ctx.accounts.remove(sub);
  return json(200, {
    user_id: sub.userId,
    google_id: sub.googleId,
    parent_user_id: parent.userId,
    total_reassigned: sub.totals.delegations,
    total_deleted: SUBUSER_RECORDS,
    message: `Sub-user ${sub.googleId} deleted; ${sub.totals.delegations} records reassigned to user ${parent.userId}`,
  });
}

export function createUserinfoRoutes(ctx: SandboxContext): Route[] {
  return [
    {
      method: "GET",
      pattern: "/apiv2/userinfo",
      name: "userinfo.get",
      buckets: ["userinfo"],
      limitReply: userinfoLimitReply,
      handler(req) {
        const account = authenticate(ctx, req, () =>
          json(401, { status: "error", code: 401, message: "Invalid API key or IP address not whitelisted" }),
        );
        return isReply(account) ? account : json(200, userinfoBody(account, ctx.now()));
      },
    },
    {
      method: "DELETE",
      pattern: "/apiv2/subuserdel/:user_id",
      name: "subuser.delete",
      buckets: [],
      handler: (req) => deleteSubuser(ctx, req),
    },
  ];
}

/** Sandbox control: a sub-user of `parent` (external id `SUB…`), with its own key. */
export function addSubuser(
  ctx: SandboxContext,
  parent: SandboxAccount,
  init: Partial<SandboxAccount> = {},
): SandboxAccount {
  const sub = ctx.accounts.add({ apiKey: `sub-${hex(16)}`, ...init, parentUserId: parent.userId });
  if (!init.googleId) sub.googleId = `SUB${sub.userId}${hex(6).toUpperCase()}`;
  return sub;
}
