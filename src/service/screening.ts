import { createHash } from "node:crypto";
import { z } from "zod";
import { parseReply } from "./decode-error.js";
import { notSent } from "./errors.js";
import type { RawReply, Transport } from "./transport.js";

/** Provider numbers (scores, shares, USD volumes, billing amounts) are decimal strings; they stay strings. */
const decimalString = z.string().regex(/^-?\d+(\.\d+)?$/, "expected a decimal string");
const clientOrderIdSchema = z
  .string()
  .regex(/^A[0-9a-fA-F]{14}$/, "expected A followed by 14 hex characters");
export const screeningStatusSchema = z.enum(["pending", "processing", "completed", "failed", "skipped"]);
/** Read loops stop at these. */
export const FINAL_SCREENING_STATUSES: ReadonlySet<ScreeningStatus> = new Set([
  "completed",
  "failed",
  "skipped",
]);

const scoreScale = z.object({ min: z.number(), max: z.number() });

const screeningEntitySchema = z.object({
  name: z.string(),
  category: z.string(),
  is_vasp: z.boolean(),
  is_primary: z.boolean(),
  is_after_sanction_date: z.boolean(),
});

const orderBlock = z.object({
  client_order_id: z.string(),
  status: screeningStatusSchema,
  api_version: z.string(),
  cache_hit: z.boolean(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  error: z.string().optional(),
  reason: z.string().optional(),
});

const billingBlock = z.object({
  charged: z.boolean(),
  price_usdt: decimalString,
  base_amount: decimalString,
  markup_amount: decimalString,
  charged_amount: decimalString,
  charged_currency: z.string(),
  exchange_rate: decimalString,
  payment_status: z.string(),
});

const checkBlock = z.object({
  provider: z.string(),
  provider_check_id: z.string().nullable(),
  checked_at: z.string().nullable(),
  status: z.string(),
  provider_status: z.string().nullable(),
});

const riskBlock = z.object({
  score: decimalString.nullable(),
  scale: scoreScale,
  level: z.string(),
  level_source: z.string(),
  provider_level: z.string().nullable(),
  policy: z.string(),
  by_direction: z.object({ source: decimalString.nullable(), destination: decimalString.nullable() }),
});

// The spec names these blocks' fields without their element shapes: kept open.
const sanctionsBlock = z.object({
  self: z.boolean(),
  self_entities: z.array(z.unknown()),
  exposure: z.record(z.string(), z.unknown()),
  items: z.array(z.unknown()),
  related: z.array(z.unknown()),
});

const screeningExposureSchema = z.object({
  category: z.string(),
  share_fraction: decimalString,
  direction: z.string(),
  hops: z.number().int(),
  is_screened_address: z.boolean(),
  entities: z.array(screeningEntitySchema),
});

// Only `score` has a documented type; the others are read as the service sends them.
const screeningRuleSchema = z.object({
  name: z.string(),
  type: z.string(),
  level: z.string(),
  score: decimalString,
  share_fraction: decimalString.nullable(),
  category: z.string().nullable(),
  proximity: z.union([z.string(), z.number()]).nullable(),
  direction: z.string().nullable(),
  detected_at: z.string().nullable(),
});

/** The version 2 order: one shape for every provider and every state. */
export const screeningOrderSchema = z.object({
  schema_version: z.literal(2),
  order: orderBlock,
  request: z.object({ address: z.string(), network: z.string(), provider: z.string() }),
  billing: billingBlock,
  precheck: z.object({ activity_checked: z.boolean(), activity_status: z.string(), source: z.string() }),
  check: checkBlock,
  risk: riskBlock,
  sanctions: sanctionsBlock.nullable(),
  exposure: z.array(screeningExposureSchema),
  rules: z.array(screeningRuleSchema),
  entities: z.array(screeningEntitySchema),
  primary_entity: screeningEntitySchema.nullable(),
  sanctioned_entities: z.array(screeningEntitySchema),
  wallet: z.object({ inflow_usd: decimalString.nullable(), outflow_usd: decimalString.nullable() }),
  provider_data: z.record(z.string(), z.unknown()),
});

const screeningProviderSchema = z.object({
  provider: z.string(),
  price_usdt: decimalString,
  price_trx: decimalString.nullable(),
  available: z.boolean(),
  reason: z.string().optional(),
  networks: z.array(z.string()),
  score_scale: scoreScale,
});

export const screeningProvidersSchema = z.object({
  schema_version: z.literal(2),
  providers: z.array(screeningProviderSchema),
  trx_rate_usd: decimalString.nullable(),
  supported_languages: z.array(z.string()),
});

export type ScreeningStatus = z.infer<typeof screeningStatusSchema>;
/**
 * The order as read, with `rawSha256`: the SHA-256 (hex) of the service's reply bytes as they
 * came, so a certificate can name the exact answer it rests on (parsing drops what it does not know).
 */
export type ScreeningOrder = z.infer<typeof screeningOrderSchema> & { rawSha256?: string };
export type ScreeningEntity = z.infer<typeof screeningEntitySchema>;
export type ScreeningProvider = z.infer<typeof screeningProviderSchema>;
export type ScreeningProviders = z.infer<typeof screeningProvidersSchema>;

export interface ScreeningCreateInput {
  address: string;
  network: string;
  provider: string;
  /** Hold the request until the result is ready (the service waits up to 15 s). */
  waitForResult?: boolean;
  /** Makes the POST safe to send again: the service answers the same order for the same key. */
  idempotencyKey?: string;
}

export interface ScreeningCreateResult {
  /** 202: the check runs, poll `location`; 200: the result is in `order` (finished, reused or skipped). */
  httpStatus: 200 | 202;
  location?: string;
  order: ScreeningOrder;
}

// The service holds a waiting POST up to 15 s; the margin covers the network and the response.
const WAIT_TIMEOUT_MS = 20_000;
const TIMEOUT_MS = 10_000;
const BUCKETS = ["aml"] as const;

const headerOf = (reply: RawReply, name: string): string | undefined => {
  const value = reply.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

const withRawHash = (order: ScreeningOrder, reply: RawReply): ScreeningOrder => ({
  ...order,
  rawSha256: createHash("sha256").update(reply.body).digest("hex"),
});

export function createScreeningApi(transport: Transport) {
  async function create(input: ScreeningCreateInput): Promise<ScreeningCreateResult> {
    const wait = input.waitForResult === true;
    const reply = await transport.send({
      family: "screening",
      endpoint: "screening.create",
      method: "POST",
      path: "/apiv2/screening",
      body: {
        address: input.address,
        network: input.network,
        provider: input.provider,
        ...(input.waitForResult === undefined ? {} : { wait_for_result: input.waitForResult }),
      },
      headers: input.idempotencyKey ? { "x-idempotency-key": input.idempotencyKey } : undefined,
      auth: "key+ip",
      timeoutMs: wait ? WAIT_TIMEOUT_MS : TIMEOUT_MS,
      buckets: BUCKETS,
      // A money POST is resent only when the service can recognise the repeat.
      resendable: input.idempotencyKey !== undefined && input.idempotencyKey.length > 0,
    });
    const order = withRawHash(
      parseReply("screening", "screening.create", reply, screeningOrderSchema),
      reply,
    );
    const location = headerOf(reply, "location");
    return {
      httpStatus: reply.status === 202 ? 202 : 200,
      ...(location === undefined ? {} : { location }),
      order,
    };
  }

  async function read(clientOrderId: string): Promise<ScreeningOrder> {
    if (!clientOrderIdSchema.safeParse(clientOrderId).success) {
      throw notSent(
        "screening",
        "screening.read",
        `"${clientOrderId}" is not a screening order id (A followed by 14 hexadecimal characters)`,
      );
    }
    const reply = await transport.send({
      family: "screening",
      endpoint: "screening.read",
      method: "GET",
      path: `/apiv2/screening/${clientOrderId}`,
      query: { format: "json" },
      auth: "key+ip",
      timeoutMs: TIMEOUT_MS,
      buckets: BUCKETS,
      resendable: true,
    });
    return withRawHash(parseReply("screening", "screening.read", reply, screeningOrderSchema), reply);
  }

  async function providers(): Promise<ScreeningProviders> {
    const reply = await transport.send({
      family: "screening",
      endpoint: "screening.providers",
      method: "GET",
      path: "/apiv2/screening/providers",
      auth: "key+ip",
      timeoutMs: TIMEOUT_MS,
      buckets: BUCKETS,
      resendable: true,
    });
    return parseReply("screening", "screening.providers", reply, screeningProvidersSchema);
  }

  return { create, read, providers };
}
