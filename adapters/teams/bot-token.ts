import type { ServiceClientCredentials } from "botframework-connector";
import { MsalAppCredentials, MsalServiceClientCredentialsFactory } from "botframework-connector";

/**
 * The bot's own token for the Bot Connector, asked for once and kept until 5 minutes before it
 * expires. botbuilder makes new credentials for every Bot Connector client and, on a fresh start or
 * at expiry, every answer going out at that moment asks TEAMS_LOGIN_URL for a token of its own
 * (eight answers at once: eight token requests). Here one credentials object per audience holds
 * the token, and answers that need it while it is being fetched wait for that one request.
 */
const REFRESH_BEFORE_EXPIRY_MS = 5 * 60_000;

interface HeldToken {
  accessToken: string;
  expiresOn: Date;
}

export class KeptTokenCredentialsFactory extends MsalServiceClientCredentialsFactory {
  private readonly made = new Map<string, Promise<ServiceClientCredentials>>();

  override createCredentials(
    appId: string,
    audience: string,
    loginEndpoint: string,
    validateAuthority: boolean,
  ): Promise<ServiceClientCredentials> {
    const key = `${appId} ${audience} ${loginEndpoint}`;
    let made = this.made.get(key);
    if (made === undefined) {
      made = super
        .createCredentials(appId, audience, loginEndpoint, validateAuthority)
        .then((credentials) =>
          credentials instanceof MsalAppCredentials ? keepingToken(credentials) : credentials,
        );
      this.made.set(key, made);
      made.catch(() => this.made.delete(key));
    }
    return made;
  }
}

/** The credentials' `getToken` with one token held and one request at a time. */
function keepingToken(credentials: MsalAppCredentials, now: () => number = Date.now): MsalAppCredentials {
  // MSAL's own request for a token (the library's `refreshToken`, which skips MSAL's cache).
  const request = (credentials as unknown as { refreshToken(): Promise<HeldToken> }).refreshToken.bind(
    credentials,
  );
  let held: HeldToken | undefined;
  let asking: Promise<string> | undefined;
  credentials.getToken = async (forceRefresh = false) => {
    if (!forceRefresh && held && held.expiresOn.getTime() - REFRESH_BEFORE_EXPIRY_MS > now())
      return held.accessToken;
    asking ??= request()
      .then((token) => {
        held = token;
        return token.accessToken;
      })
      .finally(() => {
        asking = undefined;
      });
    return asking;
  };
  return credentials;
}
