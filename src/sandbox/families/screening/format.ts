import Big from "big.js";
import { SUN_PER_TRX } from "../../accounts.js";
import { AML_PROVIDERS, TRX_RATE_USD } from "../../price-book.js";

/** Version 2 timestamps: ISO 8601 UTC with microseconds and a trailing Z. */
export const isoMicros = (ms: number): string => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");

/** Version 1 timestamps: `YYYY-MM-DD HH:MM:SS`, UTC, no zone suffix. */
export const v1Time = (ms: number): string => new Date(ms).toISOString().slice(0, 19).replace("T", " ");

/** Whole SUN → TRX decimal string with 6 decimals, without float arithmetic. */
export function sunToTrxDecimal(sun: number): string {
  const whole = Math.floor(sun / SUN_PER_TRX);
  return `${whole}.${String(sun - whole * SUN_PER_TRX).padStart(6, "0")}`;
}

/** The rate as a decimal string (USD per TRX). */
export const trxRateDecimal = (): string => new Big(TRX_RATE_USD).toString();

export const scaleOf = (provider: string): { min: number; max: number } =>
  AML_PROVIDERS[provider]?.score_scale ?? { min: 0, max: 10 };

/**
 * A base-scale (0..10) decimal on the provider's own scale: the sandbox's providers compute their
 * score on their own scale, the service does not rescale it.
 */
export function scaleScore(baseScore: string | null, provider: string): string | null {
  if (baseScore === null) return null;
  const { max } = scaleOf(provider);
  return new Big(baseScore).times(max).div(10).toFixed(2);
}

/** Decimal string → JSON number, for version 1 bodies whose fields are numbers. */
export const num = (decimal: string): number => new Big(decimal).toNumber();
