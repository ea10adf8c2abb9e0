import type { CaseSettings } from "../deps.js";

/** CONTRACT.md defaults: `high,severe`, 60 minutes. The key default is for a bare core (tests, demo). */
const DEFAULT_CASE_SETTINGS: CaseSettings = {
  levels: ["high", "severe"],
  slaMs: 60 * 60_000,
  certKeyHex: "",
  destinations: [],
};

export const caseSettingsOf = (settings: { cases?: CaseSettings }): CaseSettings =>
  settings.cases ?? DEFAULT_CASE_SETTINGS;
