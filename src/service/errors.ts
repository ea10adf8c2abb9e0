/** The API family an error came from; each family has its own error shapes in the spec. */
export type ServiceFamily =
  | "aml_v1"
  | "screening"
  | "compliance"
  | "order5m"
  | "orchestrator"
  | "host"
  | "pricing"
  | "userinfo"
  | "subuser"
  | "reports"
  | "report_webhooks"
  | "order_webhooks";

export type ServiceErrorKind =
  | "http" // the service answered with an error status or envelope
  | "rate_limited" // 429
  | "timeout" // no answer in time
  | "network" // connection refused, reset, DNS
  | "invalid_reply" // a 2xx whose body does not match the spec
  | "not_sent"; // refused by the client before sending: the service would refuse it too

export interface ServiceErrorInit {
  family: ServiceFamily;
  endpoint: string;
  kind: ServiceErrorKind;
  httpStatus?: number;
  /** The spec's code: a number (4020, -2, 10005) or a string (duplicate_request_processing, IDEMPOTENCY_CONFLICT). */
  code?: number | string;
  message: string;
  retryable: boolean;
  retryAfterMs?: number;
  /** 422 validation details, flattened to "field: message". */
  details?: string[];
  cause?: unknown;
}

/** Every failure of a service call, decoded into one shape. */
export class ServiceError extends Error {
  override readonly name = "ServiceError";
  readonly family: ServiceFamily;
  readonly endpoint: string;
  readonly kind: ServiceErrorKind;
  readonly httpStatus: number | undefined;
  readonly code: number | string | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly details: string[];

  constructor(init: ServiceErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.family = init.family;
    this.endpoint = init.endpoint;
    this.kind = init.kind;
    this.httpStatus = init.httpStatus;
    this.code = init.code;
    this.retryable = init.retryable;
    this.retryAfterMs = init.retryAfterMs;
    this.details = init.details ?? [];
  }
}

export const isServiceError = (error: unknown): error is ServiceError => error instanceof ServiceError;

/**
 * A request the service would refuse, stopped before it is sent (nothing reached the service).
 * `code` is the one the service would have answered, where the spec names one.
 */
export function notSent(
  family: ServiceFamily,
  endpoint: string,
  message: string,
  code?: number | string,
): ServiceError {
  return new ServiceError({ family, endpoint, kind: "not_sent", code, message, retryable: false });
}
