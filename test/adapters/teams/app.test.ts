import { afterEach, describe, expect, it } from "vitest";
import { type App, startApp } from "../../../src/app.js";
import { loadConfig } from "../../../src/config/load-config.js";
import { createLogger } from "../../../src/log.js";
import { type FakeMicrosoft, startFakeMicrosoft } from "../../fakes/teams-microsoft.js";
import { APP_ID, messageActivity } from "./harness.js";

/**
 * The whole bot as `npm start` runs it with Teams configured: `startApp` with a Config from
 * `loadConfig`, the built-in sandbox, and the fake Microsoft side as TEAMS_OPENID_URL,
 * TEAMS_LOGIN_URL and TEAMS_SERVICE_URLS.
 */
const PASSWORD = "teams-app-password-never-logged";
let app: App | undefined;
let fake: FakeMicrosoft | undefined;
afterEach(async () => {
  await app?.stop();
  await fake?.close();
  app = undefined;
  fake = undefined;
});

describe("teams in the app (startApp)", () => {
  it("mounts POST /api/messages from the registry, says at start the alert channel is not known yet, and answers a command", async () => {
    fake = await startFakeMicrosoft();
    const logs: string[] = [];
    const config = loadConfig({
      TEAMS_APP_ID: APP_ID,
      TEAMS_APP_PASSWORD: PASSWORD,
      TEAMS_TENANT_ID: "5f1e2d3c-0000-4000-8000-00000000a11c",
      TEAMS_OPENID_URL: fake.openIdUrl,
      TEAMS_LOGIN_URL: fake.loginUrl,
      TEAMS_SERVICE_URLS: fake.url,
      ALERT_TEAMS_CONVERSATION: "19:alerts0team@thread.tacv2",
      PUBLIC_URL: "https://opsbot.test",
    });
    const logger = createLogger({
      level: "debug",
      destination: { write: (line: string) => void logs.push(line) },
    });
    app = await startApp({ config: { ...config, port: 0 }, logger, host: "127.0.0.1" });
    const url = `http://127.0.0.1:${app.port}`;
    const health = await fetch(`${url}/healthz`);
    expect(((await health.json()) as { parts: Record<string, boolean> }).parts.teams).toBe(true);
    expect(logs.join("\n")).toMatch(/ALERT_TEAMS_CONVERSATION is not known yet/);

    const activity = messageActivity(fake, "help");
    const response = await fetch(`${url}/api/messages`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${await fake.sign({ serviceUrl: activity.serviceUrl })}`,
      },
      body: JSON.stringify(activity),
    });
    expect(response.status).toBe(200);
    expect(fake.activities).toHaveLength(1);
    expect(String(fake.activities[0]?.body.text)).toMatch(/What I can do/);
    expect(String(fake.activities[0]?.body.text)).toContain("`help <command>`");
    expect(logs.join("\n")).not.toContain(PASSWORD);
  });
});
