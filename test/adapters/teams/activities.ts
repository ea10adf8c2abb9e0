import type { FakeMicrosoft } from "../../fakes/teams-microsoft.js";
import { APP_ID, TENANT } from "../../fakes/teams-microsoft.js";

/** Activities as Teams sends them to the bot (no test runner here: the bench uses them too). */
export const CHANNEL = "19:ops0channel@thread.tacv2";
export const OPERATOR = { id: "29:olga", aadObjectId: "0c0c0c0c-0000-4000-8000-00000000a001", name: "Olga" };
export type TeamsUser = typeof OPERATOR;

let sequence = 0;

export const nextSequence = (): number => {
  sequence += 1;
  return sequence;
};

export function messageActivity(
  fake: FakeMicrosoft,
  text: string,
  o: { from?: TeamsUser; serviceUrl?: string; tenant?: string } = {},
) {
  sequence += 1;
  const from = o.from ?? OPERATOR;
  return {
    type: "message",
    id: `in-${sequence}`,
    channelId: "msteams",
    serviceUrl: o.serviceUrl ?? fake.serviceUrl,
    from: { id: from.id, aadObjectId: from.aadObjectId, name: from.name },
    recipient: { id: `28:${APP_ID}`, name: "opsbot" },
    conversation: {
      id: `${CHANNEL};messageid=root-1`,
      conversationType: "channel",
      isGroup: true,
      tenantId: o.tenant ?? TENANT,
    },
    channelData: { tenant: { id: o.tenant ?? TENANT }, team: { id: CHANNEL }, channel: { id: CHANNEL } },
    text: `<at>opsbot</at> ${text}`,
    entities: [
      { type: "mention", text: "<at>opsbot</at>", mentioned: { id: `28:${APP_ID}`, name: "opsbot" } },
    ],
  };
}
