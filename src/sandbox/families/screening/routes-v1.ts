import { type SandboxAccount, SUN_PER_TRX } from "../../accounts.js";
import { AML_PROVIDERS, amlPriceSun, TRX_RATE_USD } from "../../price-book.js";
import { isRecord, type Route, readJson, type SandboxReply, type SandboxRequest } from "../../router.js";
import { num } from "./format.js";
import { authV1, NO_STORE, v1Error, v1Ok } from "./http.js";
import { secondsLeft } from "./orders.js";
import { accountProviders, LANGUAGES, providerFor, type ScreeningState, V1_FORMATS } from "./state.js";
import { v1Final, v1PendingCreated, v1PendingRead } from "./v1-view.js";

interface V1Input {
  address: string;
  network: string;
  provider: string;
  wait: boolean;
  responseFormat: "rate" | "full";
  reportLanguage: string;
}

const TICKERS = new Set(Object.values(AML_PROVIDERS).flatMap((p) => p.networks));

type Invalid = { code: number; msg: string };

/** v1 validation: 4001 for the address, the network and (our choice) the other parameters; 4002 for the provider. */
function parseBody(body: unknown, account: SandboxAccount): V1Input | Invalid {
  if (!isRecord(body)) return { code: 4001, msg: "invalid or missing address" };
  const { address, network, provider = "provider_a", wait = false } = body;
  const { response_format: format = "full", report_language: language = "en" } = body;
  if (typeof address !== "string" || address.length < 10 || address.length > 100) {
    return { code: 4001, msg: "invalid or missing address" };
  }
  if (typeof network !== "string" || !TICKERS.has(network)) return { code: 4001, msg: "unsupported network" };
  if (typeof provider !== "string" || !providerFor(account, provider))
    return { code: 4002, msg: "invalid provider" };
  if (!providerFor(account, provider)?.networks.includes(network)) {
    return { code: 4001, msg: `unsupported network for provider ${provider}` };
  }
  if (typeof wait !== "boolean") return { code: 4001, msg: "wait must be a boolean" };
  if (!V1_FORMATS.includes(format as "rate"))
    return { code: 4001, msg: `response_format ${format} is not supported` };
  if (!LANGUAGES.includes(language as "en"))
    return { code: 4001, msg: `report_language ${language} is not supported` };
  return {
    address,
    network,
    provider,
    wait,
    responseFormat: format as "rate" | "full",
    reportLanguage: language as string,
  };
}

export function createV1Routes(state: ScreeningState): Route[] {
  const { ctx, book } = state;
  const err = (status: number, code: number, msg: string) => v1Error(status, code, msg, ctx.now());

  async function create(req: SandboxRequest): Promise<SandboxReply> {
    const auth = authV1(ctx.accounts, req);
    if ("reply" in auth) return auth.reply;
    const input = parseBody(readJson(req), auth.account);
    if ("code" in input) return err(400, input.code, input.msg);
    if (state.unavailable.has(input.provider))
      return err(503, 5030, `provider ${input.provider} is unavailable`);
    const { wait, ...order } = input;
    const outcome = book.start({ account: auth.account, via: "v1", ...order });
    if (!outcome.ok) return err(402, 4020, "insufficient balance");
    if (wait) await book.waitFor(outcome.order, state.maxWaitMs());
    const o = outcome.order;
    if (o.status === "pending" || o.status === "processing") return v1Ok(v1PendingCreated(o), ctx.now());
    return v1Ok(v1Final(o, false), ctx.now(), NO_STORE);
  }

  function read(req: SandboxRequest): SandboxReply {
    const auth = authV1(ctx.accounts, req);
    if ("reply" in auth) return auth.reply;
    const o = book.get(req.params.order_id ?? "");
    if (!o || o.account !== auth.account) return err(404, 4040, "order not found");
    if (o.status === "pending" || o.status === "processing") {
      return v1Ok(v1PendingRead(o, secondsLeft(o, state.durationFor(o.address), ctx.now())), ctx.now());
    }
    return v1Ok(v1Final(o, true), ctx.now(), NO_STORE);
  }

  function providers(req: SandboxRequest): SandboxReply {
    const auth = authV1(ctx.accounts, req);
    if ("reply" in auth) return auth.reply;
    const list = accountProviders(auth.account).map((name) => {
      const reason = state.unavailable.get(name);
      return {
        provider: name,
        price_usdt: num(AML_PROVIDERS[name]?.price_usdt ?? "0"),
        price_trx: amlPriceSun(name) / SUN_PER_TRX,
        available: reason === undefined,
        ...(reason === undefined ? {} : { reason }),
      };
    });
    const data = {
      providers: list,
      trx_rate_usd: TRX_RATE_USD,
      supported_formats: V1_FORMATS,
      supported_languages: LANGUAGES,
    };
    return v1Ok(data, ctx.now());
  }

  function price(req: SandboxRequest): SandboxReply {
    const auth = authV1(ctx.accounts, req);
    if ("reply" in auth) return auth.reply;
    const name = req.query.get("provider") ?? "provider_a";
    const provider = providerFor(auth.account, name);
    if (!provider) return err(400, 4002, "invalid provider");
    const priceSun = amlPriceSun(name);
    return v1Ok(
      {
        provider: name,
        price_usdt: num(provider.price_usdt),
        price_trx: priceSun / SUN_PER_TRX,
        trx_rate_usd: TRX_RATE_USD,
        available: !state.unavailable.has(name),
        user_balance_trx: auth.account.balanceSun / SUN_PER_TRX,
        can_afford: auth.account.balanceSun >= priceSun,
      },
      ctx.now(),
    );
  }

  const buckets = ["aml", "aml_v1"] as const;
  return [
    { method: "POST", pattern: "/apiv2/aml", name: "aml.create", buckets, handler: create },
    { method: "GET", pattern: "/apiv2/aml/providers", name: "aml.providers", buckets, handler: providers },
    { method: "GET", pattern: "/apiv2/aml/price", name: "aml.price", buckets, handler: price },
    { method: "GET", pattern: "/apiv2/aml/:order_id", name: "aml.read", buckets, handler: read },
  ];
}
