import { periodIsCurrent } from "../../price-book.js";

/**
 * The sandbox's bandwidth price grid: windows (one crossing midnight), a schedule per ISO weekday and
 * window, tiers by amount with prices per rental period, surcharges and limits. Data-driven like the
 * rest of the price list: clients must iterate it, never assume its shape.
 */
interface BandwidthPeriodPrice {
  id: string;
  rental_seconds: number;
  price: number; // SUN per unit
}

export interface BandwidthTier {
  amount_min: number; // inclusive
  amount_max: number | null; // exclusive, null = unlimited
  periods: BandwidthPeriodPrice[];
}

export interface BandwidthWindow {
  label: string;
  start: string; // HH:MM UTC
  end: string; // HH:MM UTC; start > end crosses midnight
}

export const BANDWIDTH_WINDOWS: BandwidthWindow[] = [
  { label: "day", start: "07:00", end: "22:00" },
  { label: "night", start: "22:00", end: "07:00" },
];

export const BANDWIDTH_SURCHARGES = {
  small_order_threshold_units: 1000,
  small_order_surcharge_trx: 0.1,
  trx_send_surcharge_trx: 0.5,
};

export const BANDWIDTH_LIMITS = { min_units: 400, max_units: 5000 };

const tiers = (small5m: number, small1h: number, large5m: number, large1h: number): BandwidthTier[] => [
  {
    amount_min: 400,
    amount_max: 1000,
    periods: [
      { id: "5m", rental_seconds: 300, price: small5m },
      { id: "1h", rental_seconds: 3600, price: small1h },
    ],
  },
  {
    amount_min: 1000,
    amount_max: null,
    periods: [
      { id: "5m", rental_seconds: 300, price: large5m },
      { id: "1h", rental_seconds: 3600, price: large1h },
    ],
  },
];

/** Tiers for an ISO weekday (1 = Monday) and window: weekends and nights are cheaper. */
export function bandwidthTiers(dayOfWeek: number, window: string): BandwidthTier[] {
  const weekend = dayOfWeek >= 6;
  if (window === "night") return weekend ? tiers(500, 750, 450, 700) : tiers(550, 800, 500, 750);
  return weekend ? tiers(600, 900, 550, 850) : tiers(650, 1000, 600, 950);
}

const isoDay = (at: number): number => {
  const day = new Date(at).getUTCDay();
  return day === 0 ? 7 : day;
};

/**
 * The window containing `at` and the weekday its schedule entry belongs to: a window that crosses
 * midnight belongs to the day it started on, so Tuesday 02:00 is Monday's night.
 */
export function currentBandwidthSlot(at: number): { window: BandwidthWindow; dayOfWeek: number } {
  const window =
    BANDWIDTH_WINDOWS.find((w) => periodIsCurrent(w, at)) ?? (BANDWIDTH_WINDOWS[0] as BandwidthWindow);
  const today = isoDay(at);
  const crossed = window.start > window.end && new Date(at).toISOString().slice(11, 16) < window.end;
  return { window, dayOfWeek: crossed ? ((today + 5) % 7) + 1 : today };
}
