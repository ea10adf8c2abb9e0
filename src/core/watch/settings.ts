/** The watchlist settings (CONTRACT.md: OPS_WATCH_*, OPS_AUTO_WATCH, OPS_HOST_AUTOSTOP). */
export interface WatchSettings {
  /** OPS_WATCH_INTERVAL_S in ms: how often the deny-list `revision` is read. */
  intervalMs: number;
  /** OPS_AUTO_WATCH: addresses that get energy or Host Mode through the bot are watched. */
  autoWatch: boolean;
  /** OPS_HOST_AUTOSTOP: stop Host Mode by itself when its address becomes blocked. */
  hostAutostop: boolean;
  /** OPS_WATCH_BUDGET_TRX (decimal TRX): monthly budget of re-screens; unset: re-screening off. */
  budgetTrx?: string;
  /** OPS_WATCH_SCORE_DELTA: a re-screen score move that is worth an alert. */
  scoreDelta: number;
}

export const DEFAULT_WATCH_SETTINGS: WatchSettings = {
  intervalMs: 60_000,
  autoWatch: true,
  hostAutostop: false,
  scoreDelta: 1,
};

export const watchSettingsOf = (settings: { watch?: WatchSettings }): WatchSettings =>
  settings.watch ?? DEFAULT_WATCH_SETTINGS;
