import type { SandboxAccount } from "../../accounts.js";
import { amlPriceSun } from "../../price-book.js";
import { isRecord, type Route, readJson, type SandboxReply, type SandboxRequest } from "../../router.js";
import { scaleOf, sunToTrxDecimal, trxRateDecimal } from "./format.js";
import { authV2, headerValue, NO_STORE, problem } from "./http.js";
import type { ScreeningRecord } from "./orders.js";
import { accountProviders, CLIENT_ORDER_ID, LANGUAGES, providerFor, type ScreeningState } from "./state.js";
import { renderV2 } from "./v2-view.js";

interface V2Input {
  address: string;
  network: string;
  provider: string;
}

function parseBody(body: unknown): V2Input | string {
  if (!isRecord(body)) return "the body must be a JSON object";
  const { address, network, provider, wait_for_result: wait } = body;
  if (typeof address !== "string" || address.length < 10 || address.length > 100) {
    return "address must be a string of 10 to 100 characters";
  }
  if (typeof network !== "string" || network.length === 0) return "network is required";
  if (typeof provider !== "string" || provider.length === 0) return "provider is required";
  if (wait !== undefined && typeof wait !== "boolean") return "wait_for_result must be a boolean";
  return { address, network, provider };
}

export function createV2Routes(state: ScreeningState): Route[] {
  const { ctx, book } = state;
  /** X-Idempotency-Key → order id, per account; scoped to this endpoint only. */
  const idempotency = new Map<string, string>();

  async function respond(order: ScreeningRecord, wait: boolean): Promise<SandboxReply> {
    if (wait) await book.waitFor(order, state.maxWaitMs());
    const pending = order.status === "pending" || order.status === "processing";
    if (!pending) return { status: 200, json: renderV2(order), headers: NO_STORE };
    const location = `/apiv2/screening/${order.id}`;
    return { status: 202, json: renderV2(order), headers: { ...NO_STORE, location } };
  }

  /** 4002 / 4004 / 5030 checks, all before anything is charged. */
  function refuse(req: SandboxRequest, account: SandboxAccount, input: V2Input): SandboxReply | undefined {
    const provider = providerFor(account, input.provider);
    if (!provider)
      return problem(req, 400, 4002, `provider ${input.provider} is not available to this account`);
    if (!provider.networks.includes(input.network)) {
      return problem(req, 400, 4004, `provider ${input.provider} does not cover network ${input.network}`);
    }
    if (state.unavailable.has(input.provider)) {
      return problem(req, 503, 5030, `provider ${input.provider} is temporarily unavailable`);
    }
    return undefined;
  }

  async function create(req: SandboxRequest): Promise<SandboxReply> {
    const auth = authV2(ctx.accounts, req);
    if ("reply" in auth) return auth.reply;
    const key = headerValue(req, "x-idempotency-key");
    if (key !== undefined && (key.length === 0 || key.length > 255)) {
      return problem(req, 400, 4001, "X-Idempotency-Key must be 1 to 255 characters");
    }
    const body = readJson(req);
    const wait = isRecord(body) && body.wait_for_result === true;
    const scope = key === undefined ? undefined : `${auth.account.userId}\u0000${key}`;
    const known = scope === undefined ? undefined : book.get(idempotency.get(scope) ?? "");
    if (known) return respond(known, wait);
    const input = parseBody(body);
    if (typeof input === "string") return problem(req, 400, 4001, input);
    const refused = refuse(req, auth.account, input);
    if (refused) return refused;
    const outcome = book.start({ account: auth.account, via: "v2", ...input });
    // The spec names 4020 for v1 only; v2 answers the same code as problem+json 402.
    if (!outcome.ok) return problem(req, 402, 4020, "insufficient balance for this check");
    if (scope !== undefined) idempotency.set(scope, outcome.order.id);
    return respond(outcome.order, wait);
  }

  function read(req: SandboxRequest): SandboxReply {
    const auth = authV2(ctx.accounts, req);
    if ("reply" in auth) return auth.reply;
    const id = req.params.client_order_id ?? "";
    if (!CLIENT_ORDER_ID.test(id))
      return problem(req, 400, 4003, "client_order_id must be A followed by 14 hex");
    const format = req.query.get("format") ?? "json";
    if (format !== "json") return problem(req, 400, 4001, `format ${format} is not supported; use json`);
    const order = book.get(id);
    // Another account's order is indistinguishable from a missing one (404, not 403).
    if (!order || order.account !== auth.account) return problem(req, 404, 4040, `order ${id} not found`);
    return { status: 200, json: renderV2(order), headers: NO_STORE };
  }

  function providers(req: SandboxRequest): SandboxReply {
    const auth = authV2(ctx.accounts, req);
    if ("reply" in auth) return auth.reply;
    const list = accountProviders(auth.account).map((name) => {
      const reason = state.unavailable.get(name);
      return {
        provider: name,
        price_usdt: providerFor(auth.account, name)?.price_usdt ?? "0",
        price_trx: sunToTrxDecimal(amlPriceSun(name)),
        available: reason === undefined,
        ...(reason === undefined ? {} : { reason }),
        networks: providerFor(auth.account, name)?.networks ?? [],
        score_scale: scaleOf(name),
      };
    });
    return {
      status: 200,
      json: {
        schema_version: 2,
        providers: list,
        trx_rate_usd: trxRateDecimal(),
        supported_languages: LANGUAGES,
      },
    };
  }

  const buckets = ["aml"] as const;
  return [
    { method: "POST", pattern: "/apiv2/screening", name: "screening.create", buckets, handler: create },
    {
      method: "GET",
      pattern: "/apiv2/screening/providers",
      name: "screening.providers",
      buckets,
      handler: providers,
    },
    {
      method: "GET",
      pattern: "/apiv2/screening/:client_order_id",
      name: "screening.read",
      buckets,
      handler: read,
    },
  ];
}
