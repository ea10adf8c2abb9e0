import type { WatchSettings } from "../deps.js";

export const DEFAULT_WATCH_SETTINGS: WatchSettings = {
  intervalMs: 60_000,
  autoWatch: true,
  hostAutostop: false,
  scoreDelta: 1,
};

export const watchSettingsOf = (settings: { watch?: WatchSettings }): WatchSettings =>
  settings.watch ?? DEFAULT_WATCH_SETTINGS;
