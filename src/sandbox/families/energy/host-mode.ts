import { MIN_BALANCE_SUN, type SandboxAccount } from "../../accounts.js";
import type { SandboxContext } from "../../context.js";
import {
  isRecord,
  json,
  type Route,
  readJson,
  type SandboxReply,
  type SandboxRequest,
} from "../../router.js";
import { isAcceptableCallbackUrl } from "./callback-url.js";
import { detailReply, isoUtc, TRON_ADDRESS, validationReply } from "./common.js";
import { createHostCycles, type HostFailure } from "./host-cycles.js";

/**
 * Host Mode endpoints: every reply is HTTP 200 with `code`/`msg`/`data` (negative code, data null,
 * on failure), except the checks that reject before the endpoint runs: 402 1004, 403 1005, 422.
 */

type Body = Record<string, unknown>;
type EndpointHandler = (account: SandboxAccount, body: Body, address: string) => SandboxReply;

const ok = (msg: string, data: Record<string, unknown>): SandboxReply => json(200, { code: 0, msg, data });
const fail = (failure: HostFailure): SandboxReply =>
  json(200, { code: failure.code, msg: failure.msg, data: null });

const NOT_FOUND: HostFailure = { code: -4, msg: "Address not found. Add it first" };

function typeProblems(body: Body, withAddOptions: boolean): Array<{ loc: string[]; msg: string }> {
  const problems: Array<{ loc: string[]; msg: string }> = [];
  if (typeof body.address !== "string") problems.push({ loc: ["address"], msg: "Field required (string)" });
  if (body.api_key !== undefined && typeof body.api_key !== "string") {
    problems.push({ loc: ["api_key"], msg: "Input should be a valid string" });
  }
  if (!withAddOptions) return problems;
  const url = body.callback_url;
  if (url !== undefined && url !== null && typeof url !== "string") {
    problems.push({ loc: ["callback_url"], msg: "Input should be a valid string" });
  }
  if (body.infinity !== undefined && typeof body.infinity !== "boolean") {
    problems.push({ loc: ["infinity"], msg: "Input should be a valid boolean" });
  }
  return problems;
}

export function createHostMode(
  ctx: SandboxContext,
  options: { firstCycleMs: number; startRequiredSun: number },
) {
  const cycles = createHostCycles(ctx, options);
  const ownEntry = (account: SandboxAccount, address: string) => {
    const entry = cycles.registry.get(address);
    return entry && entry.account.userId === account.userId ? entry : undefined;
  };

  /** The checks every Host Mode endpoint shares, in the order the service applies them. */
  function endpoint(kind: "add" | "start" | "stop" | "status", handler: EndpointHandler) {
    return (req: SandboxRequest): SandboxReply => {
      const raw = readJson(req);
      if (req.rawBody.length > 0 && !isRecord(raw)) {
        return validationReply([{ loc: [], msg: "Input should be a valid dictionary" }]);
      }
      const body: Body = isRecord(raw) ? raw : {};
      const auth = ctx.accounts.authenticate(req, { checkIp: true, bodyKey: body.api_key });
      if (!auth.ok && auth.reason === "missing") {
        return fail({ code: -1, msg: "API key required in X-API-KEY header or request body" });
      }
      if (!auth.ok && auth.reason === "blocked") return detailReply(403, 1005, "API key is blocked");
      if (!auth.ok) return fail({ code: -1, msg: "Invalid API key or IP not in whitelist" });
      // Add and infinitystart need the 4 TRX minimum; stop (and the status read) do not.
      if ((kind === "add" || kind === "start") && auth.account.balanceSun < MIN_BALANCE_SUN) {
        return detailReply(402, 1004, "Balance below the 4 TRX minimum");
      }
      const problems = typeProblems(body, kind === "add");
      if (problems.length > 0) return validationReply(problems);
      const address = body.address as string;
      if (!TRON_ADDRESS.test(address)) return fail({ code: -1, msg: "Invalid TRC-20 address format" });
      return handler(auth.account, body, address);
    };
  }

  const add: EndpointHandler = (account, body, address) => {
    const url = body.callback_url as string | null | undefined;
    if (typeof url === "string" && !isAcceptableCallbackUrl(url)) {
      return fail({ code: -1, msg: "Invalid callback URL. Only public HTTP/HTTPS URLs are allowed" });
    }
    let entry = cycles.registry.get(address);
    if (entry && entry.account.userId !== account.userId) {
      return fail({ code: -1, msg: "Address belongs to another user" });
    }
    let msg = "Address added successfully";
    if (entry) {
      if (url !== undefined) entry.callbackUrl = url;
      msg = "Address callback URL updated successfully";
    } else {
      entry = cycles.register(account, address, url ?? null);
    }
    // The reply is the same whether infinity started or not (the spec: confirm with Time Status).
    if (body.infinity === true && entry.status === "inactive") cycles.startInfinity(entry);
    return ok(msg, { address, callback_url: entry.callbackUrl, timestamp: isoUtc(ctx.now()) });
  };

  const infinityStart: EndpointHandler = (account, _body, address) => {
    const entry = ownEntry(account, address);
    if (!entry) return fail(NOT_FOUND);
    const failure = cycles.startInfinity(entry);
    if (failure) return fail(failure);
    return ok("Infinity mode activated", {
      address,
      order_id: entry.orderId,
      mode: "infinity",
      status: "active",
      timestamp: isoUtc(ctx.now()),
    });
  };

  const stop: EndpointHandler = (account, _body, address) => {
    const entry = ownEntry(account, address);
    if (!entry) return fail(NOT_FOUND);
    if (entry.status === "inactive") return fail({ code: -7, msg: "Host mode is already inactive" });
    const closed = cycles.stop(entry);
    return ok("Host mode stopped", {
      address,
      orders_closed: closed,
      status: "inactive",
      timestamp: isoUtc(ctx.now()),
    });
  };

  /**
   * Time Status: the spec shows `status`, `mode`, `cycles_ordered` and `cycles_remaining` (null:
   * unlimited, as in infinity mode) and the order id; an address that is not this account's answers
   * -4 like infinitystart and stop. No other fields are invented.
   */
  const status: EndpointHandler = (account, _body, address) => {
    const entry = ownEntry(account, address);
    if (!entry) return fail(NOT_FOUND);
    const infinity = entry.status === "active" && entry.mode === "infinity";
    return ok("Host mode status", {
      address,
      status: entry.status,
      mode: entry.mode,
      cycles_ordered: infinity ? null : 0,
      cycles_remaining: infinity ? null : 0,
      order_id: entry.orderId,
      timestamp: isoUtc(ctx.now()),
    });
  };

  const route = (path: string, name: string, handler: (req: SandboxRequest) => SandboxReply): Route => ({
    method: "POST",
    pattern: path,
    name,
    // The spec publishes no rate limit for Host Mode.
    buckets: [],
    handler,
  });

  return {
    routes: [
      route("/apiv2/time/add", "host.add", endpoint("add", add)),
      route("/apiv2/time/infinitystart", "host.infinitystart", endpoint("start", infinityStart)),
      route("/apiv2/time/stop", "host.stop", endpoint("stop", stop)),
      route("/apiv2/time/status", "host.status", endpoint("status", status)),
    ],
    control: cycles.control,
  };
}
