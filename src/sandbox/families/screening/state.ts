import type { SandboxAccount } from "../../accounts.js";
import type { SandboxContext } from "../../context.js";
import { AML_PROVIDERS } from "../../price-book.js";
import type { OrderBook } from "./orders.js";

/** What the route modules of the screening family share. */
export interface ScreeningState {
  ctx: SandboxContext;
  book: OrderBook;
  /** The spec's synchronous wait (15 s), shorter in tests. */
  maxWaitMs(): number;
  durationFor(address: string): number;
  /** Providers out of service, with the reason the provider lists show (`quota_exhausted`). */
  unavailable: Map<string, string>;
}

export const V1_FORMATS = ["rate", "full"] as const;
export const LANGUAGES = ["en"] as const;
export const CLIENT_ORDER_ID = /^A[0-9a-fA-F]{14}$/;

/** A provider the account may order, or undefined (unknown provider or not in `account.providers`). */
export function providerFor(account: SandboxAccount, provider: string) {
  if (!account.providers.includes(provider)) return undefined;
  return AML_PROVIDERS[provider];
}

/** The providers an account may order, in its own order, that the price book knows. */
export const accountProviders = (account: SandboxAccount): string[] =>
  account.providers.filter((p) => AML_PROVIDERS[p] !== undefined);
