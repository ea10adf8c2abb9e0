import { z } from "zod";
import { envelopeError, parseReply } from "./decode-error.js";
import { screeningStatusSchema } from "./screening.js";
import type { CallSpec, RawReply, Transport } from "./transport.js";
import { wrapperSchema } from "./wrapper-schema.js";

const usd = z.object({ usd: z.number() }).loose();

/** Entity of `contributions` and `cluster_entities` (cluster entities add `is_after_sanction_date`). */
const amlV1EntitySchema = z.object({
  name: z.string(),
  category: z.string(),
  is_vasp: z.boolean().nullable(),
  actor_id: z.number().int(),
  entity_id: z.string(),
  category_id: z.string(),
  is_primary_entity: z.boolean(),
  is_after_sanction_date: z.boolean().optional(),
});

const amlV1ContributionSchema = z.object({
  entities: z.array(amlV1EntitySchema),
  contribution_value: usd,
  contribution_percentage: z.number(),
  indirect_value: usd,
  indirect_percentage: z.number(),
  counterparty_value: usd,
  counterparty_percentage: z.number(),
  min_number_of_hops: z.number(),
  is_screened_address: z.boolean(),
});

const amlV1RuleSchema = z.object({
  rule_id: z.string(),
  rule_name: z.string(),
  rule_type: z.string(),
  risk_score: z.number(),
  // Matched elements are documented loosely (nested contributions with value triples): kept open.
  matched_elements: z.array(z.record(z.string(), z.unknown())),
  matched_behaviors: z.array(z.unknown()),
});

const sides = <T extends z.ZodType>(item: T) =>
  z.object({ source: z.array(item), destination: z.array(item) });

/** provider_a's full response (`response_format: full`). */
const amlV1ResultSchema = z.object({
  risk_score: z.number().nullable(),
  risk_score_detail: z.object({ source: z.number().nullable(), destination: z.number().nullable() }),
  contributions: sides(amlV1ContributionSchema),
  cluster_entities: z.array(amlV1EntitySchema),
  evaluation_detail: sides(amlV1RuleSchema),
  detected_behaviors: z.array(z.unknown()),
});

const amlV1SanctionsSchema = z.object({
  self: z.boolean(),
  self_entities: z.array(z.unknown()).nullable(),
  exposure: z.record(z.string(), z.unknown()).nullable(),
  items: z.array(z.unknown()),
});

/** Version 1 `data`: the pending shape and the completed shape share one schema, with optional fields. */
const amlV1OrderSchema = z.object({
  client_order_id: z.string(),
  status: screeningStatusSchema,
  address: z.string(),
  provider: z.string(),
  report_language: z.string().optional(),
  price_usdt: z.number().optional(),
  price_trx: z.number().optional(),
  currency: z.string().optional(),
  message: z.string().optional(),
  estimated_time_seconds: z.number().int().optional(),
  risk_score: z.number().nullable().optional(),
  risk_level: z.enum(["low", "medium", "high"]).nullable().optional(),
  is_sanctioned: z.boolean().optional(),
  created_at: z.string().optional(),
  completed_at: z.string().nullable().optional(),
  result: amlV1ResultSchema.optional(),
  address_users: z.array(z.object({ sources: z.array(z.string()), user_id: z.number().int() })).optional(),
  sanctions: amlV1SanctionsSchema.optional(),
});

const amlV1ProvidersSchema = z.object({
  providers: z.array(
    z.object({
      provider: z.string(),
      price_usdt: z.number(),
      price_trx: z.number(),
      available: z.boolean(),
      reason: z.string().optional(),
    }),
  ),
  trx_rate_usd: z.number(),
  supported_formats: z.array(z.string()),
  supported_languages: z.array(z.string()),
});

const amlV1PriceSchema = z.object({
  provider: z.string(),
  price_usdt: z.number(),
  price_trx: z.number(),
  trx_rate_usd: z.number(),
  available: z.boolean(),
  user_balance_trx: z.number(),
  can_afford: z.boolean(),
});

const envelope = wrapperSchema(<T extends z.ZodType>(data: T) =>
  z.object({ success: z.boolean(), data: data.optional(), timestamp: z.string() }),
);

export type AmlV1Order = z.infer<typeof amlV1OrderSchema>;
export type AmlV1Providers = z.infer<typeof amlV1ProvidersSchema>;
export type AmlV1Price = z.infer<typeof amlV1PriceSchema>;

export interface AmlV1CreateInput {
  address: string;
  network: string;
  provider?: string;
  /** Wait synchronously up to 15 s for the result. */
  wait?: boolean;
  responseFormat?: "rate" | "full";
  reportLanguage?: string;
}

const WAIT_TIMEOUT_MS = 20_000;
const TIMEOUT_MS = 10_000;
// Every AML path shares the version 2 limit; version 1 has its own, stricter one on top.
const BUCKETS = ["aml", "aml_v1"] as const;

type V1Call = Pick<CallSpec, "endpoint" | "method" | "path"> & Partial<CallSpec>;

export function createAmlV1Api(transport: Transport) {
  async function call<S extends z.ZodType>(spec: V1Call, schema: S): Promise<z.infer<S>> {
    const reply: RawReply = await transport.send({
      family: "aml_v1",
      auth: "key+ip",
      timeoutMs: TIMEOUT_MS,
      buckets: BUCKETS,
      resendable: spec.method === "GET",
      ...spec,
    });
    const body = parseReply("aml_v1", spec.endpoint, reply, envelope(schema));
    if (!body.success || body.data === undefined) {
      throw envelopeError(
        "aml_v1",
        spec.endpoint,
        reply.status,
        "success_false",
        "the service answered success=false",
      );
    }
    return body.data as z.infer<S>;
  }

  return {
    /** POST /apiv2/aml. Never resent: version 1 has no idempotency key. */
    create: (input: AmlV1CreateInput): Promise<AmlV1Order> =>
      call(
        {
          endpoint: "aml.create",
          method: "POST",
          path: "/apiv2/aml",
          body: {
            address: input.address,
            network: input.network,
            ...(input.provider === undefined ? {} : { provider: input.provider }),
            ...(input.wait === undefined ? {} : { wait: input.wait }),
            ...(input.responseFormat === undefined ? {} : { response_format: input.responseFormat }),
            ...(input.reportLanguage === undefined ? {} : { report_language: input.reportLanguage }),
          },
          timeoutMs: input.wait ? WAIT_TIMEOUT_MS : TIMEOUT_MS,
        },
        amlV1OrderSchema,
      ),
    read: (orderId: string): Promise<AmlV1Order> =>
      call(
        { endpoint: "aml.read", method: "GET", path: `/apiv2/aml/${encodeURIComponent(orderId)}` },
        amlV1OrderSchema,
      ),
    providers: (): Promise<AmlV1Providers> =>
      call({ endpoint: "aml.providers", method: "GET", path: "/apiv2/aml/providers" }, amlV1ProvidersSchema),
    price: (provider?: string): Promise<AmlV1Price> =>
      call(
        { endpoint: "aml.price", method: "GET", path: "/apiv2/aml/price", query: { provider } },
        amlV1PriceSchema,
      ),
  };
}
